"""A human approves or rejects risky calls, between the agent loop and the tools (lesson 4).

    approve = choose_approver(scripted=[True, False])
    execute = guarded(toolbox.execute, policy=policy, approver=approve, log=log)
    result = await arun_agent(client, model, messages, tools=..., execute=execute)

An approver is any `async def approver(request: ApprovalRequest) -> bool`. Three come with
the course, one interface:

- `WidgetApprover` (`widget.py`): Approve / Reject buttons in JupyterLab, awaited inside the
  running cell (needs ipykernel 7.4+); nobody clicks within `timeout` seconds -> rejected;
  Interrupt ends the wait at once.
- `TerminalApprover` (`terminal.py`): asks on the keyboard; keys typed before the question are
  discarded.
- `ScriptedApprover` (`scripted.py`): answers written in the notebook, for tests and CI; fails
  loudly when they run out.

`choose_approver` (`choose.py`) picks one from the environment: `COURSE_APPROVER=widget|scripted|
terminal|yes|no` wins; otherwise `CI` means scripted, a Jupyter kernel means buttons, a terminal
means `input()`.

`guarded` (`guard.py`) puts the policy and the approver in front of `execute`. When the approval
step itself breaks (an approver crashes or answers something other than True/False, a rule
crashes, scripted answers run out), it logs an "error" and raises `ApprovalFailed`: the run stops
with a message for *you*, instead of the model reading it. `request.py` holds what is asked and
how it is shown: everything a model wrote is escaped before a human reads it.
"""

from course.approval.choose import APPROVERS, choose_approver
from course.approval.guard import (
                                     DENIED,
                                     NOT_OFFERED,
                                     REJECTED,
                                     TIMED_OUT,
                                     Guarded,
                                     guarded,
)
from course.approval.kernel import in_kernel, require_ipykernel_74
from course.approval.request import DEFAULT_TIMEOUT, ApprovalRequest, Approver
from course.approval.scripted import AutoApprover, ScriptedApprover
from course.approval.terminal import TerminalApprover
from course.approval.widget import WidgetApprover
from course.errors import ApprovalFailed, ApprovalInterrupted, ApprovalsExhausted, ApprovalTimeout

__all__ = ["APPROVERS", "DEFAULT_TIMEOUT", "DENIED", "NOT_OFFERED", "REJECTED", "TIMED_OUT",
           "ApprovalFailed", "ApprovalInterrupted", "ApprovalRequest", "ApprovalTimeout", "ApprovalsExhausted",
           "Approver", "AutoApprover", "Guarded", "ScriptedApprover", "TerminalApprover", "WidgetApprover",
           "choose_approver", "guarded", "in_kernel", "require_ipykernel_74"]
