"""A scripted model that the real `openai` SDK talks to (lesson 1; the Responses API and streaming in lesson 7).

    model = ScriptedModel([call("get_order_status", order_id="A1001"), "It has shipped."])
    client = model.client()

The modules, by job: `turns` (what a script is made of), `model` (routing and turn
selection), `chat_checks` / `chat_answers` (Chat Completions: what it refuses, what it
answers, streamed or not), `responses_api` (`/v1/responses`), `rejections` (error bodies),
`schema` (OpenAI's published schema, checked on every exchange), `serve` (over HTTP),
`rules` (helpers stories use to read a request).
"""

from course.scripted.chat_checks import check_calls, validate_request
from course.scripted.model import KNOWN_MODELS, ScriptedModel
from course.scripted.rejections import APIRejection
from course.scripted.rules import (
                                   APP_NOTE,
                                   from_user,
                                   last_user_text,
                                   offered_tools,
                                   tool_calls_since_user,
                                   tool_results,
)
from course.scripted.turns import (
                                   CREATED,
                                   Fail,
                                   OffSpecAnswer,
                                   Rule,
                                   ScriptExhausted,
                                   Timeout,
                                   ToolCall,
                                   Turn,
                                   call,
                                   estimate_tokens,
                                   raw_call,
)

__all__ = ["APIRejection", "APP_NOTE", "CREATED", "Fail", "KNOWN_MODELS", "OffSpecAnswer", "Rule", "ScriptExhausted",
           "ScriptedModel", "Timeout", "ToolCall", "Turn", "call", "check_calls", "estimate_tokens", "from_user",
           "last_user_text", "offered_tools", "raw_call", "tool_calls_since_user", "tool_results",
           "validate_request"]
