"""Checks for lesson 4's exercises (notebooks/04_permissions.ipynb), in the order the lesson builds things.

Every check calls the learner's code on calls it makes up as it runs (tool names, amounts, allowlists,
the approver's answers) from a thread of its own, and works out the right answers only afterwards
(`lesson4_cases.apart`), so a lookup table or a function that reads its caller's variables fails.
Hints name what kind of call went wrong, never the call itself.
"""

from __future__ import annotations

import math
import random

from course.exercises import NotYet, exercise
from course.exercises.lesson4_cases import (
    CheckApprover,
    Outcome,
    Trace,
    apart,
    arguments,
    drive,
    guard_case,
    look_alikes,
    names,
    spy,
)

# What the notebook has imported before each exercise cell (tests/test_exercises_l4.py compares them).
GIVEN_RULE = """
from course.backend import connect
from course.exercises import check
from course.stories.lesson4 import support_desk
from course import show
from course.paths import WORK
from course.store import ShopStore
from course.store import write_atomically
from course.tools import Toolbox
"""
GIVEN_POLICY = GIVEN_RULE
GIVEN_GUARD = GIVEN_POLICY + """
from course.permissions import Policy
from course.orders import find_orders, get_order_status
from course.approval import WidgetApprover
from course.approval import choose_approver
"""
GIVEN_LOG = GIVEN_GUARD + """
from course.approval import Guarded, guarded
from course.agent import Limits, arun_agent
from course.permissions import DecisionLog
"""
GIVEN_ALLOWLIST = GIVEN_LOG + """
import json
from course.agent import prompt_estimate
from course.approval import ScriptedApprover
from course.scripted import ScriptedModel, call, raw_call
"""

NEVER_CRASH = ("The model can send anything (a missing amount, text, null): a rule must never crash; when in "
               "doubt, return 'ask'.")


def outcome_of(o: Outcome, what: str) -> object:
    """The value a call returned, or a hint about the exception it raised."""
    if o.error is not None:
        raise NotYet(f"your function raised {type(o.error).__name__} ({o.error}) for {what}. {NEVER_CRASH}")
    if o.changed:
        raise NotYet(f"your function changed the arguments it was given (for {what}): a rule or a policy only "
                     "looks at a call, it never edits it. Read values with arguments.get(...).")
    return o.value


# -- l4-refund-limit ----------------------------------------------------------------------------------
LIMIT = 50


LOOKALIKE = (" A name that only contains \"refund\", or differs in case, is another tool: compare the name "
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
        raise NotYet("refund_limit should be a function `refund_limit(name, arguments)`.")
    rng = random.Random()
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
                raise NotYet(f"for another tool the rule gave {value!r}; it should return None (leave the call to "
                             "the next rule or the risk): it is only about issue_refund." +
                             (LOOKALIKE if "refund" in name.lower() else ""))
            continue
        amount, kind = args.get("amount"), refund_case(args)
        number = isinstance(amount, int | float) and not isinstance(amount, bool) and not math.isnan(amount)
        want = "allow" if number and amount <= LIMIT else "ask"
        if value == want:
            continue
        if not number:
            raise NotYet(f"{kind} gave {value!r}. When the amount is missing or not a number, ask a human: the tool "
                         "would even accept \"20\" as 20.0, so a rule must never guess. (Every comparison with NaN "
                         "is False, so `not amount > 50` lets NaN through: allow only when `amount <= 50` is True.)")
        if "exactly" in kind:
            raise NotYet(f"{kind} gave {value!r}: at most 50 includes 50 itself. Compare with <=, not <.")
        raise NotYet(f"{kind} gave {value!r}, but should give {want!r}: allow refunds of at most 50, ask about "
                     "bigger ones. Read the amount from the arguments, arguments.get(\"amount\").")
    return f"{len(calls)} calls, the amounts made up on the spot: small refunds go through, the rest reach a human."


# -- l4-policy ----------------------------------------------------------------------------------------
def spec_decide(name: str, args: dict, risks: dict, allowlist, rules) -> str:
    if allowlist is not None and name not in allowlist:
        return "deny"
    for rule in rules:
        decision = rule(name, args)
        if decision is not None:
            return decision
    return "allow" if risks.get(name) == "read" else "ask"


def policy_cases(rng: random.Random) -> list[tuple[str, tuple]]:
    """(what the case is about, the call) for the policy check, made up for this run."""
    read, write, odd, unknown, ruled, other_read = names(rng, 6)
    risks = {read: "read", write: "write", odd: rng.choice(["admin", "Read", "delete"]), ruled: "write",
             other_read: "read"}
    key = f"C{rng.getrandbits(20):05x}"

    def passes(name, args):
        return None

    def allow_ruled(name, args):
        return "allow" if name == ruled else None

    def deny_marked(name, args):
        return "deny" if args.get("mark") == key else None

    def ask_reads(name, args):
        return "ask" if name == other_read else None

    rules = [passes, deny_marked, allow_ruled, ask_reads]
    everyone = [read, write, odd, unknown, ruled, other_read]
    listed = {read, write, ruled, rng.choice([odd, unknown])}  # other_read is never on it: a rule asks about it
    cases = []
    for name in everyone:
        args = arguments(rng)
        cases += [("no allowlist", (name, args, risks, None, ())),
                  ("rules", (name, args, risks, None, rules)),
                  ("an allowlist", (name, args, risks, set(listed), rules)),
                  ("an empty allowlist", (name, args, risks, set(), ())),
                  ("rules", (name, {**args, "mark": key}, risks, None, tuple(rules)))]
    cases += [("an allowlist", (name, arguments(rng), risks, frozenset(listed), rules)) for name in look_alikes(ruled)]
    cases += [("rules in order", (ruled, {"mark": key}, risks, None, [allow_ruled, deny_marked]))]
    rng.shuffle(cases)
    return cases


def policy_hint(name: str, args: dict, risks: dict, allowlist, rules, got: object, want: str) -> str:
    """What the learner's decide got wrong on this call, in words that do not give the call away."""
    opinions = [d for d in (r(name, args) for r in rules) if d is not None]
    if got is None and rules:
        return ("decide returned None: a rule that returns None has no opinion. Skip it and try the next rule; "
                "when no rule decides, the risk does.")
    if got not in ("allow", "deny", "ask"):
        return f"decide returned {got!r}; it returns one of 'allow', 'deny' or 'ask'."
    if allowlist is not None and name not in allowlist:
        if not allowlist:
            return ("with an empty allowlist (set()) every call should be denied. `if allowlist and ...` treats "
                    "an empty set like no allowlist at all: compare with None (`allowlist is not None`).")
        if opinions and got == opinions[0]:
            return ("a rule let through a tool that is not on the allowlist: check the allowlist first, before "
                    "any rule, so nothing can open what the allowlist closes.")
        return ("a tool that is not on the allowlist was not denied (only exact names on the list pass): deny it, "
                "whatever its risk.")
    if opinions:
        if got in opinions[1:]:
            return "the rules were not tried in order: the first rule that returns a decision wins."
        return (f"a rule decided {opinions[0]!r} for a call, but decide gave {got!r}: try each rule in order, with "
                "the call's name and arguments, and return the first decision that is not None.")
    risk = risks.get(name)
    if risk is None:
        return ("a tool with no declared risk was not asked about: a tool the policy has never heard of counts as "
                "write (when in doubt, ask).")
    if risk not in ("read", "write"):
        return ("a tool whose risk is neither 'read' nor 'write' was not asked about: only a 'read' tool is allowed "
                "by its risk; anything else is asked about.")
    if rules:
        return ("no rule had an opinion (each returned None), but decide did not leave the call to the risk: "
                "skip a rule that returns None, go on with the next one, and then let the risk decide.")
    return f"a {risk} tool should get {want!r} when no allowlist or rule decides (read -> allow, write -> ask)."


def policy_rank(call: tuple) -> tuple[int, int]:
    """Report the most basic mistake first, whatever order the cases ran in."""
    name, args, risks, allowlist, rules = call
    risk = risks.get(name)
    plain = 0 if risk in ("read", "write") else 1 if risk is None else 2  # declared, undeclared, neither
    if not rules:
        return (0 if allowlist is None else 1), plain
    if allowlist is not None and name not in allowlist:
        return 2, plain
    return (3 if len(rules) > 2 else 4), plain


@exercise("l4-policy", lesson=4, given=GIVEN_POLICY)
def check_policy(decide):
    if not callable(decide):
        raise NotYet("decide should be a function `decide(name, arguments, risks, allowlist=None, rules=())`.")
    cases = policy_cases(random.Random())
    got = apart(decide, [call for _, call in cases])  # the right answers are worked out only now
    for (about, call), o in sorted(zip(cases, got, strict=True), key=lambda c: policy_rank(c[0][1])):
        value = outcome_of(o, f"a call with {about}")
        want = spec_decide(*call)
        if value != want:
            raise NotYet(policy_hint(*call, value, want))
    return f"{len(cases)} calls to tools made up on the spot: allowlist first, then the rules, then the risk."


# -- l4-guard -----------------------------------------------------------------------------------------
KINDS = ("deny", "reject", "timeout", "allow", "approve")
WHAT = {"deny": "a call the policy denies", "reject": "a call the approver rejected",
        "timeout": "a call nobody answered in time", "allow": "a call the policy allows",
        "approve": "a call the approver approved"}
WHY = {"deny": ("denied", "not permitted", "not allowed"), "reject": ("reject",), "timeout": ("time",)}


def kind_of(policy, call) -> str:
    decision = policy.decide(call.tool, call.arguments)
    return call.answer if decision == "ask" else decision


def run_guard(make, needs_log: bool):
    """Build the learner's guard on a made-up policy and run a made-up model's calls through it."""
    from course.permissions import DecisionLog

    rng = random.Random()
    policy, calls = guard_case(rng)
    trace = Trace()
    approver = CheckApprover(calls, trace, who=f"the check's approver {rng.randint(100, 999)}")
    log = DecisionLog()
    execute = spy(calls, trace, rng)
    run = make(execute, policy, approver, log) if needs_log else make(execute, policy, approver)
    if not callable(run):
        raise NotYet(f"your function should return the guarded execute (an async function of name and "
                     f"arguments_json), not {run!r:.80}.")
    try:
        drive(run, calls, trace)
    finally:
        approver.tidy()
    judge_guard(policy, calls, trace)
    return policy, calls, trace, approver, log


def judge_guard(policy, calls, trace) -> None:
    kinds = [kind_of(policy, c) for c in calls]  # worked out after the run
    order = sorted(range(len(calls)), key=lambda i: KINDS.index(kinds[i]))
    for i in order:
        error = trace.errors[i]
        if isinstance(error, TimeoutError):
            raise NotYet("when nobody answers in time the approver raises TimeoutError, and your guard let it out. "
                         "Catch it (`except TimeoutError:`) and return a message for the model instead.")
        if error is not None:
            raise NotYet(f"your guard raised {type(error).__name__} ({error}) for {WHAT[kinds[i]]}: it should "
                         "always return text the model can read.")
    if sum(k == "called" for k, _, _ in trace.events) > sum(k == "asked" for k, _, _ in trace.events):
        raise NotYet("the approver was called but never awaited: approver(request) only makes a coroutine, "
                     "which is always true. Write `approved = await approver(request)`.")
    stray = trace.of("asked", -1)
    if stray:
        from course.approval import ApprovalRequest

        if not isinstance(stray[0], ApprovalRequest):
            raise NotYet(f"the approver takes an ApprovalRequest, not {type(stray[0]).__name__}: "
                         "approver(ApprovalRequest(name, arguments, policy.risk(name))).")
        raise NotYet("the approver was not shown the arguments the model sent: show the parsed arguments, "
                     "json.loads(arguments_json), as a dict and unchanged.")
    if trace.of("ran", -1):
        raise NotYet("the tool got other arguments than the model sent: pass the call on as it is, "
                     "execute(name, arguments_json), or json.dumps of the arguments the approver was shown.")
    for i in order:
        kind, ran, asked = kinds[i], trace.of("ran", i), trace.of("asked", i)
        if kind in ("deny", "reject", "timeout") and ran:
            before = asked and trace.first("ran", i) < trace.first("asked", i)
            raise NotYet(f"{WHAT[kind]} reached the tool." + (
                " The tool ran before the approver was asked: ask first, and run only after an approval." if before
                else " Run the tool only when the policy allows the call or the approver approves it."))
    for i in order:
        kind, asked = kinds[i], trace.of("asked", i)
        if kind in ("deny", "allow") and asked:
            raise NotYet(f"{WHAT[kind]} was put to the approver: only an 'ask' from the policy asks a human "
                         "(deny: refuse at once; allow: run at once).")
        if kind in ("reject", "timeout", "approve"):
            if not asked:
                raise NotYet("a call the policy asks about never reached the approver: await approver(request) "
                             "when policy.decide(...) is 'ask'.")
            if len(asked) > 1:
                raise NotYet("the approver was asked twice about one call: ask once, and use its answer.")
            shown_request(policy, calls[i], asked[0])
    for i in order:
        kind, ran = kinds[i], trace.of("ran", i)
        if kind not in ("allow", "approve"):
            continue
        if not ran:
            raise NotYet(f"{WHAT[kind]} never reached the tool: call execute(name, arguments_json) and return "
                         "what it returns.")
        if len(ran) > 1:
            raise NotYet(f"{WHAT[kind]} ran {len(ran)} times: run it once.")
        name, args = ran[0]
        if kind == "approve" and args != trace.of("asked", i)[0].arguments:
            raise NotYet("what ran is not what the approver was shown: the tool must get exactly the arguments "
                         "the human approved (do not change them after asking).")
        if (name, args) != (calls[i].tool, calls[i].arguments):
            raise NotYet(f"for {WHAT[kind]}, the tool got other arguments than the model sent: pass the call on "
                         "as it is, execute(name, arguments_json).")
        if trace.replies[i] != trace.results[i]:
            raise NotYet(f"for {WHAT[kind]}, your guard should return what execute returned (the text the model "
                         f"reads); it returned {trace.replies[i]!r:.80}.")
    for i in order:
        kind, reply, name = kinds[i], trace.replies[i], calls[i].tool
        if kind in ("allow", "approve"):
            continue
        if not isinstance(reply, str):
            raise NotYet(f"for {WHAT[kind]}, your guard returned {reply!r:.60}; return text the model can read.")
        text = reply.lower()
        if name.lower() not in text or "not run" not in text or not any(w in text for w in WHY[kind]):
            words = " or ".join(repr(w) for w in WHY[kind][:2])
            raise NotYet(f"for {WHAT[kind]}, the message should name the tool, say it was 'not run', and why "
                         f"({words}), so the model knows what happened; got {reply!r:.100}.")


def shown_request(policy, call, request) -> None:
    from course.approval import ApprovalRequest

    if not isinstance(request, ApprovalRequest):
        raise NotYet(f"the approver takes an ApprovalRequest, not {type(request).__name__}: "
                     "approver(ApprovalRequest(name, arguments, policy.risk(name))).")
    if request.tool != call.tool:
        raise NotYet("the approver was asked about another tool than the one called: ApprovalRequest's first "
                     "field is the tool's name.")
    if request.arguments != call.arguments:
        raise NotYet("the approver was not shown the arguments the model sent: show the parsed arguments, "
                     "json.loads(arguments_json), unchanged.")
    if request.risk != policy.risk(call.tool):
        raise NotYet(f"the request says the risk is {request.risk!r}; give the tool's risk, policy.risk(name).")


@exercise("l4-guard", lesson=4, given=GIVEN_GUARD)
def check_guard(guard):
    if not callable(guard):
        raise NotYet("guard should be a function `guard(execute, policy, approver)` that returns an async function.")
    _, calls, *_ = run_guard(guard, needs_log=False)
    return (f"{len(calls)} calls: what was denied, rejected or not answered in time never reached the tool, and "
            "what ran is what was shown.")


# -- l4-log -------------------------------------------------------------------------------------------
DECIDED = {"allow": "allowed", "deny": "denied", "approve": "approved", "reject": "rejected", "timeout": "timed out"}


@exercise("l4-log", lesson=4, given=GIVEN_LOG)
def check_log(logged_guard):
    if not callable(logged_guard):
        raise NotYet("logged_guard should be a function `logged_guard(execute, policy, approver, log)`.")
    policy, calls, trace, approver, log = run_guard(logged_guard, needs_log=True)
    kinds = [kind_of(policy, c) for c in calls]
    entries = list(log.entries)
    kind_of_ref = {c.arguments["ref"]: k for c, k in zip(calls, kinds, strict=True)}
    logged = [kind_of_ref.get(e.arguments.get("ref")) for e in entries if isinstance(e.arguments, dict)]
    missing = [k for k in KINDS if logged.count(k) < kinds.count(k)]
    if missing:
        raise NotYet(f"the log has no entry for {WHAT[missing[0]]}. Every call gets one entry, the ones that did "
                     "not run too: log.record(name, arguments, decision, decided_by, ...) on every path.")
    if len(entries) != len(calls):
        raise NotYet(f"the log has {len(entries)} entries for {len(calls)} calls: one entry per call, with its "
                     "final decision (not one for the policy's 'ask' and another for the answer).")
    for k in KINDS:
        for call, kind, entry in zip(calls, kinds, entries, strict=True):
            if kind != k:
                continue
            if (entry.tool, entry.arguments) != (call.tool, call.arguments):
                raise NotYet("the log's entries are not in the order of the calls, or name another tool or other "
                             "arguments: record each call as it is decided, with the arguments the model sent.")
            if entry.decision != DECIDED[kind]:
                raise NotYet(f"for {WHAT[kind]}, the log says {entry.decision!r}; the decision should be "
                             f"{DECIDED[kind]!r} (one of {', '.join(map(repr, DECIDED.values()))}).")
            ruling = policy.judge(call.tool, call.arguments)
            if kind in ("allow", "deny") and entry.decided_by != ruling.decided_by:
                raise NotYet(f"for {WHAT[kind]}, 'decided by' is {entry.decided_by!r}; say what decided, the "
                             "ruling's decided_by (policy.judge(name, arguments).decided_by).")
            if kind in ("approve", "reject", "timeout"):
                if entry.decided_by != approver.who:
                    raise NotYet(f"for {WHAT[kind]}, 'decided by' is {entry.decided_by!r}: a human decided, so name "
                                 "the approver, approver.who.")
                if entry.asked_because != ruling.decided_by:
                    raise NotYet(f"for {WHAT[kind]}, 'asked because' is {entry.asked_because!r}: say why the "
                                 "policy asked, its ruling's decided_by (e.g. 'risk: write').")
    return f"{len(calls)} calls, {len(entries)} entries: every decision is in the log, with who made it."


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
        raise NotYet("only should be a function `only(allowed)` that returns a rule.")
    rng = random.Random()
    pool = names(rng, 7)
    lists = [set(pool[:3]), list(pool[2:4]), frozenset(pool[4:5]), set()]
    rules = [outcome_of(o, "only(...)") for o in apart(only, [(allowed,) for allowed in lists])]
    for rule in rules:
        if not callable(rule):
            raise NotYet(f"only(...) should return a rule (a function of name and arguments), not {rule!r:.80}.")
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
            raise NotYet("each call of only(...) should keep its own allowlist, but one rule answered with another "
                         "call's list. Keep `allowed` in the rule (a closure), not in a global variable.")
        wrong = [name for name in tried if answers[n][name] != spec_only(allowed, name)]
        name = min(wrong, key=lambda w: (w not in allowed, w not in pool))
        value = answers[n][name]
        if not allowed:
            raise NotYet(f"with an empty allowlist every tool should be denied; a tool got {value!r}.")
        if name in allowed:
            raise NotYet(f"a tool on the list gave {value!r}; it should give None, so the next rule or the tool's "
                         "risk decides (a write tool on the list is still asked about).")
        if name not in pool:
            raise NotYet(f"a name that only looks like one on the list gave {value!r}, not 'deny': only exact names "
                         "pass, not names that start with one, are part of one, or differ in case or spaces.")
        raise NotYet(f"a tool that is not on the list gave {value!r}; it should give 'deny'.")

    allowed_read, allowed_write = sorted(lists[0])[:2]
    policy = Policy({allowed_read: "read", allowed_write: "write", pool[5]: "read"}, rules=[rules[0]])
    if [policy.decide(name, {}) for name in (allowed_read, allowed_write, pool[5])] != ["allow", "ask", "deny"]:
        raise NotYet("inside a Policy, tools on the list should still follow their risk (read -> allow, "
                     "write -> ask), and the others be denied.")
    reached = []
    run = guarded(lambda name, arguments: reached.append(name) or "done", policy=policy,
                  approver=ScriptedApprover([]), log=DecisionLog())
    # A notebook's event loop is already running: run_async uses a fresh one in a thread.
    reply = run_async(lambda: run(pool[5], json.dumps({"order_id": "A1003"})))
    if reached:
        raise NotYet("a tool off the allowlist reached execute.")
    return f"Tools off the list are denied, exact names only, and no human is asked. The model read: {reply!r}"
