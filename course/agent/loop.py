"""The agent loop with limits: steps, a token budget, a clock, repeated calls, a controlled finish (lesson 2).

    result = run_agent(client, model, "Where is my latest order?", tools=toolbox.definitions(),
                       execute=toolbox.execute, limits=Limits(max_steps=5))
    result.show()

The loop's decisions live once, in `agent_loop`: a generator that never touches the
network. It *yields* what it needs done (`ModelRequest`: call the model; `ToolRequest`:
run a tool) and receives the outcome. `run_agent` (sync) and `arun_agent` (async) are
two small drivers that do the I/O, so both follow exactly the same rules.

Limits, and what is guaranteed:
- `max_steps`: at most this many model calls may use tools. When they are used up, one
  more call with `tool_choice="none"` writes the answer (the controlled finish), so a run
  makes at most `max_steps + 1` model calls.
- `max_tokens`: tokens are the sum of the responses' `usage.total_tokens`. Before each
  request the loop estimates its cost: the prompt at 4 characters per token (the JSON of
  messages and tools, the scripted model's own count) plus `reply_tokens` for the reply.
  A tool step is sent only if the budget also leaves room for one more request of the same
  size (the finish); the finish is sent only if it fits, otherwise the loop answers without
  the model. So a run stays within `max_tokens` as long as the estimate is not too low:
  exact for the scripted model when replies stay under `reply_tokens`; a real tokenizer can
  count more, and then a run can overshoot by that error (the loop stops as soon as it sees
  the budget used up). `reply_tokens` is only a guess: the loop does not send the API's
  `max_completion_tokens`, so nothing cuts a reply off at that size.
- `max_seconds`: checked between steps; a model call in progress is not interrupted (set the
  client's `timeout=` for that), and the finish call comes on top.

The finish does not trust the server: some ignore `tool_choice="none"` (Ollama does) and
call tools anyway, or send empty text. Then the loop writes the answer itself, so
`Result.messages` always ends in a way the API accepts when the conversation goes on.
With `tools=[]` the request leaves out `tools` and `tool_choice` (the API rejects an empty
list, and `tool_choice` without tools).

A call with the same tool and arguments as an earlier one (`repeat_key`, default `call_key`)
is not run; the model is told to change the arguments or answer. `repeat_key` must return
something hashable (the keys are kept in a set) and accept any text; otherwise the run stops
with an error that says so. A tool that raises becomes an error text for the model.

A model call that fails (after the SDK's own retries) ends the run with
`stop_reason="model_error"` and a readable `error`; so does an empty answer. The model's and
the network's faults never raise; wrong arguments do, with what to pass instead.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Callable, Generator, Hashable
from dataclasses import dataclass, field
from typing import Any, Union

import openai

from course.arguments import Unreadable, excerpt, load_json
from course.errors import ApprovalFailed
from course.agent.notes import APP_NOTE
from course.agent.tokens import estimate_tokens
from course.tools import Execute, as_text, unexpected_failure

STOP_REASONS = ("done", "max_steps", "max_tokens", "max_seconds", "model_error")


@dataclass(frozen=True)
class Limits:
    """How far one run may go. `reply_tokens` is what the budget keeps free for each reply.

    `reply_tokens` is an estimate, not a cap: to really cut replies short, the API's
    `max_completion_tokens` option would have to be sent, which this loop does not do.
    """

    max_steps: int = 8
    max_tokens: int = 20_000
    max_seconds: float | None = None
    reply_tokens: int = 400

    def __post_init__(self) -> None:
        if not isinstance(self.max_steps, int) or self.max_steps < 0:
            raise ValueError(f"max_steps must be a whole number >= 0, not {self.max_steps!r}.")
        if not isinstance(self.max_tokens, int) or self.max_tokens <= 0:
            raise ValueError(f"max_tokens must be a whole number > 0, not {self.max_tokens!r}.")
        if self.max_seconds is not None and not self.max_seconds > 0:
            raise ValueError(f"max_seconds must be > 0 seconds, or None for no clock; not {self.max_seconds!r}.")
        if not isinstance(self.reply_tokens, int) or self.reply_tokens < 0:
            raise ValueError(f"reply_tokens must be a whole number >= 0, not {self.reply_tokens!r}.")


@dataclass
class Step:
    """One answered model call and the tool calls it asked for (as `name(arguments)`)."""

    number: int
    tool_calls: list[str]
    tokens: int
    seconds: float
    forced: bool = False  # the controlled finish: tools were switched off for this call
    empty: bool = False  # the model sent neither text nor a tool call


@dataclass
class Result:
    answer: str
    stop_reason: str  # one of STOP_REASONS
    steps: int  # answered model calls, the finish included (a call that failed is not counted)
    tokens: int  # sum of the responses' usage.total_tokens
    trace: list[Step]
    # The whole conversation. It ends with `answer` as an assistant message (the model's, or the
    # loop's own when the model could not give one), so it can be continued; after a
    # "model_error" it ends before the call that failed instead, so that call can be retried.
    messages: list[dict]
    error: str | None = None  # what went wrong: a model call failed, or its answer was unusable
    seconds: float = 0.0

    def show(self) -> None:
        """Print the trace as a plain-text table, then how the run ended."""
        # Times go last and unpadded, so that notebooks/sanitize.cfg can replace them without
        # leaving a different number of spaces behind.
        rows = [(s, s.tool_calls or [("-> empty answer" if s.empty else "-> answer")
                                     + (" (tools off)" if s.forced else "")]) for s in self.trace]
        width = max([len("tool calls"), *(len(c) for _, calls in rows for c in calls)])
        print(f"{'step':>4}  {'tokens':>6}  {'tool calls':<{width}}  time")
        for s, calls in rows:
            print(f"{s.number:>4}  {s.tokens:>6}  {calls[0]:<{width}}  {s.seconds * 1000:.1f} ms")
            for more in calls[1:]:
                print(f"{'':>4}  {'':>6}  {more}")
        print(f"stop: {self.stop_reason} · {self.steps} model calls · {self.tokens} tokens · "
              f"{self.seconds * 1000:.1f} ms")
        if self.error:
            print(f"error: {self.error}")


# -- what the core asks its driver to do --------------------------------------------------
@dataclass(frozen=True)
class ModelRequest:
    """Call the model: `client.chat.completions.create(**params)`. Reply with the response or the APIError."""

    params: dict


@dataclass(frozen=True)
class ToolRequest:
    """Run one tool call: `execute(name, arguments)`. Reply with the text, or the exception it raised."""

    name: str
    arguments: str


Request = Union[ModelRequest, ToolRequest]


def call_key(name: str, arguments: str) -> Hashable:
    """When two calls count as the same: same tool, same JSON (key order and spacing ignored)."""
    try:
        return name, json.dumps(load_json(arguments), sort_keys=True, separators=(",", ":"))
    except Unreadable:  # not JSON, or beyond the parser's limits: the text itself is the key
        return name, arguments


def prompt_estimate(messages: list[dict], tools: list[dict]) -> int:
    """Tokens a request's prompt will cost: 4 characters per token of its JSON."""
    return estimate_tokens(json.dumps(messages) + json.dumps(tools))


def limit_reached(limits: Limits, *, tool_steps: int, tokens: int, elapsed: float, next_cost: int) -> str | None:
    """Before the next tool step: the limit that stops the run, or None to go on."""
    if tool_steps >= limits.max_steps:
        return "max_steps"
    if tokens + 2 * next_cost > limits.max_tokens:  # this step, and room for a finish as big
        return "max_tokens"
    if limits.max_seconds is not None and elapsed >= limits.max_seconds:
        return "max_seconds"
    return None


REPEAT_NOTE = ("Not run: you already called {name} with these arguments in this conversation, and the result "
               "is above. Change the arguments, or answer the user with what you have.")

FINISH_NOTE = (APP_NOTE + " {why}. Do not call any more tools. Answer the "
               "customer now with what you found so far, and say what you could not check.)")



def why_stopped(reason: str, limits: Limits) -> str:
    """The limit that stopped a run, in words (for the model's note and the loop's own answer)."""
    if reason == "max_steps":
        n = limits.max_steps
        return ("the assistant may not use tools here" if n == 0 else
                "the assistant has used the one tool step it is allowed" if n == 1 else
                f"the assistant has used all {n} tool steps it is allowed")
    if reason == "max_tokens":
        return f"the token budget ({limits.max_tokens} tokens) does not allow another step"
    return f"the time limit of {limits.max_seconds} seconds is reached"


def describe_error(error: BaseException) -> str:
    """A model error as one sentence that says what happened and what to do."""
    body = getattr(error, "body", None)
    detail = body.get("message") if isinstance(body, dict) and body.get("message") else getattr(error, "message", "")
    if isinstance(error, openai.APITimeoutError):
        return "the model did not answer in time (request timed out, after the SDK's retries). Try again later."
    if isinstance(error, openai.APIConnectionError):
        return (f"could not reach the model at {error.request.url} ({error.__cause__ or detail}). "
                "Is the server running and OPENAI_BASE_URL right?")
    if isinstance(error, openai.RateLimitError):
        return f"rate limited (HTTP 429: {detail}), even after the SDK's retries. Wait a little and run again."
    if isinstance(error, openai.InternalServerError):
        return f"the model's server failed (HTTP {error.status_code}: {detail}), even after retries. Try again later."
    if isinstance(error, openai.AuthenticationError):
        return f"the API key was refused (HTTP 401: {detail}). Check OPENAI_API_KEY."
    if isinstance(error, openai.BadRequestError):
        return f"the API rejected the request (HTTP 400: {detail}). Retrying will not help: fix the request."
    if isinstance(error, openai.APIStatusError):
        return f"the API answered HTTP {error.status_code}: {detail}"
    return f"{type(error).__name__}: {detail or error}"


def as_messages(messages: str | list[dict]) -> list[dict]:
    """A question becomes one user message; a list is copied (the caller's list is never changed)."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if not isinstance(messages, list) or not messages:
        raise TypeError("messages must be a question (str) or a non-empty list of message dicts, "
                        f"not {type(messages).__name__}.")
    out = [m.model_dump(exclude_none=True) if hasattr(m, "model_dump") else m for m in messages]
    for i, m in enumerate(out):
        if not isinstance(m, dict) or "role" not in m:
            raise TypeError(f"messages[{i}] must be a dict with a 'role', like "
                            f"{{'role': 'user', 'content': '...'}}; got {m!r}.")
    return [dict(m) for m in out]


def check_tools(tools: Any) -> list[dict]:
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise TypeError(f"tools must be a list of tool definitions (e.g. toolbox.definitions()), "
                        f"not {type(tools).__name__}.")
    return tools


def check_execute(execute: Any) -> None:
    if not callable(execute):
        raise TypeError(f"execute must be a function (name, arguments_json) -> text, e.g. toolbox.execute; "
                        f"got {type(execute).__name__}.")


# -- the core: every decision, no I/O -------------------------------------------------------
@dataclass
class Run:
    """What one run has gathered so far."""

    model: str
    tools: list[dict]
    limits: Limits
    messages: list[dict]
    repeat_key: Callable[[str, str], Hashable]
    clock: Callable[[], float]
    start: float = 0.0
    trace: list[Step] = field(default_factory=list)
    tokens: int = 0
    tool_steps: int = 0
    seen: set = field(default_factory=set)  # repeat keys of the calls that ran

    def request(self, **options: Any) -> ModelRequest:
        """The parameters of the next model call. Without tools, `tools` and `tool_choice` are left
        out: the API rejects an empty tools list, and tool_choice without tools."""
        params = {"model": self.model, "messages": list(self.messages)}
        return ModelRequest({**params, "tools": self.tools, **options} if self.tools else params)

    def record(self, response: Any, *, forced: bool = False) -> Step:
        """Count a response's tokens in a new step of the trace."""
        step = Step(len(self.trace) + 1, [], used_tokens(response, self.messages, self.tools), 0.0, forced)
        self.trace.append(step)
        self.tokens += step.tokens
        return step

    def result(self, answer: str, reason: str, error: str | None = None) -> Result:
        return Result(answer, reason, len(self.trace), self.tokens, self.trace, self.messages, error,
                      self.clock() - self.start)

    def answer_for_model(self, answer: str, reason: str, error: str | None = None) -> Result:
        """End with an answer the loop wrote itself; it joins the conversation as the assistant's."""
        self.messages.append({"role": "assistant", "content": answer})
        return self.result(answer, reason, error)


def agent_loop(model: str, messages: str | list[dict], *, tools: list[dict], limits: Limits = Limits(),
               repeat_key: Callable[[str, str], Hashable] = call_key,
               clock: Callable[[], float] = time.perf_counter) -> Generator[Request, Any, Result]:
    """The loop as a generator: yields requests, receives their outcomes, returns the Result."""
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a Limits(...), e.g. Limits(max_steps=5), not {type(limits).__name__}.")
    run = Run(model, check_tools(tools), limits, as_messages(messages), repeat_key, clock, clock())
    while True:
        stop = limit_reached(limits, tool_steps=run.tool_steps, tokens=run.tokens, elapsed=clock() - run.start,
                             next_cost=prompt_estimate(run.messages, run.tools) + limits.reply_tokens)
        if stop:
            return (yield from finish(run, stop))
        began = clock()
        response = yield run.request()
        if isinstance(response, BaseException):
            error = describe_error(response)
            return run.result(f"Sorry, I could not finish: {error}", "model_error", error)
        step = run.record(response)
        message = response.choices[0].message
        if not message.tool_calls:
            step.seconds = clock() - began
            if not message.content:  # nothing to show the customer: a fault of the model, not an answer
                step.empty, error = True, empty_answer(response)
                return run.result(f"Sorry, I could not finish: {error}", "model_error", error)
            run.messages.append(message.model_dump(exclude_none=True))
            return run.result(message.content, "done")
        run.messages.append(message.model_dump(exclude_none=True))
        run.tool_steps += 1
        yield from run_tool_calls(run, message.tool_calls, step)
        step.seconds = clock() - began
        if run.tokens >= limits.max_tokens:  # the estimate was too low (a real tokenizer): stop right here
            return run.answer_for_model(stopped_without_model("max_tokens", run), "max_tokens")


def run_tool_calls(run: Run, calls: list[Any], step: Step) -> Generator[ToolRequest, Any, None]:
    """One tool message per call; a call seen before in this run is not run again."""
    for call in calls:
        name, arguments = call.function.name, call.function.arguments
        key = checked_key(run.repeat_key, name, arguments)
        if key in run.seen:
            content = REPEAT_NOTE.format(name=name)
            step.tool_calls.append(f"{name}({excerpt(arguments)}) [repeat: not run]")
        else:
            run.seen.add(key)
            outcome = yield ToolRequest(name, arguments)
            content = unexpected_failure(name, outcome) if isinstance(outcome, BaseException) else as_text(outcome)
            step.tool_calls.append(f"{name}({excerpt(arguments)})")
        run.messages.append({"role": "tool", "tool_call_id": call.id, "content": content})


def finish(run: Run, reason: str) -> Generator[ModelRequest, Any, Result]:
    """The controlled finish: one last call, tools still listed but switched off."""
    note = FINISH_NOTE.format(why=why_stopped(reason, run.limits))
    cost = prompt_estimate(run.messages + [{"role": "user", "content": note}], run.tools) + run.limits.reply_tokens
    if run.tokens + cost > run.limits.max_tokens:  # not even the answer fits: answer without the model
        also = "" if reason == "max_tokens" else (f", and the token budget ({run.limits.max_tokens} tokens) "
                                                  "leaves no room for a final answer")
        return run.answer_for_model(stopped_without_model(reason, run, also), reason)
    run.messages.append({"role": "user", "content": note})
    began = run.clock()
    response = yield run.request(tool_choice="none")
    if isinstance(response, BaseException):
        error = describe_error(response)
        answer = stopped_without_model(reason, run) + f" (The final answer failed: {error})"
        return run.answer_for_model(answer, reason, error)
    step = run.record(response, forced=True)
    step.seconds = run.clock() - began
    message = response.choices[0].message
    if message.tool_calls or not message.content:
        # Some servers ignore tool_choice="none" (Ollama does). Keeping these calls would leave
        # the conversation with calls that have no tool message: the API rejects its next request.
        step.tool_calls = [f"{c.function.name}({excerpt(c.function.arguments)}) [not run: tools were off]"
                           for c in message.tool_calls or []]
        step.empty = not message.tool_calls
        error = ("the model asked for tools although they were switched off (tool_choice='none' ignored)"
                 if message.tool_calls else empty_answer(response))
        return run.answer_for_model(stopped_without_model(reason, run), reason, error)
    run.messages.append(message.model_dump(exclude_none=True))
    return run.result(message.content, reason)


def used_tokens(response: Any, messages: list[dict], tools: list[dict]) -> int:
    """usage.total_tokens; servers that send no usage get our estimate, so the budget still holds."""
    usage = getattr(response, "usage", None)
    if usage is not None and usage.total_tokens is not None:
        return usage.total_tokens
    message = response.choices[0].message
    return prompt_estimate(messages, tools) + estimate_tokens(message.model_dump_json(exclude_none=True))


def stopped_without_model(reason: str, run: Run, also: str = "") -> str:
    """The answer when the model cannot give one: say why, and what was tried."""
    calls = [c.split("(")[0] for s in run.trace for c in s.tool_calls if not c.endswith("[not run: tools were off]")]
    tried = f" Tools called so far: {', '.join(dict.fromkeys(calls))}." if calls else ""
    return f"I had to stop before I could answer: {why_stopped(reason, run.limits)}{also}.{tried}"


def empty_answer(response: Any) -> str:
    why = response.choices[0].finish_reason
    cut = " (cut off at the length limit)" if why == "length" else ""
    return f"the model sent an empty answer{cut}, finish_reason={why!r}. Try again, or ask differently."


def checked_key(repeat_key: Callable[[str, str], Hashable], name: str, arguments: str) -> Hashable:
    """repeat_key(name, arguments), or a TypeError that says what is wrong with it."""
    try:
        key = repeat_key(name, arguments)
    except Exception as e:
        raise ValueError(f"repeat_key failed for {name}({excerpt(arguments)}) with {type(e).__name__}: {e}. It must "
                         "accept any arguments text the model sends, even text that is not JSON.") from e
    try:
        hash(key)
    except TypeError:
        raise TypeError(f"repeat_key must return something hashable, like a tuple of strings (the loop keeps "
                        f"keys in a set); for {name}({excerpt(arguments)}) it returned {key!r}, which contains a "
                        f"{unhashable_part(key)}.") from None
    return key


def unhashable_part(value: Any) -> str:
    """The type name of the first unhashable thing inside a value: dict, list, set..."""
    for part in value if isinstance(value, tuple) else ():
        try:
            hash(part)
        except TypeError:
            return unhashable_part(part)
    return type(value).__name__


# -- the drivers: the only places that do I/O ------------------------------------------------
MODEL_ERRORS = (openai.APIError,)  # timeouts, connection errors, every HTTP error status


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
    """The async twin: the same core, with `await` for the model and for async tools."""
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
