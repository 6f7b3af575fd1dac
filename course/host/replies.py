"""What the model reads when a call to a server did not give a normal answer (lesson 6).

Each text says what happened and what to do next, in the host's own words: what the server
wrote (its stderr, its error message) goes to the person running the host, never to the model.
Two exceptions, for a call the server turned away before it ran: its reason for invalid params
(-32602), and its refusal for now (-32029, a fair share), when that is one plain line
(`errors.clear_words`): the model can act on it, by fixing the arguments or by waiting.
"""

from __future__ import annotations

from course.errors import CallRefused, CallRejected, CallTimedOut, ServerError


def unavailable(error: ServerError) -> str:
    return f"Error: {error.problem} Do not retry this call; tell the user this tool is not available right now."


def call_failed(error: ServerError, tool: str, read_only: bool) -> str:
    """What the model reads when a call was sent but no normal answer came back."""
    if isinstance(error, CallRejected):  # turned away before it ran: better arguments can work
        return f"Error: {error.problem} It was not run: fix the arguments and call {tool} again."
    if isinstance(error, CallRefused):  # turned away for now: the same call may work later
        return (f"Error: {error.problem} It was not run: call {tool} again once your earlier calls have "
                "finished, or tell the user the server is busy.")
    if isinstance(error, CallTimedOut):  # the server may still be working on it
        if read_only:
            return f"Error: {error.problem} Tell the user this is not available right now."
        return (f"Error: {error.problem} It may or may not have run: check before retrying "
                "(look the record up if you can), and tell the user.")
    if read_only:
        return unavailable(error)
    return (f"Error: {error.problem} It may or may not have run. Do not retry this call; tell the user "
            "this tool is not available right now and that it must be checked.")


def outcome_of(error: ServerError) -> str:
    """The decision log's word for a call that went wrong."""
    if isinstance(error, CallRejected):
        return "rejected by the server"
    if isinstance(error, CallRefused):
        return "refused by the server for now"
    return "no answer in time" if isinstance(error, CallTimedOut) else "failed in the server"
