"""The approval step: every call passes the policy, and a human when the policy asks (lesson 4)."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel, ValidationError

from course.approval.request import ApprovalRequest, Approver
from course.arguments import parse_arguments
from course.errors import ApprovalFailed, ApprovalInterrupted, BadArguments, RuleError
from course.permissions import DecisionLog, Policy, Ruling
from course.tools import Execute, Tool, Toolbox, explain_validation

# What the model reads instead of a tool result. They say what happened and what not to do next.
REJECTED = "{tool} was not run: the user rejected this action; do not retry without a new request."
TIMED_OUT = ("{tool} was not run: nobody approved this action in time, so it counts as rejected; "
             "do not retry without a new request.")
NOT_OFFERED = ("Error: the tool {tool} is not available here. Do not call it again; "
               "answer with the tools you have, or tell the user you cannot do this.")
# No rule name here: the model needs to know it must stop, not how the policy is built.
DENIED = "{tool} was not run: this action is not permitted here. Do not retry; tell the user."


def guarded(execute: Execute, *, policy: Policy, approver: Approver,
            log: DecisionLog | None = None,
            tools: Toolbox | Iterable[Tool] | dict[str, Tool] | None = None) -> Guarded:
    """Wrap `execute(name, arguments_json)` so every call passes the policy (and a human) first.

    Denied, rejected and timed-out calls never reach `execute`; the model gets a message
    instead. Every decision goes to `log`. Arguments are checked with the tool's Pydantic
    model before anyone is asked; that needs the tools: `tools=`, or found by itself when
    `execute` is `toolbox.execute`. A broken approver or rule raises `ApprovalFailed`.
    """
    return Guarded(execute, policy, approver, log if log is not None else DecisionLog(),
                   _params_lookup(execute, tools))


@dataclass
class Guarded:
    """`execute`, behind the policy and the approver. Call it like `execute`; `.log` has every decision."""

    execute: Execute
    policy: Policy
    approver: Approver
    log: DecisionLog
    params_of: Callable[[str], type[BaseModel] | None]
    one_at_a_time: asyncio.Lock = field(default_factory=asyncio.Lock)  # parallel calls: one question at a time

    async def __call__(self, name: str, arguments_json: str) -> str:
        arguments = self.checked(name, arguments_json)
        if isinstance(arguments, str):
            return arguments  # the model's arguments were refused; the message says why
        verdict = self.judge(name, arguments)
        if verdict.decision == "deny":
            self.log.record(name, arguments, "denied", verdict.decided_by)
            return (DENIED if self.policy.allowed(name) else NOT_OFFERED).format(tool=name)
        if verdict.decision == "ask":
            refusal = await self.ask(name, arguments, verdict.decided_by)
            if refusal:
                return refusal
        else:
            self.log.record(name, arguments, "allowed", verdict.decided_by)
        # Run what was judged and shown ("20" became 20.0), not the text the model sent.
        result = self.execute(name, json.dumps(arguments, ensure_ascii=False))
        return await result if inspect.isawaitable(result) else result

    def checked(self, name: str, arguments_json: str) -> dict | str:
        """The arguments as the tool will get them, or a message for the model saying what to fix."""
        params = self.params_of(name)
        try:
            arguments = parse_arguments(name, arguments_json, schema=params.model_json_schema() if params else None)
        except BadArguments as e:
            self.log.record(name, {"raw": e.raw}, "denied", "unreadable arguments")
            return str(e)

        if params is not None and self.policy.allowed(name):
            try:
                arguments = params.model_validate(arguments).model_dump(mode="json", by_alias=True)
            except ValidationError as e:
                self.log.record(name, arguments, "denied", "invalid arguments")
                return explain_validation(name, e)
        return arguments

    def judge(self, name: str, arguments: dict) -> Ruling:
        """The policy's verdict; a rule that crashes stops the run instead of deciding."""
        try:
            return self.policy.judge(name, arguments)
        except Exception as e:
            self.log.record(name, arguments, "error", f"rule {e.rule}" if isinstance(e, RuleError) else "policy")
            raise ApprovalFailed(f"The policy could not decide about {name}: {e} Nothing was run.") from e

    async def ask(self, name: str, arguments: dict, why: str) -> str | None:
        """Ask the approver; None if approved, else the message for the model. Every outcome is logged."""
        request = ApprovalRequest(name, arguments, self.policy.risk(name), why)
        async with self.one_at_a_time:
            approved = await self.answer(request)
        self.log.record(name, arguments, decision(approved), _who(self.approver), why)
        if approved is None:
            return TIMED_OUT.format(tool=name)
        return None if approved else REJECTED.format(tool=name)

    async def answer(self, request: ApprovalRequest) -> bool | None:
        """The approver's True or False; None when nobody answered in time. Anything else stops the run."""
        who = _who(self.approver)
        try:
            approved = await self.approver(request)
        except TimeoutError:
            return None
        except BaseException as e:  # a broken approver, or the wait was interrupted
            self.log.record(request.tool, request.arguments, _outcome(e), who, request.reason)
            if isinstance(e, Exception) and not isinstance(e, ApprovalFailed):  # ours already says what to do
                raise ApprovalFailed(f"The approver {who} failed while asking about {request}: "
                                     f"{type(e).__name__}: {e} Nothing was run.") from e
            raise
        if not isinstance(approved, bool):
            self.log.record(request.tool, request.arguments, "error", who, request.reason)
            raise ApprovalFailed(f"The approver {who} returned {approved!r} for {request}; an approver "
                                 "returns True (approve) or False (reject). Nothing was run.")
        return approved


def decision(approved: bool | None) -> str:
    return "timed out" if approved is None else "approved" if approved else "rejected"


def _outcome(e: BaseException) -> str:
    """How the log names an approval that ended with `e`."""
    if isinstance(e, ApprovalInterrupted) or not isinstance(e, Exception | ApprovalFailed):
        return "interrupted"  # Interrupt, Ctrl+C, a cancelled task
    return "error"


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
    return str(getattr(approver, "who", None) or getattr(approver, "__name__", type(approver).__name__))
