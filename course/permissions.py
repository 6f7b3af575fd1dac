"""Who may run which tool: risk levels, a policy, an allowlist, and a log of every decision (lesson 4).

    policy = Policy.for_tools(tools, allowlist={"get_order_status", "issue_refund"})
    policy.decide("issue_refund", {"order_id": "A1001", "amount": 49})   # -> "ask"

Three possible decisions for one call: **allow** (run it), **deny** (never run it), **ask**
(a human approves or rejects; see `course.approval`). The policy decides in this order:

1. a tool that is not on the allowlist is denied (the model should not even have seen it);
2. the first rule that has an opinion decides (a rule returns a decision, or None to pass);
3. otherwise the risk decides: read tools are allowed, write tools are asked about.

A **rule** is a function `rule(name, arguments)` that returns "allow", "deny", "ask", or None
to pass the call on to the next rule. A rule that crashes, or returns anything else, raises
`RuleError`, naming the rule.

A tool whose risk is not declared counts as "write", and so does a name the policy has never
heard of: when in doubt, ask.

The decision log lives in memory only: it is gone when the program (or the kernel) stops.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, get_args

from course.errors import RuleError
from course.show import lookalike_note, named, printable

__all__ = ["DecisionLog", "Policy"]

Risk = Literal["read", "write"]
Decision = Literal["allow", "deny", "ask"]
# A rule looks at one call and returns a decision, or None to leave it to the next rule.
PolicyRule = Callable[[str, dict], "Decision | None"]

DECISIONS = get_args(Decision)
DEFAULT_FOR_RISK: dict[str, Decision] = {"read": "allow", "write": "ask"}


@dataclass(frozen=True)
class Ruling:
    """A policy decision and what made it (shown in the decision log)."""

    decision: Decision
    decided_by: str


def risk_of(name: str, risks: dict[str, str]) -> str:
    """The risk of a tool; a tool nobody declared counts as "write"."""
    risk = risks.get(name, "write")
    return risk if risk in DEFAULT_FOR_RISK else "write"


def risks_of(tools: Iterable[Any]) -> dict[str, str]:
    """{name: risk} from `course.tools.Tool` objects (anything with `.name` and `.risk`)."""
    return {t.name: getattr(t, "risk", "write") for t in tools}


class Policy:
    """Decides, for each call, whether it runs, is refused, or needs a human's approval."""

    def __init__(self, risks: dict[str, str], allowlist: set[str] | None = None,
                 rules: Iterable[PolicyRule] = ()):
        self.risks = dict(risks)
        self.allowlist = None if allowlist is None else set(allowlist)
        self.rules = list(rules)

    @classmethod
    def for_tools(cls, tools: Iterable[Any], allowlist: set[str] | None = None,
                  rules: Iterable[PolicyRule] = ()) -> Policy:
        return cls(risks_of(tools), allowlist, rules)

    def __repr__(self) -> str:
        allow = "all tools" if self.allowlist is None else sorted(self.allowlist)
        return f"Policy(risks={self.risks}, allowlist={allow}, rules={[_name(r) for r in self.rules]})"

    def risk(self, name: str) -> str:
        return risk_of(name, self.risks)

    def allowed(self, name: str) -> bool:
        return self.allowlist is None or name in self.allowlist

    def offer(self, tools: Iterable[Any]) -> list[Any]:
        """Only the allowlisted tools: what the model gets to see at all."""
        return [t for t in tools if self.allowed(t.name)]

    def judge(self, name: str, arguments: dict) -> Ruling:
        """The decision for one call, with what decided it."""
        if not self.allowed(name):
            return Ruling("deny", "allowlist")
        for rule in self.rules:
            try:
                decision = rule(name, arguments)
            except Exception as e:
                raise RuleError(f"rule {_name(rule)} crashed on {name}({_short(arguments)}): "
                                f"{type(e).__name__}: {e}. A rule must cope with any arguments the model "
                                "sends (missing, text, null): when in doubt, return 'ask'.", _name(rule)) from e
            if decision is None:
                continue
            if not isinstance(decision, str) or decision not in DECISIONS:
                raise RuleError(f"rule {_name(rule)} returned {decision!r}; a rule returns "
                                "'allow', 'deny', 'ask', or None to leave the call to the next rule.", _name(rule))
            return Ruling(decision, f"rule {_name(rule)}")
        risk = self.risk(name)
        return Ruling(DEFAULT_FOR_RISK[risk], f"risk: {risk}")

    def decide(self, name: str, arguments: dict) -> Decision:
        return self.judge(name, arguments).decision


def _name(rule: PolicyRule) -> str:
    return getattr(rule, "__name__", type(rule).__name__)


# -- the decision log --------------------------------------------------------------------------
@dataclass(frozen=True)
class LogEntry:
    time: datetime  # when the decision was made (local time)
    tool: str
    arguments: dict
    decision: str  # final: "allowed", "denied", "approved", "rejected", "timed out" or "error"
    decided_by: str  # "risk: read", "allowlist", "rule refund_limit", "human (buttons)", ...
    elapsed: float = 0.0  # seconds since the log started (shown by .show())
    asked_because: str = ""  # when a human (or an approver) decided: why the policy asked, e.g. "risk: write"
    outcome: str = ""  # what the call did after it was let through, when the caller reports it (`settle`)

    @property
    def ran(self) -> bool:
        """Whether the tool was called (let through, and not turned away by whoever runs it)."""
        return self.decision in ("allowed", "approved") and self.outcome not in NOT_RUN


# Outcomes of a call that was let through but never ran.
NOT_RUN = ("rejected by the server", "refused by the server for now", "not sent")


@dataclass
class DecisionLog:
    """Every decision about every call, in order. `show()` prints it as a table.

    In memory only: the log is gone when the program or the kernel stops (`rows()` gives
    plain dicts to save it yourself).
    """

    entries: list[LogEntry] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def record(self, tool: str, arguments: dict, decision: str, decided_by: str,
               asked_because: str = "") -> LogEntry:
        entry = LogEntry(datetime.now().astimezone(), tool, dict(arguments), decision, decided_by,
                         time.monotonic() - self.started, asked_because)
        self.entries.append(entry)
        return entry

    def settle(self, entry: LogEntry, outcome: str) -> LogEntry:
        """Record what a let-through call did ("ran", "rejected by the server", ...) on its entry."""
        settled = replace(entry, outcome=outcome)
        for i, e in enumerate(self.entries):
            if e is entry:
                self.entries[i] = settled
        return settled

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self):
        return iter(self.entries)

    def rows(self, arguments_width: int = 60) -> list[dict]:
        # "after" goes last: its width can change run to run, and notebooks' outputs must not.
        settled = any(e.outcome for e in self.entries)  # a column only where callers report outcomes
        # Look-alikes named as the approval prompt names them (after the cut, so it cannot hide the letter).
        return [{"#": i, "tool": named(e.tool),
                 "arguments": _short(e.arguments, arguments_width) + lookalike_note(json.dumps(e.arguments,
                                                                                             ensure_ascii=False)),
                 "decision": e.decision,
                 "decided by": e.decided_by, "asked because": e.asked_because or "-",
                 **({"outcome": e.outcome or "-"} if settled else {}),
                 "after": f"{e.elapsed:.2f} s"} for i, e in enumerate(self.entries, 1)]

    def show(self, columns: list[str] | None = None, *, arguments_width: int = 60) -> None:
        """Print the log as a plain-text table ("after" = seconds since the log started).

        `columns` picks some (e.g. to fit a narrow window: a line that wraps is unreadable);
        `arguments_width` cuts the arguments shorter.
        """
        from course.show import table

        rows = self.rows(arguments_width)
        unknown = sorted(set(columns or ()) - set(rows[0] if rows else columns or ()))
        if unknown:
            raise ValueError(f"no column {', '.join(unknown)}; the log has {', '.join(rows[0])}.")
        table(rows, columns)


def _short(arguments: dict, width: int = 60) -> str:
    text = printable(json.dumps(arguments, ensure_ascii=False))  # a model wrote them: nothing may redraw the line
    return text if len(text) <= width else text[:width - 1] + "…"
