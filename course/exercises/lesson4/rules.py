"""The checks of lesson 4's two rules, `l4-refund-limit` and `l4-allowlist`, and how a check reads what one call
of the learner's code gave (`outcome_of`, which `policy` uses too)."""

from __future__ import annotations

import math

from course.exercises import NotYet, exercise
from course.exercises.lesson4.cases import Outcome, apart, arguments, look_alikes, names
from course.exercises.lesson4.given import GIVEN_ALLOWLIST, GIVEN_RULE
from course.exercises.registry import self_contained
from course.exercises.seeds import draws

NEVER_CRASH = ("The model can send anything (a missing amount, text, null): a rule must never crash. Test the "
               "value's type before you use it, and when in doubt, return 'ask'.")


def outcome_of(o: Outcome, what: str) -> object:
    """The value a call returned, or a hint about the exception it raised."""
    if o.error is not None:
        self_contained(o.error)
        raise NotYet(f"your function raised {type(o.error).__name__} ({o.error}) for {what}.", NEVER_CRASH)
    if o.changed:
        raise NotYet(f"your function changed the arguments it was given (for {what}).",
                     "a rule or a policy only looks at a call, it never edits it. Read values with "
                     "arguments.get(...).")
    return o.value


# -- l4-refund-limit ----------------------------------------------------------------------------------
LIMIT = 50


LOOKALIKE = ("A name that only contains \"refund\", or differs in case, is another tool: compare the name "
             "exactly, name == \"issue_refund\".")
KIND_ORDER = ["below 50", "just over 50", "over 50", "exactly 50", "not a number", "nan", "no amount"]


def refund_case(args: dict) -> str:
    """Which kind of refund a call is, in words that do not give the amount away."""
    if "amount" not in args:
        return "a refund with no amount"
    amount = args["amount"]
    if not isinstance(amount, int | float) or isinstance(amount, bool):
        return "a refund whose amount is not a number"
    if math.isnan(amount):
        return "a refund of float('nan')"
    if amount == LIMIT:
        return "a refund of exactly 50 (an int)" if isinstance(amount, int) else "a refund of exactly 50.0"
    where = "below 50" if amount < LIMIT else "just over 50" if amount < LIMIT + 1 else "over 50"
    return f"a refund {where} ({'a whole number' if isinstance(amount, int) else 'with cents'})"


def refund_rank(call: tuple) -> int:
    """Report the most basic mistake first, whatever order the calls ran in."""
    name, args = call
    if name != "issue_refund":
        return len(KIND_ORDER)
    kind = refund_case(args)
    return next(n for n, k in enumerate(KIND_ORDER) if k in kind)


@exercise("l4-refund-limit", lesson=4, given=GIVEN_RULE)
def check_refund_limit(refund_limit):
    if not callable(refund_limit):
        raise NotYet("refund_limit should be a function `refund_limit(name, arguments)`.",
                     "keep the cell's `def refund_limit(name, arguments):` line and return the rule's decision from "
                     "it.")
    rng = draws()
    amounts = [LIMIT, float(LIMIT), rng.randint(1, LIMIT - 1), round(rng.uniform(0.5, LIMIT - 0.01), 2),
               round(LIMIT - rng.randint(1, 99) / 100, 2), round(LIMIT + rng.randint(1, 99) / 100, 2),
               LIMIT + rng.randint(1, 5000), round(rng.uniform(LIMIT + 1, 2000), 2)]
    odd = [str(rng.randint(1, LIMIT)), None, [rng.randint(1, LIMIT)], {"value": rng.randint(1, LIMIT)}, float("nan")]
    order = f"A{rng.randint(1000, 9999)}"
    calls = [("issue_refund", {"order_id": order, "amount": a, "reason": "Arrived broken."}) for a in amounts + odd]
    calls.append(("issue_refund", {"order_id": order, "reason": "No amount given."}))
    calls += [(n, {"order_id": order, "amount": rng.randint(1, LIMIT)})
              for n in [*names(rng, 2), "refund_status", "issue_refund_all", "cancel_order", "Issue_Refund"]]
    rng.shuffle(calls)
    got = apart(refund_limit, calls)  # the right answers are worked out only now
    for (name, args), o in sorted(zip(calls, got, strict=True), key=lambda c: refund_rank(c[0])):
        value = outcome_of(o, refund_case(args) if name == "issue_refund" else "another tool")
        if name != "issue_refund":
            if value is not None:
                raise NotYet(f"for another tool the rule gave {value!r}; it should return None (leave the call to the "
                             "next rule or the risk): it is only about issue_refund.",
                             LOOKALIKE if "refund" in name.lower() else
                             "return None first for every name other than issue_refund, before you look at the amount.")
            continue
        amount, kind = args.get("amount"), refund_case(args)
        number = isinstance(amount, int | float) and not isinstance(amount, bool) and not math.isnan(amount)
        want = "allow" if number and amount <= LIMIT else "ask"
        if (value == want):
            continue
        if not number:
            raise NotYet(f"{kind} gave {value!r}.",
                         'When the amount is missing or not a number, ask a human: the tool would even accept '
                         '"20" as 20.0, so a rule must never guess. (Every comparison with NaN is False, so `not '
                         'amount > 50` lets NaN through: allow only when `amount <= 50` is True.)')
        if "exactly" in kind:
            raise NotYet(f"{kind} gave {value!r}.",
                         "at most 50 includes 50 itself. Compare with <=, not <.")
        raise NotYet(f"{kind} gave {value!r}, but should give {want!r}.",
                     'allow refunds of at most 50, ask about bigger ones. Read the amount from the arguments, '
                     'arguments.get("amount").')
    return f"{len(calls)} calls, the amounts made up on the spot: small refunds go through, the rest reach a human."


# -- l4-allowlist -------------------------------------------------------------------------------------
def spec_only(allowed, name: str) -> str | None:
    return None if name in allowed else "deny"


@exercise("l4-allowlist", lesson=4, given=GIVEN_ALLOWLIST)
def check_allowlist(only):
    import json

    from course.approval import ScriptedApprover, guarded
    from course.exercises import run_async
    from course.permissions import DecisionLog, Policy

    if not callable(only):
        raise NotYet("only should be a function `only(allowed)` that returns a rule.",
                     "keep the cell's `def only(allowed):` line; inside it, define the rule (a function of name and "
                     "arguments) and return it.")
    rng = draws()
    pool = names(rng, 7)
    lists = [set(pool[:3]), list(pool[2:4]), frozenset(pool[4:5]), set()]
    rules = [outcome_of(o, "only(...)") for o in apart(only, [(allowed,) for allowed in lists])]
    for rule in rules:
        if not callable(rule):
            raise NotYet(f"only(...) should return a rule (a function of name and arguments), not {rule!r:.80}.",
                         "return the inner function itself, without calling it.")
    tried = pool + [alike for name in pool[:5] for alike in look_alikes(name)]
    calls = [(n, name, arguments(rng)) for n in range(len(rules)) for name in rng.sample(tried, len(tried))]
    got = apart(lambda n, name, args: rules[n](name, args), calls)  # the right answers are worked out only now
    answers: dict[int, dict[str, object]] = {n: {} for n in range(len(rules))}
    for (n, name, _), o in zip(calls, got, strict=True):
        answers[n][name] = outcome_of(o, "a call of the rule")
    for n, allowed in enumerate(lists):
        if all(answers[n][name] == spec_only(allowed, name) for name in tried):
            continue
        others = [other for other in lists if other != allowed]
        if any(all(answers[n][name] == spec_only(other, name) for name in tried) for other in others):
            raise NotYet("each call of only(...) should keep its own allowlist, but one rule answered with "
                         "another call's list.",
                         "Keep `allowed` in the rule (a closure), not in a global variable.")
        wrong = [name for name in tried if answers[n][name] != spec_only(allowed, name)]
        name = min(wrong, key=lambda w: (w not in allowed, w not in pool))
        value = answers[n][name]
        if not allowed:
            raise NotYet(f"with an empty allowlist every tool should be denied; a tool got {value!r}.",
                         "an empty list allows nothing: test `name in allowed`, not whether `allowed` is empty.")
        if name in allowed:
            raise NotYet(f"a tool on the list gave {value!r}; it should give None.",
                         "return None for a name on the list: then the next rule or the tool's risk decides (a "
                         "write tool on the list is still asked about).")
        if name not in pool:
            raise NotYet(f"a name that only looks like one on the list gave {value!r}, not 'deny'.",
                         "only exact names pass, not names that start with one, are part of one, or differ in "
                         "case or spaces.")
        raise NotYet(f"a tool that is not on the list gave {value!r}; it should give 'deny'.",
                     "test the name against `allowed` and deny every name that is not in it.")

    allowed_read, allowed_write = sorted(lists[0])[:2]
    policy = Policy({allowed_read: "read", allowed_write: "write", pool[5]: "read"}, rules=[rules[0]])
    if [policy.decide(name, {}) for name in (allowed_read, allowed_write, pool[5])] != ["allow", "ask", "deny"]:
        raise NotYet("inside a Policy, tools on the list should still follow their risk (read -> allow, write -> "
                     "ask), and the others be denied; got "
                     f"{[policy.decide(name, {}) for name in (allowed_read, allowed_write, pool[5])]!r} for a read "
                     "tool on the list, a write tool on the list and a tool off it.",
                     "for a name on the list, return None: the policy then goes on to the tool's risk.")
    reached = []
    run = guarded(lambda name, arguments: reached.append(name) or "done", policy=policy,
                  approver=ScriptedApprover([]), log=DecisionLog())
    # A notebook's event loop is already running: run_async uses a fresh one in a thread.
    reply = run_async(lambda: run(pool[5], json.dumps({"order_id": "A1003"})))
    if reached:
        raise NotYet("a tool off the allowlist reached execute.",
                     "your rule should return 'deny' for that name, so that the guard refuses the call before it runs.")
    return f"Tools off the list are denied, exact names only, and no human is asked. The model read: {reply!r}"
