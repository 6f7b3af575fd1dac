"""Lesson 4's exercise checks accept correct solutions written in other ways and refuse the wrong ones a
learner is likely to write, each with a hint that says what is wrong (tests/test_exercises_lessons.py and
tests/test_exercises.py cover what every lesson shares: the reference solutions, the notebook, its stubs)."""

from __future__ import annotations

import re

import pytest

from course.exercises import check_source
from exercise_checks import LIARS, fails_with, lying, passes, reviewed

# A rule that answers by reading the check's variables instead of deciding (the old checks let it pass).
SNIFFER = """
import sys


def _peek(default):
    for frame in sys._current_frames().values():
        while frame is not None:
            for key in ("expected", "want", "expect", "answer"):
                if key in frame.f_locals and frame.f_locals[key] in ("allow", "ask", "deny", None):
                    return frame.f_locals[key]
            frame = frame.f_back
    return default
"""


# -- l4-refund-limit ----------------------------------------------------------------------------------
def test_refund_limit_accepts_a_rule_that_checks_the_type_exactly():
    passes("l4-refund-limit", """
        def refund_limit(name, arguments):
            if name == "issue_refund":
                amount = arguments.get("amount")
                if type(amount) in (int, float) and amount <= 50:  # NaN <= 50 is False
                    return "allow"
                return "ask"
    """)


RULE = """
def refund_limit(name, arguments):
    if {is_refund}:
        return None
    amount = {amount}
    {body}
"""


def rule(is_refund='name != "issue_refund"', amount='arguments.get("amount")',
         body='return "allow" if isinstance(amount, (int, float)) and amount <= 50 else "ask"') -> str:
    return RULE.format(is_refund=is_refund, amount=amount, body=body)


@pytest.mark.parametrize("source, hint", [
    (rule(body='return "allow" if isinstance(amount, (int, float)) and amount < 50 else "ask"'),
     "Compare with <=, not <"),
    (rule(body='return {10: "allow", 50: "allow", 49.99: "allow", 50.01: "ask", 189: "ask"}.get(amount, "ask")'),
     "a refund below 50"),
    (rule(body='try:\n        return "ask" if float(amount) > 50 else "allow"\n    except (TypeError, ValueError):\n'
               '        return "ask"'), "ask a human"),
    (rule(body='return "ask" if isinstance(amount, (int, float)) and amount > 50 else "allow"'), "ask a human"),
    (rule(is_refund='"refund" not in name'), "compare the name exactly"),
    (rule(amount='arguments.pop("amount", None)'), "changed the arguments it was given"),
    (rule(amount='arguments["amount"]', body='return "allow" if amount <= 50 else "ask"'), "must never crash"),
    (SNIFFER + rule(body='return _peek("ask")'), "should give"),
], ids=["less-than", "lookup-table-of-the-old-inputs", "text-as-a-number", "nan-let-through", "name-contains-refund",
        "pops-the-amount", "crashes-on-a-missing-amount", "reads-the-checks-variables"])
def test_refund_limit_refuses_a_rule_that_only_looks_right(source, hint):
    fails_with("l4-refund-limit", source, hint)


# -- l4-policy ----------------------------------------------------------------------------------------
def test_policy_accepts_a_decide_written_with_next_and_a_lookup():
    passes("l4-policy", """
        def decide(name, arguments, risks, allowlist=None, rules=()):
            if allowlist is None or name in allowlist:
                decisions = (rule(name, arguments) for rule in rules)
                return next((d for d in decisions if d is not None), {"read": "allow"}.get(risks.get(name), "ask"))
            return "deny"
    """)


POLICY = """
def decide(name, arguments, risks, allowlist=None, rules=()):
    if {off_list}:
        return "deny"
    {rules}
    {risk}
"""
RULES = """for rule in rules:
        decision = rule(name, arguments)
        if decision is not None:
            return decision"""


def policy(off_list="allowlist is not None and name not in allowlist", rules=RULES,
           risk='return "allow" if risks.get(name) == "read" else "ask"') -> str:
    return POLICY.format(off_list=off_list, rules=rules, risk=risk)


@pytest.mark.parametrize("source, hint", [
    (policy(off_list="allowlist and name not in allowlist"), "with an empty allowlist"),
    (policy(off_list="False", rules=RULES + "\n    if allowlist is not None and name not in allowlist:\n"
                                            "        return 'deny'"), "check the allowlist first"),
    (policy(risk='return "ask" if risks.get(name) == "write" else "allow"'), "no declared risk"),
    (policy(risk='return "ask" if risks.get(name, "write") == "write" else "allow"'), "neither 'read' nor 'write'"),
    (policy(rules="for rule in rules:\n        return rule(name, arguments)"), "has no opinion"),
    (policy(rules=RULES.replace("in rules", "in reversed(list(rules))")), "not tried in order"),
], ids=["empty-allowlist-allows-all", "rules-before-the-allowlist", "undeclared-risk-allowed",
        "odd-risk-allowed", "first-rule-always-decides", "rules-backwards"])
def test_policy_refuses_a_decide_that_only_looks_right(source, hint):
    fails_with("l4-policy", source, hint)


# -- l4-guard -----------------------------------------------------------------------------------------
def test_guard_accepts_a_guard_with_match_that_passes_the_models_text_on():
    passes("l4-guard", """
        import asyncio
        import json

        from course.approval import ApprovalRequest


        def guard(execute, policy, approver):
            async def run(name, arguments_json):
                args = json.loads(arguments_json)
                match policy.decide(name, args):
                    case "allow":
                        return execute(name, arguments_json)
                    case "deny":
                        return f"Not run: {name} is denied by the policy."
                request = ApprovalRequest(tool=name, arguments=args, risk=policy.risk(name), reason="asked")
                try:
                    ok = await approver(request)
                except asyncio.TimeoutError:
                    return f"Not run: nobody answered in time about {name}."
                return execute(name, arguments_json) if ok else f"{name}: not run, because the user rejected it."

            return run
    """)


GUARD = """
import json

from course.approval import ApprovalRequest


def guard(execute, policy, approver):
    async def guarded_execute(name, arguments_json):
        arguments = json.loads(arguments_json)
        decision = policy.decide(name, arguments)
        {early}
        if decision == {deny}:
            return f"{{name}} was not run: it is denied."
        if decision == "ask":
            request = ApprovalRequest(name, arguments, policy.risk(name))
            {ask}
            if not approved:
                return f"{{name}} was not run: the user rejected it."
            {approved}
        return execute(name, json.dumps(arguments))

    return guarded_execute
"""
ASK = """try:
                approved = await approver(request)
            except TimeoutError:
                return f"{name} was not run: nobody answered in time.\""""


def guard(early="", deny='"deny"', ask=ASK, approved="") -> str:
    return GUARD.format(early=early, deny=deny, ask=ask, approved=approved)


def test_guard_check_accepts_the_template_used_below():
    passes("l4-guard", guard())


@pytest.mark.parametrize("source, hint", [
    (guard(ask="result = execute(name, arguments_json)\n            " + ASK),
     "The tool ran before the approver was asked"),
    (guard(ask="approved = approver(request)"), "never awaited"),
    (guard(ask="approved = await approver(request)"), "raises TimeoutError, and your guard let it out"),
    (guard(approved='arguments["approved"] = True'), "what ran is not what the approver was shown"),
    (guard(deny='"never"', early='decision = "ask" if decision == "deny" else decision'),
     "a call the policy denies was put to the approver"),
    (guard(early='arguments.pop("ref", None)'), "the approver was not shown the arguments the model sent"),
], ids=["runs-before-asking", "approver-not-awaited", "timeout-escapes", "arguments-changed-after-approval",
        "asks-about-denied-calls", "arguments-changed-before-asking"])
def test_guard_refuses_a_guard_that_only_looks_right(source, hint):
    fails_with("l4-guard", source, hint)


def test_guard_says_which_call_reached_the_tool_without_naming_it():
    verdict = check_source("l4-guard", guard(early="execute(name, arguments_json)"))
    assert not verdict.passed and "a call the policy denies reached the tool" in verdict.message
    assert not re.search(r"C[0-9a-f]{8}", verdict.message)  # the made-up call's marker stays hidden


# -- l4-log -------------------------------------------------------------------------------------------
def test_log_accepts_a_guard_that_logs_once_at_the_end_of_each_path():
    passes("l4-log", """
        import json

        from course.approval import ApprovalRequest


        def logged_guard(execute, policy, approver, log):
            async def run(name, arguments_json):
                arguments = json.loads(arguments_json)
                ruling = policy.judge(name, arguments)
                outcome, by, why = {"allow": "allowed", "deny": "denied"}.get(ruling.decision), ruling.decided_by, ""
                if ruling.decision == "ask":
                    by, why = approver.who, ruling.decided_by
                    try:
                        ok = await approver(ApprovalRequest(name, arguments, "write"))
                        outcome = "approved" if ok else "rejected"
                    except TimeoutError:
                        outcome = "timed out"
                log.record(name, arguments, outcome, by, asked_because=why)
                if outcome in ("allowed", "approved"):
                    return execute(name, arguments_json)
                return f"{name} was not run ({outcome}): " + {"denied": "denied", "rejected": "rejected",
                                                              "timed out": "no answer in time"}[outcome]

            return run
    """.replace('"write"', "policy.risk(name)"))


LOGGED = """
import json

from course.approval import ApprovalRequest


def logged_guard(execute, policy, approver, log):
    async def guarded_execute(name, arguments_json):
        arguments = json.loads(arguments_json)
        ruling = policy.judge(name, arguments)
        if ruling.decision == "deny":
            {deny_log}
            return f"{{name}} was not run: denied."
        if ruling.decision == "ask":
            {before_asking}
            try:
                approved = await approver(ApprovalRequest(name, arguments, policy.risk(name)))
            except TimeoutError:
                log.record(name, arguments, {timed_out}, approver.who, ruling.decided_by)
                return f"{{name}} was not run: nobody answered in time."
            {answer_log}
            if not approved:
                return f"{{name}} was not run: rejected."
        else:
            log.record(name, arguments, "allowed", ruling.decided_by)
        return execute(name, json.dumps(arguments))

    return guarded_execute
"""


def logged(deny_log='log.record(name, arguments, "denied", ruling.decided_by)', before_asking="",
           timed_out='"timed out"',
           answer_log='log.record(name, arguments, "approved" if approved else "rejected", approver.who, '
                      'ruling.decided_by)') -> str:
    return LOGGED.format(deny_log=deny_log, before_asking=before_asking, timed_out=timed_out,
                         answer_log=answer_log)


def test_log_check_accepts_the_template_used_below():
    passes("l4-log", logged())


@pytest.mark.parametrize("source, hint", [
    (logged(deny_log="pass", timed_out='"rejected"',
            answer_log='if approved:\n                log.record(name, arguments, "approved", approver.who, '
                       'ruling.decided_by)'), "the log has no entry for a call the policy denies"),
    (logged(answer_log='if approved:\n                log.record(name, arguments, "approved", approver.who, '
                       'ruling.decided_by)'), "the log has no entry for a call the approver rejected"),
    (logged(before_asking='log.record(name, arguments, "ask", ruling.decided_by)'), "one entry per call"),
    (logged(timed_out='"rejected"'), "the decision should be 'timed out'"),
    (logged(answer_log='log.record(name, arguments, "approved" if approved else "rejected", ruling.decided_by)'),
     "name the approver"),
], ids=["only-what-ran", "rejections-missing", "ask-and-answer-both-logged", "timeout-logged-as-rejected",
        "human-decisions-credited-to-the-policy"])
def test_log_refuses_a_log_that_only_looks_right(source, hint):
    fails_with("l4-log", source, hint)


def test_log_still_checks_the_guard_itself():
    ask = '        if ruling.decision == "ask":'
    fails_with("l4-log", logged().replace(ask, "        execute(name, arguments_json)\n" + ask), "reached the tool")


# -- l4-allowlist -------------------------------------------------------------------------------------
def test_allowlist_accepts_a_class_whose_instances_are_rules():
    passes("l4-allowlist", """
        class only:
            def __init__(self, allowed):
                self.allowed = frozenset(allowed)

            def __call__(self, name, arguments):
                return None if name in self.allowed else "deny"
    """)


@pytest.mark.parametrize("source, hint", [
    ("def only(allowed):\n    return lambda name, arguments: None if any(name.startswith(a) for a in allowed) "
     "else 'deny'\n", "only looks like one on the list"),
    ("ALLOWED = set()\n\n\ndef only(allowed):\n    ALLOWED.clear()\n    ALLOWED.update(allowed)\n"
     "    return lambda name, arguments: None if name in ALLOWED else 'deny'\n", "keep its own allowlist"),
    ("def only(allowed):\n    return lambda name, arguments: 'allow' if name in allowed else 'deny'\n",
     "it should give None"),
    ("def only(allowed):\n    return lambda name, arguments: None if name.lower() in {a.lower() for a in allowed} "
     "else 'deny'\n", "differ in case"),
    (SNIFFER + "\n\ndef only(allowed):\n    return lambda name, arguments: _peek(None)\n", "it should give 'deny'"),
], ids=["prefix-match", "one-global-list", "allows-instead-of-passing", "ignores-case", "reads-the-checks-variables"])
def test_allowlist_refuses_a_rule_that_only_looks_right(source, hint):
    fails_with("l4-allowlist", source, hint)


# -- answers that lie: equal to anything, so a check that trusted `==` passed them ----------------------------
TEXT_THAT_HOLDS_ANYTHING = """
class _Text(_Any):
    def lower(self):
        return self
"""


@pytest.mark.parametrize("id, source, hint", [
    ("l4-refund-limit", lying("l4-refund-limit", 'return "allow" if number and amount <= 50 else "ask"',
                              'return _Any("allow")'), "but should give 'ask'"),
    ("l4-policy", LIARS + "def decide(name, arguments, risks, allowlist=None, rules=()):\n    return _Any('allow')\n",
     "should get 'ask'"),
    ("l4-policy", LIARS + "def decide(name, arguments, risks, allowlist=None, rules=()):\n    return _Liar()\n",
     "it returns one of 'allow', 'deny' or 'ask'"),
    ("l4-allowlist", LIARS + "def only(allowed):\n    return lambda name, arguments: _Any('allow')\n",
     "it should give None"),
    ("l4-guard", lying("l4-guard", 'return f"{name} was not run: this action is denied here. Do not retry; tell the '
                                   'user."', 'return _Text("")', TEXT_THAT_HOLDS_ANYTHING),
     "the message should name the tool, say it was 'not run'"),
    ("l4-log", lying("l4-log", 'log.record(name, arguments, "denied", ruling.decided_by)',
                     'log.record(name, arguments, _Any("allowed"), _Any(""))'), "the decision should be 'denied'"),
    ("l4-log", lying("l4-log", 'log.record(name, arguments, "denied", ruling.decided_by)',
                     'log.record(name, arguments, _Liar(), ruling.decided_by)'),
     "a log entry's `decision` is an object of class _Liar, not plain data"),
    ("l4-refund-limit", LIARS + """
class _Fifty(_AnyFloat):
    def __le__(self, other):
        return True


def refund_limit(name, arguments):
    if name != "issue_refund":
        return None
    if "amount" not in arguments:
        return "ask"
    arguments["amount"] = _Fifty(1.0)  # equal to the amount it replaces, and to 50: the check's answer is 'allow'
    return "allow"
""", "your function changed the arguments it was given"),
], ids=["refund-limit", "policy", "policy-no-str-at-all", "allowlist", "guard-messages", "log-decisions",
        "log-decision-no-str-at-all", "refund-limit-rewrites-the-amount"])
def test_lesson_4_answers_that_lie_about_equality_go_to_review_by_the_graders_vocabulary_rule(id, source, hint):
    del hint  # what the check said while plain() guarded it: now the grader's rule does
    reviewed(id, source)


def test_guard_is_judged_by_the_checks_own_policy_not_the_one_the_guard_was_given():
    fails_with("l4-guard", lying("l4-guard", "    async def guarded_execute(name, arguments_json):\n", """\
    policy.allowlist, policy.rules, policy.risks = None, [], {}  # everything is 'read', so everything may run

    async def guarded_execute(name, arguments_json):
        policy.risks[name] = "read"
        return execute(name, arguments_json)

    async def unused(name, arguments_json):
"""), "a call the policy denies reached the tool")
