"""Approvers that need nobody at the keyboard: answers written in advance, or always the same one."""

from __future__ import annotations

from dataclasses import dataclass, field

from course.approval.request import ApprovalRequest
from course.errors import ApprovalsExhausted


@dataclass
class ScriptedApprover:
    """Answers given in advance, in order; prints each decision. For tests, CI and `make test`."""

    answers: list[bool]
    asked: list[tuple[ApprovalRequest, bool]] = field(default_factory=list)
    who = "scripted answer"

    def __post_init__(self) -> None:
        self.answers = list(self.answers)
        bad = [a for a in self.answers if not isinstance(a, bool)]
        if bad:
            raise TypeError(f"scripted answers must be True (approve) or False (reject), got {bad!r}.")

    async def __call__(self, request: ApprovalRequest) -> bool:
        n = len(self.asked) + 1
        if not self.answers:
            raise ApprovalsExhausted(
                f"Scripted approver: approval {n} was requested for {request}, but only {n - 1} scripted "
                f"answer(s) were given. Each answer is used once: if you are running a cell again, re-run "
                f"the choose_approver cell first. Otherwise add an answer, e.g. "
                f"choose_approver(scripted=[..., False]), or run the notebook in JupyterLab with "
                f"COURSE_APPROVER=widget to click Approve/Reject yourself.")
        answer = self.answers.pop(0)
        self.asked.append((request, answer))
        print(f"[scripted approver] {'approved' if answer else 'rejected'}: {request}")
        return answer


@dataclass
class AutoApprover:
    """Always the same answer (`COURSE_APPROVER=yes` or `no`); the decision log still records each call."""

    answer: bool

    @property
    def who(self) -> str:
        return f"COURSE_APPROVER={'yes' if self.answer else 'no'}"

    async def __call__(self, request: ApprovalRequest) -> bool:
        return self.answer
