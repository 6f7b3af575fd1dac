"""The checks of lesson 4's guard and log exercises, l4-guard and l4-log.

The learner's guard gets a made-up policy, an approver whose answers are set per call, and a spy for
a tool; a made-up model's calls go through it on an event loop of its own. Afterwards the check works
out what should have happened to each call and compares: what was denied, rejected or not answered in
time never reached the tool, what ran is what the approver was shown, and (l4-log) every call has its
entry in the log.
"""

from __future__ import annotations

import copy

from course.exercises import NotYet, exercise
from course.exercises.lesson4.cases import CheckApprover, Trace, drive, guard_case, spy
from course.exercises.lesson4.given import GIVEN_GUARD, GIVEN_LOG
from course.exercises.registry import self_contained
from course.exercises.seeds import draws

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

    rng = draws()
    policy, calls = guard_case(rng)
    trace = Trace()
    approver = CheckApprover(calls, trace, who=f"the check's approver {rng.randint(100, 999)}")
    log = DecisionLog()
    execute = spy(calls, trace, rng)
    # The learner's guard gets a copy. What should have happened is worked out from the check's own policy, so a
    # guard that rewrites the one it was given (everything 'read', no allowlist) changes nothing.
    given = copy.deepcopy(policy)
    run = make(execute, given, approver, log) if needs_log else make(execute, given, approver)
    if not callable(run):
        raise NotYet("your function should return the guarded execute (an async function of name and "
                     f"arguments_json), not {run!r:.80}.",
                     "define an `async def` inside your function, with the parameters name and arguments_json, and "
                     "return that inner function itself (not a call of it).")
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
            raise NotYet("when nobody answers in time the approver raises TimeoutError, and your guard let it "
                         "out.",
                         "Catch it (`except TimeoutError:`) and return a message for the model instead.")
        if error is not None:
            self_contained(error)
            raise NotYet(f"your guard raised {type(error).__name__} ({error}) for {WHAT[kinds[i]]}.",
                         "it should always return text the model can read.")
    if sum(k == "called" for k, _, _ in trace.events) > sum(k == "asked" for k, _, _ in trace.events):
        raise NotYet("the approver was called but never awaited.",
                     "approver(request) only makes a coroutine, which is always true. Write `approved = await "
                     "approver(request)`.")
    stray = trace.of("asked", -1)
    if stray:
        from course.approval import ApprovalRequest

        if not isinstance(stray[0], ApprovalRequest):
            raise NotYet(f"the approver takes an ApprovalRequest, not {type(stray[0]).__name__}.",
                         "approver(ApprovalRequest(name, arguments, policy.risk(name))).")
        raise NotYet("the approver was not shown the arguments the model sent.",
                     "show the parsed arguments, json.loads(arguments_json), as a dict and unchanged.")
    if trace.of("ran", -1):
        raise NotYet("the tool got other arguments than the model sent.",
                     "pass the call on as it is, execute(name, arguments_json), or json.dumps of the arguments "
                     "the approver was shown.")
    for i in order:
        kind, ran, asked = kinds[i], trace.of("ran", i), trace.of("asked", i)
        if kind in ("deny", "reject", "timeout") and ran:
            before = asked and trace.first("ran", i) < trace.first("asked", i)
            raise NotYet(f"{WHAT[kind]} reached the tool." + (
                         " The tool ran before the approver was asked." if before else ""),
                         "ask first, and run only after an approval." if before
                         else "Run the tool only when the policy allows the call or the approver approves it.")
    for i in order:
        kind, asked = kinds[i], trace.of("asked", i)
        if kind in ("deny", "allow") and asked:
            raise NotYet(f"{WHAT[kind]} was put to the approver.",
                         "only an 'ask' from the policy asks a human (deny: refuse at once; allow: run at once).")
        if kind in ("reject", "timeout", "approve"):
            if not asked:
                raise NotYet("a call the policy asks about never reached the approver.",
                             "await approver(request) when policy.decide(...) is 'ask'.")
            if len(asked) > 1:
                raise NotYet("the approver was asked twice about one call.",
                             "ask once, and use its answer.")
            shown_request(policy, calls[i], asked[0])
    for i in order:
        kind, ran = kinds[i], trace.of("ran", i)
        if kind not in ("allow", "approve"):
            continue
        if not ran:
            raise NotYet(f"{WHAT[kind]} never reached the tool.",
                         "call execute(name, arguments_json) and return what it returns.")
        if len(ran) > 1:
            raise NotYet(f"{WHAT[kind]} ran {len(ran)} times.",
                         "run it once.")
        name, args = ran[0]
        if kind == "approve" and trace.of("asked", i)[0].arguments != args:
            raise NotYet("what ran is not what the approver was shown.",
                         "the tool must get exactly the arguments the human approved (do not change them after "
                         "asking).")
        if (name, args) != (calls[i].tool, calls[i].arguments):
            raise NotYet(f"for {WHAT[kind]}, the tool got other arguments than the model sent.",
                         "pass the call on as it is, execute(name, arguments_json).")
        if trace.replies[i] != trace.results[i]:
            raise NotYet(f"for {WHAT[kind]}, your guard should return what execute returned (the text the model "
                         f"reads): expected {trace.results[i]!r:.80}, got {trace.replies[i]!r:.80}.",
                         "when the tool runs, return its reply as it is, without wrapping or changing it.")
    judge_refusals(kinds, order, calls, trace)


def judge_refusals(kinds, order, calls, trace) -> None:
    """Each call that did not run got a message that names the tool, says it was not run, and why."""
    for i in order:
        kind, reply, name = kinds[i], trace.replies[i], calls[i].tool
        if kind in ("allow", "approve"):
            continue
        if not isinstance(reply, str):
            raise NotYet(f"for {WHAT[kind]}, your guard returned {reply!r:.60}.",
                         "return text the model can read on that path too: a str that says what happened, never None.")
        text = reply.lower()
        if name.lower() not in text or "not run" not in text or not any(w in text for w in WHY[kind]):
            words = " or ".join(repr(w) for w in WHY[kind][:2])
            raise NotYet(f"for {WHAT[kind]}, the message should name the tool, say it was 'not run', and why "
                         f"({words}), so the model knows what happened; got {reply!r:.100}.",
                         "write that path's message with the tool's name, the words 'not run' and the reason in it.")

def shown_request(policy, call, request) -> None:
    from course.approval import ApprovalRequest

    if not isinstance(request, ApprovalRequest):
        raise NotYet(f"the approver takes an ApprovalRequest, not {type(request).__name__}.",
                     "approver(ApprovalRequest(name, arguments, policy.risk(name))).")
    if request.tool != call.tool:
        raise NotYet("the approver was asked about another tool than the one called.",
                     "ApprovalRequest's first field is the tool's name.")
    if request.arguments != call.arguments:
        raise NotYet("the approver was not shown the arguments the model sent.",
                     "show the parsed arguments, json.loads(arguments_json), unchanged.")
    if request.risk != policy.risk(call.tool):
        raise NotYet(f"the request says the risk is {request.risk!r}, but the tool's risk is "
                     f"{policy.risk(call.tool)!r}.",
                     "give the tool's risk as the policy knows it, policy.risk(name), not a fixed text or the "
                     "decision.")


@exercise("l4-guard", lesson=4, given=GIVEN_GUARD)
def check_guard(guard):
    if not callable(guard):
        raise NotYet("guard should be a function `guard(execute, policy, approver)` that returns an async function.",
                     "keep the cell's `def guard(execute, policy, approver):` line and return the inner async "
                     "function from it.")
    _, calls, *_ = run_guard(guard, needs_log=False)
    return (f"{len(calls)} calls: what was denied, rejected or not answered in time never reached the tool, and "
            "what ran is what was shown.")


# -- l4-log -------------------------------------------------------------------------------------------
DECIDED = {"allow": "allowed", "deny": "denied", "approve": "approved", "reject": "rejected", "timeout": "timed out"}


@exercise("l4-log", lesson=4, given=GIVEN_LOG)
def check_log(logged_guard):
    if not callable(logged_guard):
        raise NotYet("logged_guard should be a function `logged_guard(execute, policy, approver, log)`.",
                     "keep the cell's `def logged_guard(execute, policy, approver, log):` line and return the inner "
                     "async function from it.")

    policy, calls, trace, approver, log = run_guard(logged_guard, needs_log=True)
    kinds = [kind_of(policy, c) for c in calls]
    entries = list(log.entries)
    kind_of_ref = {c.arguments["ref"]: k for c, k in zip(calls, kinds, strict=True)}
    logged = [kind_of_ref.get(e.arguments.get("ref")) for e in entries if isinstance(e.arguments, dict)]
    missing = [k for k in KINDS if logged.count(k) < kinds.count(k)]
    if missing:
        raise NotYet(f"the log has no entry for {WHAT[missing[0]]}.",
                     "Every call gets one entry, the ones that did not run too: log.record(name, arguments, "
                     "decision, decided_by, ...) on every path.")
    if len(entries) != len(calls):
        raise NotYet(f"the log has {len(entries)} entries for {len(calls)} calls.",
                     "one entry per call, with its final decision (not one for the policy's 'ask' and another "
                     "for the answer).")
    for k in KINDS:
        for call, kind, entry in zip(calls, kinds, entries, strict=True):
            if kind != k:
                continue
            if (entry.tool, entry.arguments) != (call.tool, call.arguments):
                raise NotYet("the log's entries are not in the order of the calls, or name another tool or other "
                             "arguments.",
                             "record each call as it is decided, with the arguments the model sent.")
            if entry.decision != DECIDED[kind]:
                raise NotYet(f"for {WHAT[kind]}, the log says {entry.decision!r}; the decision should be "
                             f"{DECIDED[kind]!r} (one of {', '.join(map(repr, DECIDED.values()))}).",
                             "record the final decision on each path, in those exact words: what the policy or the "
                             "approver decided.")
            ruling = policy.judge(call.tool, call.arguments)
            if kind in ("allow", "deny") and entry.decided_by != ruling.decided_by:
                raise NotYet(f"for {WHAT[kind]}, 'decided by' is {entry.decided_by!r}, but the policy's ruling was "
                             f"decided by {ruling.decided_by!r}.",
                             "say what decided: the ruling's decided_by (policy.judge(name, arguments).decided_by).")
            if kind in ("approve", "reject", "timeout"):
                if entry.decided_by != approver.who:
                    raise NotYet(f"for {WHAT[kind]}, 'decided by' is {entry.decided_by!r}.",
                                 "a human decided, so name the approver, approver.who.")
                if entry.asked_because != ruling.decided_by:
                    raise NotYet(f"for {WHAT[kind]}, 'asked because' is {entry.asked_because!r}.",
                                 "say why the policy asked, its ruling's decided_by (e.g. 'risk: write').")
    return f"{len(calls)} calls, {len(entries)} entries: every decision is in the log, with who made it."
