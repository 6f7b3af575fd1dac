# EXERCISE l4-assemble (nothing to write: your pieces are the exercise cells above;
# graded, this cell runs after them, and the next cell runs them together)
# ruff: noqa: E402, F811 - each piece is a cell, with its own imports


# the reference piece of l4-refund-limit
import math


def refund_limit(name, arguments):
    if name != "issue_refund":
        return None  # not about refunds: leave it to the next rule or the risk
    amount = arguments.get("amount")
    number = isinstance(amount, (int, float)) and not isinstance(amount, bool) and not math.isnan(amount)
    return "allow" if number and amount <= 50 else "ask"


# the reference piece of l4-policy
def decide(name, arguments, risks, allowlist=None, rules=()):
    if allowlist is not None and name not in allowlist:
        return "deny"  # off the list: nothing may open it, no rule and no risk
    for rule in rules:
        decision = rule(name, arguments)
        if decision is not None:
            return decision  # the first rule with an opinion decides
    return "allow" if risks.get(name) == "read" else "ask"  # undeclared counts as write: ask


# the reference piece of l4-guard
import json

from course.approval import ApprovalRequest


def guard(execute, policy, approver):
    async def guarded_execute(name, arguments_json):
        arguments = json.loads(arguments_json)
        decision = policy.decide(name, arguments)
        if decision == "deny":
            return f"{name} was not run: this action is denied here. Do not retry; tell the user."
        if decision == "ask":
            try:
                approved = await approver(ApprovalRequest(name, arguments, policy.risk(name)))
            except TimeoutError:
                return f"{name} was not run: nobody approved it in time. Do not retry without a new request."
            if not approved:
                return f"{name} was not run: the user rejected it. Do not retry without a new request."
        return execute(name, json.dumps(arguments))  # exactly what was judged and shown

    return guarded_execute


# the reference piece of l4-allowlist
def only(allowed):
    allowed = set(allowed)  # a copy: changing the caller's set later changes nothing

    def allowlist(name, arguments):
        return None if name in allowed else "deny"

    return allowlist
