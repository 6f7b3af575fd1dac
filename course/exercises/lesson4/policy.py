"""The check of lesson 4's policy exercise, l4-policy: `decide` on tools, risks, allowlists and rules made up
as it runs, called from a thread of its own; the right answers are worked out afterwards."""

from __future__ import annotations

import random

from course.exercises import NotYet, exercise
from course.exercises.lesson4.cases import apart, arguments, look_alikes, names
from course.exercises.lesson4.given import GIVEN_POLICY
from course.exercises.lesson4.rules import outcome_of
from course.exercises.seeds import draws


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
    cases: list[tuple[str, tuple]] = []
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


def policy_hint(name: str, args: dict, risks: dict, allowlist, rules, got: object, want: str) -> tuple[str, str]:
    """What the learner's decide got wrong on this call, and how to go about it, in words that do not give the
    call away."""
    opinions = [d for d in (r(name, args) for r in rules) if d is not None]
    if got is None and rules:
        return ("decide returned None: a rule that returns None has no opinion.",
                "Skip it and try the next rule; when no rule decides, the risk does.")
    if got not in ("allow", "deny", "ask"):
        return (f"decide returned {got!r}; it returns one of 'allow', 'deny' or 'ask'.",
                "follow every path of decide to its end: each one should return one of those three strings.")
    if allowlist is not None and name not in allowlist:
        if not allowlist:
            return ("with an empty allowlist (set()) every call should be denied.",
                    "`if allowlist and ...` treats an empty set like no allowlist at all: compare with None "
                    "(`allowlist is not None`).")
        if opinions and got == opinions[0]:
            return ("a rule let through a tool that is not on the allowlist.",
                    "check the allowlist first, before any rule, so nothing can open what the allowlist closes.")
        return ("a tool that is not on the allowlist was not denied (only exact names on the list pass).",
                "deny it, whatever its risk: test `name in allowlist` before you look at anything else.")
    if opinions:
        if got in opinions[1:]:
            return ("the rules were not tried in order.",
                    "the first rule that returns a decision wins: loop over the rules as given and return at the "
                    "first one that is not None.")
        return (f"a rule decided {opinions[0]!r} for a call, but decide gave {got!r}.",
                "try each rule in order, with the call's name and arguments, and return the first decision that "
                "is not None.")
    risk = risks.get(name)
    if risk is None:
        return ("a tool with no declared risk was not asked about.",
                "a tool the policy has never heard of counts as write (when in doubt, ask): read its risk with "
                "risks.get(name) and handle None.")
    if risk not in ("read", "write"):
        return ("a tool whose risk is neither 'read' nor 'write' was not asked about.",
                "only a 'read' tool is allowed by its risk; anything else is asked about.")
    if rules:
        return ("no rule had an opinion (each returned None), but decide did not leave the call to the risk.",
                "skip a rule that returns None, go on with the next one, and then let the risk decide.")
    return (f"a {risk} tool got {got!r}; it should get {want!r} when no allowlist or rule decides.",
            "with no allowlist and no rules, the risk decides: read -> allow, write -> ask.")


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
        raise NotYet("decide should be a function `decide(name, arguments, risks, allowlist=None, rules=())`.",
                     "keep the cell's `def decide(...)` line as it is and write the body under it.")
    cases = policy_cases(draws())
    got = apart(decide, [call for _, call in cases])  # the right answers are worked out only now
    for (about, call), o in sorted(zip(cases, got, strict=True), key=lambda c: policy_rank(c[0][1])):
        value = outcome_of(o, f"a call with {about}")
        want = spec_decide(*call)
        if value != want:
            problem, how = policy_hint(*call, value, want)
            raise NotYet(problem, how)
    return f"{len(cases)} calls to tools made up on the spot: allowlist first, then the rules, then the risk."
