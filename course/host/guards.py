"""Rules against indirect prompt injection, for `McpHost(rules=[...])` (lesson 8).

Text the model reads (a document, a web page, a tool result) can carry instructions, and no
model reliably ignores them. So the defence is not in the prompt but in what the host lets
through: after the model has read content from the open world, a tool that changes things
does not run on the model's word alone.

    guard = UntrustedInput(host)                  # a rule: reads the host's outcomes
    host.rules.append(guard)                      # or McpHost(rules=[...]) and guard.host = host
    McpHost(rules=[asked_for(message)])           # a write runs only if the customer's own words ask for it
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from course.host.convert import open_world
from course.orders import ORDER_ID
from course.permissions import Decision

__all__ = ["REQUESTS", "UntrustedInput", "asked_for", "open_world", "own_orders", "requested"]

# What a customer writes when they *ask for* an action, not when they ask *about* it
# ("how long do I have for a refund?" asks about refunds; "please refund A1002" asks for one).
REQUESTS: dict[str, re.Pattern[str]] = {
    "issue_refund": re.compile(r"\b(please refund|refund (me|it|my|this|that|the|order)|(i want|i'd like|i would like|"
                               r"i need|can i (get|have)|give me) (a |my )?(refund|money back))\b", re.I),
    "cancel_order": re.compile(r"\b(please cancel|cancel (it|my|this|that|the|order)|(i want|i'd like|i would like|"
                               r"i need) to cancel)\b", re.I),
}


def own_orders(message: str) -> Callable[..., Decision | None]:
    """A rule: a call on an order the customer's message does not name is denied (lesson 8's l8-injection-rule).

    It decides *whose* order, not whether the customer asked for the action: see `asked_for`.
    """
    named = set(ORDER_ID.findall(message))

    def rule(tool: str, arguments: dict) -> Decision | None:
        order = arguments.get("order_id")
        return "deny" if order is not None and order not in named else None

    rule.__name__ = "own_orders"
    return rule


def asked_for(message: str, requests: dict[str, re.Pattern[str]] = REQUESTS) -> Callable[..., Decision | None]:
    """A rule: a write on an order runs only if the customer's **own message** names that order *and* asks for it.

    Lesson 8's `customer_orders_only` ties a call to *whose* order it is; a poisoned document can
    still ask for a refund of the customer's own order (A1002, for a customer who wrote about
    A1002 but asked only how long refunds take). This rule ties it to *what was asked*: the
    action (`requests[tool]`, a pattern of request phrases) and the order must both be in the
    message the customer typed, never only in text the model read (see `requested`). Its scope ends there: it
    reads words, so a request worded another way is denied too (the desk then asks the customer
    to say it plainly), and the amount is still for the human approver to check.
    """
    wanted = requested(message, requests)

    def rule(tool: str, arguments: dict) -> Decision | None:
        if tool not in requests:  # reads, and writes this rule knows nothing about: the other rules decide
            return None
        if arguments.get("order_id") in wanted.get(tool, set()):
            return None  # asked for: still a write, so the usual policy asks a human
        return "deny"

    rule.__name__ = "asked_for"  # the decision log names the rule
    return rule


SENTENCE = re.compile(r"[^.!?;\n]+")
NEGATED = re.compile(r"\b(?:don['’]?t|do not|never|no need to|not)\b[^,]*$", re.I)  # "please don't refund my order"


def requested(message: str, requests: dict[str, re.Pattern[str]] = REQUESTS) -> dict[str, set[str]]:
    """{tool: the orders the customer's message asks it for}: `asked_for`'s reading of the customer's words.

    A request said *not* to be made ("do not refund my order A1002") asks for nothing. When the
    message names several orders, a request covers the orders of its own sentence only ("please
    refund A1001. Where is A1002?" asks for no refund of A1002); with one order, any sentence.
    """
    orders = set(ORDER_ID.findall(message))
    asked: dict[str, set[str]] = {}
    for sentence in SENTENCE.findall(message):
        for tool, pattern in requests.items():
            if any(not NEGATED.search(sentence[:m.start()]) for m in pattern.finditer(sentence)):
                asked.setdefault(tool, set()).update(set(ORDER_ID.findall(sentence)) if len(orders) > 1 else orders)
    return asked


class UntrustedInput:
    """A policy rule: once text from the open world is in the conversation, writes are denied.

    What counts is what *entered the model's context*, judged when it entered: a result, an error
    or a rejection (-32602, whose words the host passes on) of a tool that said it reads the open
    world, a resource read or a prompt fetched from a server with such a tool. The taint stays
    until `start()` begins a new conversation: a tool withdrawn, changed or disconnected
    afterwards takes nothing back out of the model's context.
    Reading stays allowed, so the model can still answer; only what would change records stops.
    What it does not cover: text from a server that claims a closed world (your own documents,
    lesson 8's poisoned policy) and a write the model asks for before it read anything.
    """

    __name__ = "untrusted_input"  # the decision log names the rule

    def __init__(self, host: Any = None, *, decision: Decision = "deny"):
        self.host, self.decision = host, decision
        self._from = self._context_from = 0

    def start(self) -> None:
        self._from, self._context_from = len(self.host.outcomes), len(self.host.context_read)

    def tainted_by(self) -> list[str]:
        """Where the open-world text in this conversation came from: `tool`, or `server: resource uri`."""
        tools = {o.tool for o in self.host.outcomes[self._from:] if o.open_world}  # a result, an error, a rejection
        read = {f"{server}: {what}" for server, what, untrusted in self.host.context_read[self._context_from:]
                if untrusted}
        return sorted(tools | read)

    def __call__(self, tool: str, arguments: dict, server: str | None = None) -> Decision | None:
        offered = next((o for o in self.host.offered.values() if o.tool.name == tool and o.server == server), None)
        if offered is None or offered.read_only:
            return None
        return self.decision if self.tainted_by() else None
