"""The loop's decisions, in a generator that never touches the network (lesson 2).

`agent_loop` *yields* what it needs done (`ModelRequest`: call the model; `ToolRequest`: run
a tool) and receives the outcome. The drivers in `course.agent.drivers` do the I/O, so the
sync and async versions follow exactly the same rules.

The finish does not trust the server: some ignore `tool_choice="none"` (Ollama does) and
call tools anyway, or send empty text. Then the loop writes the answer itself, so
`Result.messages` always ends in a way the API accepts when the conversation goes on.
With `tools=[]` the request leaves out `tools` and `tool_choice` (the API rejects an empty
list, and `tool_choice` without tools). A tool that raises becomes an error text for the model.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Hashable
from dataclasses import dataclass, field
from typing import Any, Union

from course.agent.inputs import as_messages, check_limits, check_tools
from course.agent.limits import Limits, limit_reached, why_stopped
from course.agent.model_errors import describe_error, empty_answer
from course.agent.notes import FINISH_NOTE, REPEAT_NOTE
from course.agent.repeats import call_key, checked_key
from course.agent.result import Result, Step
from course.agent.tokens import prompt_estimate, used_tokens
from course.arguments import excerpt
from course.tools import as_text, unexpected_failure


# -- what the loop asks its driver to do ---------------------------------------------------
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


# -- the loop: every decision, no I/O --------------------------------------------------------
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

    def model_failed(self, error: str) -> Result:
        """End with "model_error": the conversation stops before the failed call, so it can be retried."""
        return self.result(f"Sorry, I could not finish: {error}", "model_error", error)


def agent_loop(model: str, messages: str | list[dict], *, tools: list[dict], limits: Limits = Limits(),
               repeat_key: Callable[[str, str], Hashable] = call_key,
               clock: Callable[[], float] = time.perf_counter) -> Generator[Request, Any, Result]:
    """The loop as a generator: yields requests, receives their outcomes, returns the Result."""
    run = Run(model, check_tools(tools), check_limits(limits), as_messages(messages), repeat_key, clock, clock())
    while True:
        stop = next_limit(run)
        if stop:
            return (yield from finish(run, stop))
        began = clock()
        response = yield run.request()
        if isinstance(response, BaseException):
            return run.model_failed(describe_error(response))
        step = run.record(response)
        message = response.choices[0].message
        if not message.tool_calls:
            step.seconds = clock() - began
            return answered(run, response, step)
        run.messages.append(message.model_dump(exclude_none=True))
        run.tool_steps += 1
        yield from run_tool_calls(run, message.tool_calls, step)
        step.seconds = clock() - began
        if run.tokens >= limits.max_tokens:  # the estimate was too low (a real tokenizer): stop right here
            return run.answer_for_model(stopped_without_model("max_tokens", run), "max_tokens")


def next_limit(run: Run) -> str | None:
    """The limit that stops the run before its next tool step (the step's cost estimated), or None."""
    cost = prompt_estimate(run.messages, run.tools) + run.limits.reply_tokens
    return limit_reached(run.limits, tool_steps=run.tool_steps, tokens=run.tokens,
                         elapsed=run.clock() - run.start, next_cost=cost)


def answered(run: Run, response: Any, step: Step) -> Result:
    """The model answered without tools: done, unless the answer is empty (the model's fault)."""
    message = response.choices[0].message
    if not message.content:  # nothing to show the customer: a fault of the model, not an answer
        step.empty = True
        return run.model_failed(empty_answer(response))
    run.messages.append(message.model_dump(exclude_none=True))
    return run.result(message.content, "done")


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


# -- the controlled finish -------------------------------------------------------------------
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
    return finished(run, response, step, reason)


def finished(run: Run, response: Any, step: Step, reason: str) -> Result:
    """The finish's answer; the loop writes its own when the model still called tools or sent nothing."""
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


def stopped_without_model(reason: str, run: Run, also: str = "") -> str:
    """The answer when the model cannot give one: say why, and what was tried."""
    calls = [c.split("(")[0] for s in run.trace for c in s.tool_calls if not c.endswith("[not run: tools were off]")]
    tried = f" Tools called so far: {', '.join(dict.fromkeys(calls))}." if calls else ""
    return f"I had to stop before I could answer: {why_stopped(reason, run.limits)}{also}.{tried}"
