"""Every exception the course raises on purpose, under one base class.

    try:
        ...
    except CourseError as e:   # anything the course raises on purpose; the message says what to do
        print(e)

Two kinds, with two audiences:
- messages for the **model**: `ToolFailure` (a tool refuses, saying what to do instead) and
  `BadArguments` (a call's arguments cannot be read). A tool layer turns them into the text
  the model reads; they never stop a run.
- messages for **you**, the person running the code: the rest. `ApprovalFailed` stops a run on
  purpose: the agent loop lets it through instead of showing it to the model.
"""

from __future__ import annotations


class CourseError(Exception):
    """The base of every exception the course raises on purpose."""


# -- for the model ----------------------------------------------------------------------------------
class ToolFailure(CourseError):
    """A tool cannot do what was asked; the message says what went wrong and what to do next (lesson 1).

    Not the MCP SDK's `ToolError` (lesson 5): that one belongs to a server, this one to `Toolbox`.
    """


class BadArguments(CourseError):
    """A tool call's arguments cannot be read; `str()` is the one line the model reads instead.

    `raw` is a short excerpt of what was sent, for the decision log.
    """

    def __init__(self, message: str, raw: str = ""):
        super().__init__(message)
        self.raw = raw


# -- for the person running the code ------------------------------------------------------------------
class RuleError(CourseError, ValueError):
    """A policy rule crashed or returned something that is not a decision; `rule` names it (lesson 4)."""

    def __init__(self, message: str, rule: str):
        super().__init__(message)
        self.rule = rule


class ApprovalTimeout(CourseError, TimeoutError):
    """Nobody answered an approval prompt in time; `guarded` counts it as a rejection (lesson 4)."""


class ApprovalFailed(CourseError):
    """The approval step itself broke (an approver or a rule): nothing was run, and the run stops.

    The agent loop turns a tool's exceptions into messages for the model, but lets this one
    through: it is a message for the person running the code, not for the model.
    """


class ApprovalsExhausted(ApprovalFailed):
    """A scripted approver was asked more often than it has answers: the notebook or test is wrong."""


class StoreError(CourseError):
    """The store file cannot be used as it is; the message says how to fix it (lesson 4)."""
