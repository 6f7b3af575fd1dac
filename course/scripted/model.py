"""The scripted model: an OpenAI-compatible API that follows a script (lesson 1; the Responses API in lesson 7).

The SDK sends real HTTP requests; an `httpx2.MockTransport` hands them to a
`ScriptedModel` instead of the network, and the model answers in the wire format of
`POST /v1/chat/completions` or `POST /v1/responses`. The SDK still serialises, retries,
maps errors and parses, so code that works here works against a real model. Every request
and answer is checked against OpenAI's published schema (`schema.py`).
"""

from __future__ import annotations

import json
import threading
import typing
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx2
import openai
from openai.types.shared import ChatModel, ResponsesModel

from course.scripted import chat_answers, chat_checks, responses_api, schema
from course.scripted.rejections import APIRejection, error_body, error_response, failure
from course.scripted.turns import Fail, OffSpecAnswer, Rule, ScriptExhausted, Timeout, ToolCall, Turn, calls_of

# The model ids the SDK knows (its own `ChatModel` and Responses-only literals); besides them the
# scripted model answers to its own name and to the course's model id (COURSE_MODEL).
KNOWN_MODELS = frozenset(typing.get_args(ChatModel)) | {
    m for part in typing.get_args(ResponsesModel) for m in typing.get_args(part)}


class ScriptedModel:
    """An OpenAI-compatible model that follows a script. Deterministic; records requests."""

    def __init__(self, script: Iterable[Turn] | Rule, *, name: str = "scripted-model",
                 models: Iterable[str] | None = None):
        self.name = name
        self._rule = script if callable(script) else None
        self._turns = [] if callable(script) else list(script)
        from course.backend import MODEL, model_id  # late: backend builds on this module

        extra = {name, MODEL, model_id()}
        self.models = frozenset(models) if models is not None else KNOWN_MODELS | extra
        self.requests: list[dict] = []  # every request body received, in order
        self.exchanges: list[dict] = []  # {"endpoint", "request", "status", "answer"}, each schema-checked
        self._pending: list[ToolCall] = []  # parallel calls still to serve one per turn
        self._awaiting: str | None = None  # the call id whose result releases the next pending call
        self._conversations: dict[str, list[dict]] = {}  # response id -> conversation (previous_response_id)
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
        path = request.url.path
        endpoint = "chat" if path.endswith("/chat/completions") else "responses" if path.endswith("/responses") \
            else None
        if request.method != "POST" or endpoint is None:
            return httpx2.Response(404, json=error_body(
                f"Invalid URL ({request.method} {path}): the scripted model serves POST /v1/chat/completions "
                "and POST /v1/responses."))
        try:
            body = json.loads(request.content or b"{}")
        except json.JSONDecodeError:
            return httpx2.Response(400, json=error_body("We could not parse the JSON body of your request."))
        try:
            response = self.chat(body) if endpoint == "chat" else self.responses(body)
        except Stalled as stall:
            raise ReadStall(stall.seconds, request) from None
        self.check(endpoint, body, response)
        return response

    def chat(self, body: dict) -> httpx2.Response:
        turn = self.next_turn(body)
        if isinstance(turn, Fail):
            return failure(turn)
        try:
            chat_checks.validate_request(body, self.models)
            follows_schema("chat", body)
            self._raise_timeout(turn)
            answer = self.answer(body, turn)
        except APIRejection as e:
            return error_response(e)
        n, model = len(self.requests), body["model"]
        if body.get("stream"):
            return chat_answers.event_stream(chat_answers.chunks(body, answer, n, model))
        return httpx2.Response(200, json=chat_answers.completion(body, answer, n, model))

    def responses(self, body: dict) -> httpx2.Response:
        try:
            responses_api.validate(body, self._conversations)
            follows_schema("responses", body)
            chat = responses_api.as_chat(body, self._conversations)
        except APIRejection as e:
            self.next_turn(body)
            return error_response(e)
        turn = self.next_turn(body, chat)
        if isinstance(turn, Fail):
            return failure(turn)
        try:
            chat_checks.validate_request(chat, self.models)
            self._raise_timeout(turn)
            answer = self.answer(chat, turn)
        except APIRejection as e:
            return error_response(e)
        n = len(self.requests)
        if body.get("store", True):
            self._conversations[f"resp_scripted_{n}"] = responses_api.remembered(chat, answer, n)
        if body.get("stream"):
            return chat_answers.event_stream(responses_api.events(body, answer, n, body["model"]), named=True)
        return httpx2.Response(200, json=responses_api.response(body, answer, n, body["model"]))

    def next_turn(self, body: dict, view: dict | None = None) -> Turn:
        """Record the request and pick the turn that answers it. `view`: the chat body that rules read."""
        view = body if view is None else view
        with self._lock:
            self.requests.append(body)
            n = len(self.requests)
            last = (view.get("messages") or [{}])[-1]
            if self._pending and isinstance(last, dict) and last.get("tool_call_id") == self._awaiting:
                return self._pending.pop(0)
            self._pending = []
            if self._rule is not None:
                return self._rule(view)
            if not self._turns:
                raise ScriptExhausted(f"{self.name}: request {n} arrived but the script has no turns left "
                                      f"(it had {n - 1}). Add turns or use a rule.")
            return self._turns.pop(0)

    def answer(self, body: dict, turn: Turn) -> chat_answers.Answer:
        """The turn as the API would answer this request, or a script error if it never could."""
        calls = calls_of(turn)
        if calls:
            chat_checks.check_calls(body, calls)
            if len(calls) > 1 and (body.get("parallel_tool_calls") is False or chat_checks.forced_tool(body)):
                # One call per turn: the rest wait for this one's result (see next_turn).
                calls, self._pending = calls[:1], calls[1:]
                self._awaiting = chat_answers.call_id(len(self.requests), 0)
        else:
            chat_checks.check_text(body)
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        return chat_answers.fit(body, turn if isinstance(turn, str) else None, calls,
                                chat_answers.prompt_tokens(body), limit, bool(chat_checks.forced_tool(body)))

    @staticmethod
    def _raise_timeout(turn: Turn) -> None:
        if isinstance(turn, Timeout):
            raise Stalled(turn.seconds)

    def check(self, endpoint: str, body: dict, response: httpx2.Response) -> None:
        """Record the exchange; an answer the published schema forbids is a bug here, so it raises."""
        stream = response.headers.get("content-type", "").startswith("text/event-stream")
        answers = [json.loads(line[6:]) for line in response.text.splitlines()
                   if line.startswith("data: {")] if stream else [response.json()]
        what = "error" if response.status_code >= 400 else "chunk" if stream else "answer"
        for a in answers:
            problems = schema.problems(endpoint, what, a)
            if problems:
                raise OffSpecAnswer(f"{self.name} would send an answer OpenAI's schema forbids: {problems[0]}")
        self.exchanges.append({"endpoint": endpoint, "request": body, "status": response.status_code,
                               "answer": answers if stream else answers[0]})

    # -- serving over HTTP -------------------------------------------------------------
    @contextmanager
    def serve(self, port: int = 0) -> Iterator[str]:
        """Serve on 127.0.0.1 and yield the base URL (`http://127.0.0.1:<port>/v1`)."""
        from course.scripted.serve import server_for

        server = server_for(self, port)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/v1"
        finally:
            server.shutdown()
            server.server_close()


def follows_schema(endpoint: str, body: dict) -> None:
    """What the specific checks let through must still match the published request schema."""
    if endpoint == "responses" and body.get("tools"):
        # The spec marks a function tool's `strict` required (the object the response echoes shares
        # the schema), yet its own createResponse example leaves it out and the API accepts that.
        body = {**body, "tools": [{"strict": None, **t} if isinstance(t, dict) and t.get("type") == "function"
                                  else t for t in body["tools"]]}
    problems = schema.problems(endpoint, "request", body)
    if problems:
        raise APIRejection(f"Invalid request: {problems[0].removeprefix('data.')} (OpenAI's published schema)")


class Stalled(Exception):
    """Raised inside the model for a `Timeout()` turn; the transport turns it into a read timeout."""

    def __init__(self, seconds: float):
        super().__init__(seconds)
        self.seconds = seconds


class ReadStall(httpx2.ReadTimeout):
    """What the SDK sees for a `Timeout()` turn; served over HTTP, the server stalls instead."""

    def __init__(self, seconds: float, request: httpx2.Request):
        super().__init__("scripted timeout: no answer in time", request=request)
        self.seconds = seconds
