# EXERCISE l4-log
import json

from course.approval import ApprovalRequest


def logged_guard(execute, policy, approver, log):
    async def guarded_execute(name, arguments_json):
        arguments = json.loads(arguments_json)
        ruling = policy.judge(name, arguments)
        if ruling.decision == "deny":
            log.record(name, arguments, "denied", ruling.decided_by)
            return f"{name} was not run: this action is denied here. Do not retry; tell the user."
        if ruling.decision == "ask":
            who = getattr(approver, "who", "human")
            try:
                approved = await approver(ApprovalRequest(name, arguments, policy.risk(name), ruling.decided_by))
            except TimeoutError:
                log.record(name, arguments, "timed out", who, ruling.decided_by)
                return f"{name} was not run: nobody approved it in time. Do not retry without a new request."
            log.record(name, arguments, "approved" if approved else "rejected", who, ruling.decided_by)
            if not approved:
                return f"{name} was not run: the user rejected it. Do not retry without a new request."
        else:
            log.record(name, arguments, "allowed", ruling.decided_by)
        return execute(name, json.dumps(arguments))

    return guarded_execute
