# EXERCISE l4-guard
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
