"""The drivers: the only places that do I/O. Each runs `agent_loop` to the end (lesson 2).

A model call that fails (after the SDK's own retries) is sent back into the loop, which ends
the run with `stop_reason="model_error"`; a tool that raises is sent back too, and becomes a
message for the model. So the model's and the network's faults never raise; wrong arguments
to `run_agent` do, with what to pass instead. `ApprovalFailed` (lesson 4) is let through: it
is a message for the person running the code, not for the model.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable
from typing import Any

import openai

from course.agent.inputs import check_execute
from course.agent.limits import Limits
from course.agent.loop import ModelRequest, agent_loop
from course.agent.model_errors import MODEL_ERRORS
from course.agent.repeats import call_key
from course.agent.result import Result
from course.errors import ApprovalFailed
from course.tools import Execute


def run_agent(client: openai.OpenAI, model: str, messages: str | list[dict], *, tools: list[dict],
              execute: Callable[[str, str], str], limits: Limits = Limits(),
              repeat_key: Callable[[str, str], Hashable] = call_key) -> Result:
    """Run the loop with a sync client until the model answers or a limit stops it."""
    if isinstance(client, openai.AsyncOpenAI):
        raise TypeError("run_agent needs a sync client (openai.OpenAI); with AsyncOpenAI use `await arun_agent(...)`.")
    check_execute(execute)
    loop = agent_loop(model, messages, tools=tools, limits=limits, repeat_key=repeat_key)
    outcome: Any = None
    while True:
        try:
            request = loop.send(outcome)
        except StopIteration as done:
            return done.value
        if isinstance(request, ModelRequest):
            try:
                outcome = client.chat.completions.create(**request.params)
            except MODEL_ERRORS as e:
                outcome = e
        else:
            try:
                outcome = execute(request.name, request.arguments)
            except ApprovalFailed:  # a message for the person running the code, not for the model
                raise
            except Exception as e:
                outcome = e
            if inspect.isawaitable(outcome):
                getattr(outcome, "close", lambda: None)()  # no "never awaited" warning
                raise TypeError("execute returned an awaitable: an async execute needs `await arun_agent(...)`.")


async def arun_agent(client: openai.AsyncOpenAI, model: str, messages: str | list[dict], *, tools: list[dict],
                     execute: Execute, limits: Limits = Limits(),
                     repeat_key: Callable[[str, str], Hashable] = call_key) -> Result:
    """The async twin: the same loop, with `await` for the model and for async tools."""
    if isinstance(client, openai.OpenAI):
        raise TypeError("arun_agent needs an async client (openai.AsyncOpenAI, e.g. connect(..., asynchronous=True)); "
                        "with openai.OpenAI use run_agent(...).")
    check_execute(execute)
    loop = agent_loop(model, messages, tools=tools, limits=limits, repeat_key=repeat_key)
    outcome: Any = None
    while True:
        try:
            request = loop.send(outcome)
        except StopIteration as done:
            return done.value
        if isinstance(request, ModelRequest):
            try:
                outcome = await client.chat.completions.create(**request.params)
            except MODEL_ERRORS as e:
                outcome = e
        else:
            try:
                outcome = execute(request.name, request.arguments)
                if inspect.isawaitable(outcome):
                    outcome = await outcome
            except ApprovalFailed:  # a message for the person running the code, not for the model
                raise
            except Exception as e:
                outcome = e
