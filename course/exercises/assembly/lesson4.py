"""Lesson 4's assemble step: section 6's two requests (refund broken mugs, cancel a double order) with the
learner's `refund_limit` and `only` as the policy's rules, the learner's `decide` as the policy and the
learner's `guard` around the shop's tools, next to the course's `Policy` and `guarded` with the same rules,
on the same scripted model and the same human's answer (the cancel rejected)."""

from __future__ import annotations

import contextlib
import io
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from course.exercises.assembly.pieces import Assembly, LearnersPolicy, gather, judged
from course.exercises.registry import exercise, run_async
from course.permissions import Decision

PIECES = {"l4-refund-limit": "refund_limit", "l4-policy": "decide", "l4-guard": "guard", "l4-allowlist": "only"}
ALLOWED = {"get_order_record", "get_order_status", "find_orders", "issue_refund", "cancel_order"}  # no tickets
MESSAGES = [
    {"role": "system", "content": "You are the support assistant of Northwind Goods. You may refund and cancel "
                                  "orders when the customer asks; check the order first."},
    {"role": "user", "content": "My mugs from order A1002 arrived broken, please refund them. "
                                "Please also cancel order A1003, I ordered it twice by mistake."},
]
GIVEN = """
from course.backend import connect
from course.exercises import check, hint
from course.stories.lesson4 import support_desk
from course import show
from course.paths import WORK
from course.store import ShopStore
from course.store import write_atomically
from course.tools import Toolbox
from course.permissions import Policy
from course.orders import find_orders, get_order_status
from course.approval import WidgetApprover
from course.approval import choose_approver
import json
from course.approval import Guarded, guarded
from course.agent import Limits, arun_agent
from course.permissions import DecisionLog
from course.agent import prompt_estimate
from course.approval import ScriptedApprover
from course.scripted import ScriptedModel, call, raw_call
"""


def small_refunds_run(name: str, arguments: dict) -> Decision | None:
    """The story's rule, as the course's policy holds it: a refund of at most 50 EUR runs without asking."""
    amount = arguments.get("amount")
    if name != "issue_refund":
        return None
    if isinstance(amount, int | float) and not isinstance(amount, bool) and amount == amount:  # not NaN
        return "allow" if amount <= 50 else "ask"
    return "ask"


async def desk(p: Mapping[str, Any] | None, store_path: Path) -> tuple[str, list, str]:
    """One run of the desk: with the learner's pieces `p`, or the course's `Policy` and `guarded` (None)."""
    from course.agent import Limits, arun_agent
    from course.approval import ScriptedApprover, guarded
    from course.backend import MODEL
    from course.orders import find_orders, get_order_status
    from course.permissions import Policy
    from course.scripted import ScriptedModel
    from course.store import ShopStore
    from course.stories.lesson4 import support_desk
    from course.tools import Toolbox

    store = ShopStore(store_path)
    store.reset()
    toolbox = Toolbox(get_order_status, find_orders, *store.read_tools(), *store.write_tools())
    human = ScriptedApprover([False, False, False])  # section 6's human: no to what is asked
    if p is None:  # the course's: its allowlist, and the story's rule
        course = Policy.for_tools(toolbox.tools.values(), allowlist=ALLOWED, rules=[small_refunds_run])
        execute = guarded(toolbox.execute, policy=course, approver=human)
    else:
        risks = {t.name: t.risk for t in toolbox.tools.values()}
        policy = LearnersPolicy(p["decide"], risks, None, [p["refund_limit"], p["only"](ALLOWED)])
        execute = p["guard"](toolbox.execute, policy, human)
    result = await arun_agent(ScriptedModel(support_desk).async_client(), MODEL, MESSAGES,
                              tools=toolbox.definitions(), execute=execute, limits=Limits(max_steps=4))
    refunds = [(r["order_id"], r["amount"]) for r in store.refunds()]
    return result.answer, refunds, store.order("A1003")["status"]


def assemble(namespace: Mapping[str, Any]) -> Assembly:
    pieces = gather(PIECES, namespace)
    chosen = {p.name: p.value for p in pieces}
    with tempfile.TemporaryDirectory() as work, contextlib.redirect_stdout(io.StringIO()):
        got = run_async(lambda: desk(chosen, Path(work) / "yours.json"), limit=60)
        want = run_async(lambda: desk(None, Path(work) / "course.json"), limit=60)
    # What was done is compared; the wording of a refusal is the guard's own (the model reports it as it reads).
    answer, refunds, status = got
    return Assembly("l4-assemble", pieces, got=got[1:], want=want[1:],
                    lines=[f"the customer: {MESSAGES[1]['content']}", f"your desk: {answer}",
                           f"refunds: {refunds}; A1003 is {status}"])


@exercise("l4-assemble", lesson=4, given=GIVEN, uses=tuple(PIECES))
def check_assemble(refund_limit, decide, guard, only):
    return judged(assemble(dict(refund_limit=refund_limit, decide=decide, guard=guard, only=only)))
