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

__all__ = ["ServerError"]


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


class ApprovalInterrupted(ApprovalFailed):
    """Someone pressed Interrupt (or Ctrl+C) while a prompt waited: nothing was run, and the run stops.

    Not a `KeyboardInterrupt`: asyncio lets that escape the event loop, which would stop the kernel's.
    """

    def _render_traceback_(self) -> list[str]:
        # IPython shows these lines instead of a traceback: the learner pressed Interrupt on purpose.
        return [f"Interrupted: {self}"]


class StoreError(CourseError):
    """The store file cannot be used as it is; the message says how to fix it (lesson 4)."""


class ModelUnavailable(CourseError, RuntimeError):
    """sentence-transformers or the model files cannot be loaded; the message says what to install."""


# -- for the MCP host (lesson 6) ---------------------------------------------------------------------
class ServerError(CourseError):
    """A server could not be reached or stopped working. `str()` says what to check.

    `problem` is the host's own sentence: the only part a model may read. `details` is what the
    server said or wrote (its stderr, its error message): for the person running the host only,
    since a traceback can carry a password.
    """

    def __init__(self, server: str, problem: str, check: str, details: str = ""):
        super().__init__(f"{server}: {problem}{details}\n  Check: {check}")
        self.server, self.problem, self.check, self.details = server, problem, check, details


class CallTimedOut(ServerError):
    """A tool call got no answer in time; the connection is still fine (the call may still be running)."""


class CallRejected(ServerError):
    """The server refused a call's arguments (JSON-RPC -32602): nothing ran; fixed arguments may work."""


TOO_MANY_REQUESTS = -32029  # a server error code (JSON-RPC leaves -32000..-32099 to servers); HTTP's is 429


class CallRefused(ServerError):
    """The server turned a call away before it ran, for now (`TOO_MANY_REQUESTS`: the class server's fair
    share, course/classroom/limits.py): nothing ran; the same call may work once earlier ones are done."""


# -- for learners and mentors: exercises and grading -------------------------------------------------
class NotYet(CourseError):
    """Raised by a check: the solution is not there yet. The message is the hint."""


class DuplicateExercise(CourseError, ValueError):
    """Two different checks registered under one exercise id (ids are grade ids: they must be unique)."""


class SandboxError(CourseError, RuntimeError):
    """The sandbox asked for cannot run here (e.g. `--sandbox bwrap` without bubblewrap)."""
