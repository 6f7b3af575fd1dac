"""A scripted chat model that the real `openai` SDK talks to (lesson 1).

The SDK sends real HTTP requests; an `httpx2.MockTransport` hands them to a
`ScriptedModel` instead of the network, and the model answers in the wire format
of `POST /v1/chat/completions`. The SDK still serialises, retries, maps errors and
parses, so code that works here works against a real model.

A script is a list of turns, or a rule `rule(body) -> turn` that reads the request.
A turn is a `str` (the answer), `call(...)` or a list of calls (parallel calls),
`Fail(status)` or `Timeout()`.

Token estimate (documented, deterministic): one token per 4 characters, rounded up,
of the JSON of `messages` + `tools` (prompt) and of the answer or call arguments
(completion). Real tokenizers differ; budgets behave the same way.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

import httpx2
import openai

from course.agent.notes import APP_NOTE
from course.agent.tokens import estimate_tokens

CREATED = 1_767_225_600  # a fixed timestamp keeps responses identical run to run
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True)
class ToolCall:
    """One tool call the model makes. `arguments` is the raw JSON text, as on the wire."""

    name: str
    arguments: str
    hallucinated: bool = False  # True: call a tool that was not offered, as weak models do


def call(name: str, **arguments: Any) -> ToolCall:
    """A well-formed tool call: `call("get_order_status", order_id="A1001")`."""
    return ToolCall(name, json.dumps(arguments))


def raw_call(name: str, arguments: str, *, hallucinated: bool = False) -> ToolCall:
    """A tool call with arguments exactly as given, even if they are not valid JSON."""
    return ToolCall(name, arguments, hallucinated)


@dataclass(frozen=True)
class Fail:
    """An HTTP error from the API, e.g. `Fail(429)` (rate limited) or `Fail(500)`."""

    status: int = 429
    message: str = ""
    retry_after: float | None = 0.01  # seconds; sent as Retry-After headers


@dataclass(frozen=True)
class Timeout:
    """The request never gets an answer in time (raised as `httpx2.ReadTimeout`)."""

    seconds: float = 1.0  # only used when served over HTTP: how long to stall


Turn = Union[str, ToolCall, list[ToolCall], Fail, Timeout]
Rule = Callable[[dict], Turn]


class ScriptExhausted(AssertionError):
    """The model got more requests than its script has turns."""


class APIRejection(Exception):
    """A request the real API would reject with 400; becomes `openai.BadRequestError`."""

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.message, self.param = message, param


class ScriptedModel:
    """An OpenAI-compatible chat model that follows a script. Deterministic; records requests."""

    def __init__(self, script: Iterable[Turn] | Rule, *, name: str = "scripted-model"):
        self.name = name
        self._rule = script if callable(script) else None
        self._turns = [] if callable(script) else list(script)
        self.requests: list[dict] = []  # every request body received, in order
        self._lock = threading.Lock()

    # -- clients ---------------------------------------------------------------------
    def client(self, **options: Any) -> openai.OpenAI:
        """A real `openai.OpenAI` client whose HTTP requests reach this model."""
        http = httpx2.Client(transport=httpx2.MockTransport(self))
        return openai.OpenAI(api_key="sk-scripted", base_url="http://scripted.invalid/v1",
                             http_client=http, **options)

    def async_client(self, **options: Any) -> openai.AsyncOpenAI:
        http = httpx2.AsyncClient(transport=httpx2.MockTransport(self))
        return openai.AsyncOpenAI(api_key="sk-scripted", base_url="http://scripted.invalid/v1",
                                  http_client=http, **options)

    @property
    def turns_left(self) -> int | None:
        return None if self._rule else len(self._turns)

    # -- transport -------------------------------------------------------------------
    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
            return _error(404, f"The scripted model serves only POST /v1/chat/completions, "
                               f"not {request.method} {request.url.path}.", "not_found")
        try:
            body = json.loads(request.content or b"{}")
        except json.JSONDecodeError:
            return _error(400, "We could not parse the JSON body of your request.")
        turn = self.next_turn(body)
        if isinstance(turn, Timeout):
            raise _Stalled(turn.seconds, request)
        return self.respond(body, turn)

    def next_turn(self, body: dict) -> Turn:
        """Record the request and pick the turn that answers it."""
        with self._lock:
            self.requests.append(body)
            n = len(self.requests)
            if self._rule is not None:
                return self._rule(body)
            if not self._turns:
                raise ScriptExhausted(f"{self.name}: request {n} arrived but the script has no turns left "
                                      f"(it had {n - 1}). Add turns or use a rule.")
            return self._turns.pop(0)

    def respond(self, body: dict, turn: Turn) -> httpx2.Response:
        if isinstance(turn, Fail):
            headers = {}
            if turn.retry_after is not None:
                headers = {"retry-after-ms": str(int(turn.retry_after * 1000)),
                           "retry-after": str(math.ceil(turn.retry_after))}
            kind = {429: "rate_limit_exceeded", 401: "invalid_api_key"}.get(turn.status, "server_error")
            text = turn.message or {429: "Rate limit reached. Please try again later."}.get(
                turn.status, "The server had an error while processing your request.")
            return _error(turn.status, text, kind, headers=headers)
        try:
            validate_request(body)
            payload = self.completion(body, turn)
        except APIRejection as e:
            return _error(400, e.message, "invalid_request_error", param=e.param)
        return httpx2.Response(200, json=payload)

    def completion(self, body: dict, turn: Turn) -> dict:
        """The `chat.completion` object for a text or tool-call turn."""
        n = len(self.requests)
        calls = [turn] if isinstance(turn, ToolCall) else turn if isinstance(turn, list) else []
        if calls:
            check_calls(body, calls)
        content = turn if isinstance(turn, str) else None
        message = {"role": "assistant", "content": content, "refusal": None, "annotations": [],
                   "tool_calls": [{"id": f"call_{n}_{i}", "type": "function",
                                   "function": {"name": c.name, "arguments": c.arguments}}
                                  for i, c in enumerate(calls)] or None}
        prompt = estimate_tokens(json.dumps(body.get("messages", [])) + json.dumps(body.get("tools", [])))
        completion = estimate_tokens(content or "".join(c.name + c.arguments for c in calls))
        return {"id": f"chatcmpl-scripted-{n}", "object": "chat.completion", "created": CREATED,
                "model": body.get("model", self.name),
                "choices": [{"index": 0, "message": message, "logprobs": None,
                             "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                          "total_tokens": prompt + completion,
                          "prompt_tokens_details": {"cached_tokens": 0},
                          "completion_tokens_details": {"reasoning_tokens": 0}}}

    # -- serving over HTTP -------------------------------------------------------------
    @contextmanager
    def serve(self, port: int = 0) -> Iterator[str]:
        """Serve on 127.0.0.1 and yield the base URL (`http://127.0.0.1:<port>/v1`)."""
        server = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/v1"
        finally:
            server.shutdown()
            server.server_close()


# -- what the real API rejects --------------------------------------------------------
def validate_request(body: dict) -> None:
    """Raise `APIRejection` for request shapes the real Chat Completions API answers with 400."""
    if not body.get("model"):
        raise APIRejection("you must provide a model parameter", "model")
    if body.get("stream"):
        raise APIRejection("The scripted model does not stream; call create() without stream=True.", "stream")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise APIRejection("'messages' must be a non-empty array of messages.", "messages")
    if "tools" in body and not body["tools"]:
        raise APIRejection("Invalid 'tools': empty array. Expected an array with minimum length 1, but got "
                           "an empty array instead.", "tools")
    if "tool_choice" in body and not body.get("tools"):
        raise APIRejection("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
                           "specified.", "tool_choice")
    for i, tool in enumerate(body.get("tools") or []):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(fn, dict):
            raise APIRejection(f"Missing required parameter: 'tools[{i}].function'.", f"tools[{i}].function")
        if not TOOL_NAME.match(str(fn.get("name", ""))):
            raise APIRejection(f"Invalid 'tools[{i}].function.name': string does not match pattern. "
                               "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                               f"tools[{i}].function.name")
    pending: dict[str, int] = {}  # tool_call_id -> index of the assistant message awaiting it
    for i, m in enumerate(messages):
        role = m.get("role") if isinstance(m, dict) else None
        if role not in {"system", "developer", "user", "assistant", "tool"}:
            raise APIRejection(f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', "
                               "'user', 'tool', and 'developer'.", f"messages[{i}].role")
        if pending and role != "tool":
            raise APIRejection(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to "
                "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                + ", ".join(pending), f"messages.[{i}].role")
        if role == "assistant":
            pending = {tc["id"]: i for tc in m.get("tool_calls") or []}
        elif role == "tool":
            if m.get("tool_call_id") not in pending:
                raise APIRejection("Invalid parameter: messages with role 'tool' must be a response to a "
                                   "preceeding message with 'tool_calls'.", f"messages.[{i}].role")
            if not isinstance(m.get("content"), (str, list)):
                raise APIRejection(f"Invalid type for 'messages[{i}].content': expected one of a string or "
                                   "array of objects, but got " + type(m.get("content")).__name__ + " instead.",
                                   f"messages[{i}].content")
            del pending[m["tool_call_id"]]
    if pending:
        raise APIRejection(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            "'tool_call_id'. The following tool_call_ids did not have response messages: " + ", ".join(pending),
            "messages")


def check_calls(body: dict, calls: list[ToolCall]) -> None:
    """A script must not make calls the real API could never return."""
    offered = [t["function"]["name"] for t in body.get("tools") or []]
    if body.get("tool_choice") == "none" or not offered:
        why = "tool_choice='none'" if offered else "no tools"
        raise APIRejection(f"Scripted model: the script makes a tool call, but the request offered {why}, "
                           "so a real model could only answer in text.", "tool_choice")
    if len(calls) > 1 and body.get("parallel_tool_calls") is False:
        raise APIRejection("Scripted model: the script makes parallel calls, but the request set "
                           "parallel_tool_calls=False.", "parallel_tool_calls")
    for c in calls:
        if c.name not in offered and not c.hallucinated:
            raise APIRejection(f"Scripted model: the script calls '{c.name}', but the request offered only "
                               f"{offered}. Offer the tool, or mark the call hallucinated=True.", "tools")


# -- helpers for rules ------------------------------------------------------------------
def from_user(message: dict) -> bool:
    return message.get("role") == "user" and not str(message.get("content")).startswith(APP_NOTE)


def last_user_text(body: dict) -> str:
    """The text of the latest user message."""
    for m in reversed(body.get("messages", [])):
        if from_user(m):
            c = m.get("content")
            return c if isinstance(c, str) else " ".join(p.get("text", "") for p in c or [])
    return ""


def tool_calls_since_user(body: dict) -> list[tuple[str, dict, str]]:
    """(tool name, arguments, result text) for every answered call since the latest user message."""
    asked: dict[str, tuple[str, dict]] = {}
    out: list[tuple[str, dict, str]] = []
    for m in body.get("messages", []):
        if from_user(m):
            out = []
        for tc in m.get("tool_calls") or []:
            try:
                arguments = json.loads(tc["function"]["arguments"])
            except json.JSONDecodeError:
                arguments = {}
            asked[tc["id"]] = (tc["function"]["name"], arguments)
        if m.get("role") == "tool":
            name, arguments = asked.get(m.get("tool_call_id"), ("?", {}))
            out.append((name, arguments, str(m.get("content"))))
    return out


def tool_results(body: dict) -> list[tuple[str, str]]:
    """(tool name, result text) for every tool message since the latest user message."""
    return [(name, result) for name, _, result in tool_calls_since_user(body)]


def offered_tools(body: dict) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or [] if isinstance(t.get("function"), dict)]


# -- plumbing ---------------------------------------------------------------------------
class _Stalled(httpx2.ReadTimeout):
    def __init__(self, seconds: float, request: httpx2.Request):
        super().__init__("scripted timeout: no answer in time", request=request)
        self.seconds = seconds


def _error(status: int, message: str, kind: str = "invalid_request_error", *, param: str | None = None,
           headers: dict | None = None) -> httpx2.Response:
    body = {"error": {"message": message, "type": kind, "param": param, "code": kind if status != 400 else None}}
    return httpx2.Response(status, json=body, headers=headers or {})


def _handler_for(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (stdlib name)
            length = int(self.headers.get("content-length") or 0)
            request = httpx2.Request("POST", f"http://127.0.0.1{self.path}", content=self.rfile.read(length))
            try:
                response = model(request)
            except _Stalled as stall:  # a real client times out while we wait
                threading.Event().wait(stall.seconds)
                response = _error(504, "The scripted model timed out.", "timeout")
            data = response.content
            try:
                self.send_response(response.status_code)
                for key, value in response.headers.items():
                    if key.lower() not in {"content-length", "transfer-encoding"}:
                        self.send_header(key, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (a scripted timeout): nobody to answer

        def log_message(self, *args: Any) -> None:  # keep notebooks and test output quiet
            pass

    return Handler


def main(argv: list[str]) -> None:
    """`python -m course.scripted module:rule [port]`: serve a story until interrupted."""
    import importlib
    import sys

    from course.scripted import ScriptedModel  # not __main__'s copy: rules build course.scripted turns

    if not argv or ":" not in argv[0]:
        sys.exit("usage: python -m course.scripted course.stories.lesson1:order_status [port]")
    module, _, attr = argv[0].partition(":")
    rule = getattr(importlib.import_module(module), attr)
    with ScriptedModel(rule).serve(int(argv[1]) if len(argv) > 1 else 0) as url:
        print(f"Scripted model serving at {url}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
