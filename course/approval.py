"""A human approves or rejects risky calls, between the agent loop and the tools (lesson 4).

    approve = choose_approver(scripted=[True, False])
    execute = guarded(toolbox.execute, policy=policy, approver=approve, log=log)
    result = await arun_agent(client, model, messages, tools=..., execute=execute)

An approver is any `async def approver(request: ApprovalRequest) -> bool`. Three come with
the course, one interface:

- `WidgetApprover`: Approve / Reject buttons in JupyterLab, awaited inside the running cell
  (needs ipykernel 7.4+); nobody clicks within `timeout` seconds -> rejected.
- `TerminalApprover`: asks on the keyboard; keys typed before the question are discarded.
- `ScriptedApprover`: answers written in the notebook, for tests and CI; fails loudly when
  they run out.

`choose_approver` picks one from the environment: `COURSE_APPROVER=widget|scripted|terminal|yes|no`
wins; otherwise `CI` means scripted, a Jupyter kernel means buttons, a terminal means `input()`.

When the approval step itself breaks (an approver crashes or answers something other than
True/False, a rule crashes, scripted answers run out), `guarded` logs an "error" and raises
`ApprovalFailed`: the run stops with a message for *you*, instead of the model reading it.
"""

from __future__ import annotations

import asyncio
import html
import inspect
import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from course.arguments import parse_arguments
from course.errors import ApprovalFailed, ApprovalsExhausted, ApprovalTimeout, BadArguments, RuleError
from course.permissions import DecisionLog, Policy
from course.tools import Execute, Tool, Toolbox, as_text, explain_validation

DEFAULT_TIMEOUT = 300.0  # seconds a prompt waits for a human before it rejects

# What the model reads instead of a tool result. They say what happened and what not to do next.
REJECTED = "{tool} was not run: the user rejected this action; do not retry without a new request."
TIMED_OUT = ("{tool} was not run: nobody approved this action in time, so it counts as rejected; "
             "do not retry without a new request.")
NOT_OFFERED = ("Error: the tool {tool} is not available here. Do not call it again; "
               "answer with the tools you have, or tell the user you cannot do this.")
# No rule name here: the model needs to know it must stop, not how the policy is built.
DENIED = "{tool} was not run: this action is not permitted here. Do not retry; tell the user."


@dataclass
class ApprovalRequest:
    """What a human is asked to approve: one tool call."""

    tool: str
    arguments: dict
    risk: str
    reason: str = ""  # why we ask, e.g. "risk: write" or "rule refund_limit"

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"{self.tool}({args})"

    def html(self) -> str:
        rows = "".join(f"<tr><td><code>{html.escape(str(k))}</code></td><td>{html.escape(as_text(v))}</td></tr>"
                       for k, v in self.arguments.items())
        why = f" · asked because of {html.escape(self.reason)}" if self.reason else ""
        return (f"<b>The assistant wants to run <code>{html.escape(self.tool)}</code></b> "
                f"({html.escape(self.risk)} tool{why})<table>{rows}</table>")


class Approver(Protocol):
    async def __call__(self, request: ApprovalRequest) -> bool: ...


# -- approvers ----------------------------------------------------------------------------------
@dataclass
class ScriptedApprover:
    """Answers given in advance, in order; prints each decision. For tests, CI and `make test`."""

    answers: list[bool]
    asked: list[tuple[ApprovalRequest, bool]] = field(default_factory=list)
    who = "scripted answer"

    def __post_init__(self) -> None:
        self.answers = list(self.answers)
        bad = [a for a in self.answers if not isinstance(a, bool)]
        if bad:
            raise TypeError(f"scripted answers must be True (approve) or False (reject), got {bad!r}.")

    async def __call__(self, request: ApprovalRequest) -> bool:
        n = len(self.asked) + 1
        if not self.answers:
            raise ApprovalsExhausted(
                f"Scripted approver: approval {n} was requested for {request}, but only {n - 1} scripted "
                f"answer(s) were given. Each answer is used once: if you are running a cell again, re-run "
                f"the choose_approver cell first. Otherwise add an answer, e.g. "
                f"choose_approver(scripted=[..., False]), or run the notebook in JupyterLab with "
                f"COURSE_APPROVER=widget to click Approve/Reject yourself.")
        answer = self.answers.pop(0)
        self.asked.append((request, answer))
        print(f"[scripted approver] {'approved' if answer else 'rejected'}: {request}")
        return answer


@dataclass
class AutoApprover:
    """Always the same answer (`COURSE_APPROVER=yes` or `no`); the decision log still records each call."""

    answer: bool

    @property
    def who(self) -> str:
        return f"COURSE_APPROVER={'yes' if self.answer else 'no'}"

    async def __call__(self, request: ApprovalRequest) -> bool:
        return self.answer


@dataclass
class TerminalApprover:
    """Asks on the keyboard. Only "y" or "yes" approves; anything else, or no input, rejects.

    Keys typed before the question appears are thrown away, so typing ahead never approves a
    question you have not read. The timeout works when the process reads its own terminal or
    pipe (Linux, macOS): the question is read with the event loop, and nothing keeps reading
    after a timeout. Elsewhere (Windows, a notebook kernel) `input()` runs in a thread, which
    cannot be stopped, so there the question waits without a timeout.
    """

    timeout: float | None = None
    who = "human (terminal)"

    async def __call__(self, request: ApprovalRequest) -> bool:
        prompt = f"\nThe assistant wants to run {request} [{request.risk}]. Approve? [y/N] "
        fd = _stdin_fd()
        if fd is not None:
            _discard_typed_ahead(fd)
            print(prompt, end="", flush=True)
            try:
                answer = await _read_line(fd, self.timeout)
            except NotImplementedError:  # this event loop cannot watch stdin: ask with input() below
                prompt = ""
            else:
                if not os.isatty(fd):
                    print()  # nobody pressed Enter on this screen: end the question's line
                return answer is not None and answer.strip().lower() in {"y", "yes"}
        try:
            # input() blocks, so it runs in a thread and the event loop keeps going.
            answer = await asyncio.to_thread(input, prompt)
        except EOFError:  # no keyboard (stdin closed): nobody can approve
            return False
        except Exception as e:
            if type(e).__name__ == "StdinNotImplementedError":  # a kernel whose front end cannot type
                raise RuntimeError("this notebook cannot read the keyboard (input() is not supported here), so "
                                   "COURSE_APPROVER=terminal cannot ask. Use COURSE_APPROVER=widget in JupyterLab, "
                                   "or scripted answers.") from None
            raise
        return answer.strip().lower() in {"y", "yes"}


def _stdin_fd() -> int | None:
    """The file descriptor to read answers from, or None where input() must be used instead."""
    if in_kernel() or sys.stdin is None:
        return None  # a kernel's input() asks the notebook front end, not the process's stdin
    try:
        return sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):  # replaced stdin (pytest, IDEs) has no real file
        return None


def _discard_typed_ahead(fd: int) -> None:
    try:
        import termios

        if os.isatty(fd):
            termios.tcflush(fd, termios.TCIFLUSH)
    except (ImportError, OSError):  # no termios on Windows; nothing to discard on a pipe
        pass


async def _read_line(fd: int, timeout: float | None) -> str | None:
    """One line from `fd` without a thread, so a timeout leaves nothing reading; None at end of input."""
    loop = asyncio.get_running_loop()
    line: asyncio.Future[str | None] = loop.create_future()
    got = bytearray()

    def readable() -> None:
        try:
            byte = os.read(fd, 1)  # one byte at a time: never take the next answer's line
        except OSError:
            byte = b""  # the terminal went away: nobody can approve
        if line.done():
            return
        if not byte:
            line.set_result(None)
        elif byte == b"\n":
            line.set_result(got.decode(errors="replace"))
        else:
            got.extend(byte)

    try:
        loop.add_reader(fd, readable)
    except (NotImplementedError, OSError, ValueError) as e:  # Windows loops; a regular file as stdin
        raise NotImplementedError(str(e)) from None
    try:
        return await asyncio.wait_for(line, timeout)
    except TimeoutError:
        print()
        raise ApprovalTimeout(f"no answer within {timeout:.0f} s") from None
    finally:
        loop.remove_reader(fd)


@dataclass
class WidgetApprover:
    """Approve / Reject buttons in JupyterLab, awaited inside the running cell.

    Needs ipykernel 7.4+: older kernels cannot deliver a button click while a cell is
    running, so the cell would hang. The timeout turns a forgotten prompt into a rejection.
    """

    timeout: float = DEFAULT_TIMEOUT
    who = "human (buttons)"

    async def __call__(self, request: ApprovalRequest) -> bool:
        import ipywidgets as w
        from IPython.display import display

        require_ipykernel_74()
        loop = asyncio.get_running_loop()
        choice: asyncio.Future[bool] = loop.create_future()

        def answer(value: bool) -> Callable[[Any], None]:
            # A click may arrive on another thread; hand it to the loop that awaits it.
            return lambda _button: loop.call_soon_threadsafe(lambda: choice.done() or choice.set_result(value))

        ok = w.Button(description="Approve", button_style="success", icon="check")
        no = w.Button(description="Reject", button_style="danger", icon="times")
        ok.on_click(answer(True))
        no.on_click(answer(False))
        status = w.HTML(f"Waiting for your decision (rejected automatically after {self.timeout:.0f} s)…")
        display(w.VBox([w.HTML(request.html()), w.HBox([ok, no]), status]))
        try:
            approved = await asyncio.wait_for(choice, self.timeout)
        except TimeoutError:
            status.value = "Decision: <b>timed out</b> (counts as rejected)"
            raise ApprovalTimeout(f"no click within {self.timeout:.0f} s") from None
        finally:
            ok.disabled = no.disabled = True  # one decision per prompt
        status.value = f"Decision: <b>{'approved' if approved else 'rejected'}</b>"
        return approved


def require_ipykernel_74() -> None:
    try:
        import ipykernel
    except ImportError:  # not in a Jupyter kernel at all
        return
    major, minor = (int(p) for p in ipykernel.__version__.split(".")[:2])
    if (major, minor) < (7, 4):
        raise RuntimeError(
            f"Approve/Reject buttons need ipykernel 7.4 or newer (this kernel has {ipykernel.__version__}): "
            "older kernels cannot handle a click while the cell runs, so it would hang. Run `make setup` "
            "and pick the kernel 'Python (course)', or set COURSE_APPROVER=terminal or scripted.")


# -- choosing one -------------------------------------------------------------------------------
APPROVERS = ("widget", "scripted", "terminal", "yes", "no")


def choose_approver(scripted: Iterable[bool] = (), *, timeout: float = DEFAULT_TIMEOUT) -> Approver:
    """The approver for where this code runs.

    `COURSE_APPROVER` (widget, scripted, terminal, yes, no) overrides; otherwise `CI` or
    `COURSE_HEADLESS` -> the `scripted` answers; a Jupyter kernel -> buttons; a terminal ->
    `input()`; anything else -> the scripted answers.
    """
    choice = os.environ.get("COURSE_APPROVER", "").strip().lower()
    if choice and choice not in APPROVERS:
        raise ValueError(f"COURSE_APPROVER={choice!r} is not an approver; use one of {', '.join(APPROVERS)}, "
                         "or unset it to choose automatically.")
    if not choice:
        if _flag("CI") or _flag("COURSE_HEADLESS"):
            choice = "scripted"
        elif in_kernel():
            choice = "widget"
        elif sys.stdin is not None and sys.stdin.isatty():
            choice = "terminal"
        else:
            choice = "scripted"
    if choice == "widget":
        return WidgetApprover(timeout)
    if choice == "terminal":
        return TerminalApprover(timeout)
    if choice in ("yes", "no"):
        return AutoApprover(choice == "yes")
    return ScriptedApprover(list(scripted))


def in_kernel() -> bool:
    """True inside a Jupyter kernel (a notebook), False in a plain Python process."""
    if "IPython" not in sys.modules:
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


# -- the approval step --------------------------------------------------------------------------
def guarded(execute: Execute, *, policy: Policy, approver: Approver,
            log: DecisionLog | None = None,
            tools: Toolbox | Iterable[Tool] | dict[str, Tool] | None = None) -> Callable[[str, str], Awaitable[str]]:
    """Wrap `execute(name, arguments_json)` so every call passes the policy (and a human) first.

    Denied, rejected and timed-out calls never reach `execute`; the model gets a message
    instead. Every decision goes to `log`. One question at a time: calls the model makes in
    parallel are asked about one after the other.

    Arguments are checked before anyone is asked, with the tool's Pydantic model, so a human
    never approves a call that cannot run, and sees the values that will run ("20" -> 20.0).
    That needs the tools: `tools=`, or found by itself when `execute` is `toolbox.execute`.
    A broken approver or rule raises `ApprovalFailed` (see the module's docstring).
    """
    log = log if log is not None else DecisionLog()
    one_at_a_time = asyncio.Lock()
    params_of = _params_lookup(execute, tools)

    async def run(name: str, arguments_json: str) -> str:
        params = params_of(name)
        try:
            arguments = parse_arguments(name, arguments_json, schema=params and params.model_json_schema())
        except BadArguments as e:
            log.record(name, {"raw": e.raw}, "denied", "unreadable arguments")
            return str(e)

        if params is not None and policy.allowed(name):
            try:
                arguments = params.model_validate(arguments).model_dump(mode="json", by_alias=True)
            except ValidationError as e:
                log.record(name, arguments, "denied", "invalid arguments")
                return explain_validation(name, e)
            arguments_json = json.dumps(arguments, ensure_ascii=False)  # run what was judged and shown

        try:
            verdict = policy.judge(name, arguments)
        except Exception as e:
            log.record(name, arguments, "error", f"rule {e.rule}" if isinstance(e, RuleError) else "policy")
            raise ApprovalFailed(f"The policy could not decide about {name}: {e} Nothing was run.") from e
        if verdict.decision == "deny":
            log.record(name, arguments, "denied", verdict.decided_by)
            return (DENIED if policy.allowed(name) else NOT_OFFERED).format(tool=name)
        if verdict.decision == "ask":
            request = ApprovalRequest(name, arguments, policy.risk(name), verdict.decided_by)
            who, why = _who(approver), verdict.decided_by
            async with one_at_a_time:
                try:
                    approved = await approver(request)
                except TimeoutError:
                    log.record(name, arguments, "timed out", who, why)
                    return TIMED_OUT.format(tool=name)
                except ApprovalFailed:
                    log.record(name, arguments, "error", who, why)
                    raise
                except Exception as e:
                    log.record(name, arguments, "error", who, why)
                    raise ApprovalFailed(f"The approver {who} failed while asking about {request}: "
                                         f"{type(e).__name__}: {e} Nothing was run.") from e
                except BaseException:  # interrupted (the cell was stopped, the task cancelled)
                    log.record(name, arguments, "interrupted", who, why)
                    raise
            if not isinstance(approved, bool):
                log.record(name, arguments, "error", who, why)
                raise ApprovalFailed(f"The approver {who} returned {approved!r} for {request}; an approver "
                                     "returns True (approve) or False (reject). Nothing was run.")
            log.record(name, arguments, "approved" if approved else "rejected", who, why)
            if not approved:
                return REJECTED.format(tool=name)
        else:
            log.record(name, arguments, "allowed", verdict.decided_by)
        result = execute(name, arguments_json)
        return await result if inspect.isawaitable(result) else result

    run.log = log  # type: ignore[attr-defined]  # so a notebook can reach the log from the wrapper
    return run


def _params_lookup(execute: Execute, tools: Toolbox | Iterable[Tool] | dict[str, Tool] | None
                   ) -> Callable[[str], type[BaseModel] | None]:
    """name -> the tool's Pydantic model, looked up at call time; None for a tool we do not know."""
    if tools is None:
        owner = getattr(execute, "__self__", None)  # `toolbox.execute` knows its toolbox
        tools = owner if isinstance(owner, Toolbox) else ()
    if isinstance(tools, Toolbox):
        box = tools
        return lambda name: getattr(box.tools.get(name), "params", None)
    table = {t.name: t.params for t in (tools.values() if isinstance(tools, dict) else tools)}
    return table.get


def _who(approver: Approver) -> str:
    return getattr(approver, "who", None) or getattr(approver, "__name__", type(approver).__name__)
