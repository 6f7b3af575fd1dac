"""Checks for lesson 4's exercises (notebooks/04_permissions.ipynb)."""

from __future__ import annotations

from course.exercises import NotYet, exercise, run_async

GIVEN = """
from course.approval import ScriptedApprover, guarded
from course.permissions import DecisionLog, Policy
"""

RISKS = {"get_order_status": "read", "get_order_record": "read", "issue_refund": "write",
         "cancel_order": "write", "create_ticket": "write"}


def refund(amount):
    return {"order_id": "A1004", "amount": amount, "reason": "Arrived broken."}


def ask_rule(rule, name, arguments):
    """rule(name, arguments), or a hint naming the call it crashed on."""
    try:
        return rule(name, arguments)
    except NotImplementedError:
        raise
    except Exception as e:
        raise NotYet(f"your rule crashed on {name}({arguments}) with {type(e).__name__}: {e}. The model can send "
                     "anything (a missing amount, text, null): a rule must never crash; when in doubt, "
                     "return 'ask'.") from None


@exercise("l4-refund-limit", lesson=4, given=GIVEN)
def check_refund_limit(refund_limit):
    from course.permissions import Policy

    if not callable(refund_limit):
        raise NotYet("refund_limit should be a function `refund_limit(name, arguments)`.")
    for amount, expected in [(10, "allow"), (50, "allow"), (49.99, "allow"), (50.01, "ask"), (189, "ask")]:
        got = ask_rule(refund_limit, "issue_refund", refund(amount))
        if got != expected:
            raise NotYet(f"a refund of {amount} should give {expected!r}, your rule gives {got!r}.")
    for name, arguments in [("cancel_order", {"order_id": "A1003", "reason": "Twice."}),
                            ("get_order_status", {"order_id": "A1001"}),
                            ("create_ticket", {"order_id": "A1001", "amount": 5})]:
        got = ask_rule(refund_limit, name, arguments)
        if got is not None:
            raise NotYet(f"for {name} the rule should return None (leave it to the policy), not {got!r}: "
                         "it is only about refunds.")
    for odd in [{"order_id": "A1004"}, refund("20"), refund(None)]:
        got = ask_rule(refund_limit, "issue_refund", odd)
        if got == "allow":
            raise NotYet(f"arguments {odd} were allowed without asking. When the amount is missing or not a "
                         "number, ask a human: the tool would even accept \"20\" as 20.0, so a rule must "
                         "never guess.")
    if ask_rule(refund_limit, "issue_refund", refund(float("nan"))) == "allow":
        raise NotYet("a refund of float('nan') (not a number) was allowed without asking. Every comparison with "
                     "NaN is False, so `not amount > 50` (or `'ask' if amount > 50 else 'allow'`) lets it "
                     "through: allow only when `amount <= 50` is True.")
    policy = Policy(RISKS, rules=[refund_limit])
    decisions = [policy.decide("issue_refund", refund(20)), policy.decide("issue_refund", refund(80)),
                 policy.decide("cancel_order", {"order_id": "A1003"}), policy.decide("get_order_status", {})]
    if decisions != ["allow", "ask", "ask", "allow"]:
        raise NotYet(f"inside a Policy the decisions should be allow, ask, ask, allow; they are {decisions}.")
    return "Small refunds go through; big ones still reach a human."


@exercise("l4-allowlist", lesson=4, given=GIVEN)
def check_allowlist(only):
    import json

    from course.approval import ScriptedApprover, guarded
    from course.permissions import DecisionLog, Policy

    if not callable(only):
        raise NotYet("only should be a function `only(allowed)` that returns a rule.")
    rule = only({"get_order_status", "issue_refund"})
    if not callable(rule):
        raise NotYet(f"only(...) should return a rule (a function of name and arguments), not {rule!r}.")
    for name, expected in [("cancel_order", "deny"), ("create_ticket", "deny"), ("drop_database", "deny"),
                           ("get_order_status", None), ("issue_refund", None)]:
        got = ask_rule(rule, name, {"order_id": "A1001"})
        if got != expected:
            want = "'deny'" if expected else "None (let the next rule or the risk decide)"
            raise NotYet(f"rule({name!r}, ...) should return {want}, not {got!r}.")
    for name in ["issue_refund_all", "get_order", "ISSUE_REFUND", "issue_refund "]:
        got = ask_rule(rule, name, {"order_id": "A1001"})
        if got != "deny":
            raise NotYet(f"with the list {{'get_order_status', 'issue_refund'}}, rule({name!r}, ...) should return "
                         f"'deny', not {got!r}: only exact names on the list pass, not names that start with one, "
                         "are part of one, or differ in case or spaces.")
    if ask_rule(only(set()), "get_order_status", {}) != "deny":
        raise NotYet("with an empty allowlist every tool should be denied.")
    other = only({"cancel_order"})
    if ask_rule(other, "cancel_order", {}) is not None or ask_rule(rule, "cancel_order", {}) != "deny":
        raise NotYet("each call of only(...) should keep its own allowlist.")

    policy = Policy(RISKS, rules=[only({"get_order_status", "issue_refund"})])
    if [policy.decide("issue_refund", {}), policy.decide("get_order_status", {})] != ["ask", "allow"]:
        raise NotYet("inside a Policy, allowed tools should still follow their risk: issue_refund -> ask, "
                     "get_order_status -> allow.")
    reached = []
    run = guarded(lambda name, arguments: reached.append(name) or "done", policy=policy,
                  approver=ScriptedApprover([]), log=DecisionLog())
    # A notebook's event loop is already running: run_async uses a fresh one in a thread.
    reply = run_async(lambda: run("cancel_order", json.dumps({"order_id": "A1003", "reason": "Twice."})))
    if reached:
        raise NotYet("a tool off the allowlist reached execute.")
    return f"A call off the list never runs and no human is asked. The model read: {reply!r}"
