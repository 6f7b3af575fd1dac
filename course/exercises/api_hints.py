"""What a 400 from the (scripted) API says about the learner's request, as a hint; and a scripted model that
stops a learner's code that keeps asking (lessons 1 and 2)."""

from __future__ import annotations

import openai

from course.exercises.registry import NotYet


def rejected(e: openai.BadRequestError) -> NotYet:
    """A request the API refused (HTTP 400), as a hint about what the learner's code sent."""
    detail = e.body.get("message", "") if isinstance(e.body, dict) else str(e)
    if "did not have response messages" in detail:
        hint = ("the model asked for several calls in one message: every call in message.tool_calls needs its "
                "own tool message (answer every one), right after the assistant's message, before the next request.")
    elif "must be a response to a preceeding message" in detail:
        hint = ("a tool message answers no call of the message before it. Append the assistant's message "
                "(message.model_dump(exclude_none=True)) first, then one tool message per call, with "
                "tool_call_id=call.id.")
    elif "tool_choice" in detail and "only allowed when 'tools'" in detail:
        hint = "tool_choice is only allowed together with tools: keep tools=tools in the request."
    elif "offered no tools" in detail:
        hint = "the model wants to call a tool, but your request offered none: pass tools=tools."
    elif "Invalid type for" in detail:
        hint = "a tool message's content must be text: the string execute(...) returns."
    else:
        return NotYet(f"the API refused a request (HTTP 400: {detail:.120}): look at what your request sends.")
    # "because" keeps what is wrong in the first stage of the hint (course/exercises/hints.py)
    return NotYet(f"the API refused a request (HTTP 400) because {hint}")


def capped(answer, most: int, hint: str):
    """A `ScriptedModel` that answers with `answer(body)`, and stops the learner's code with `hint` when it sends
    more than `most` requests (a loop that never ends would otherwise hang the check)."""
    from course.scripted import ScriptedModel

    def model(body: dict):
        if len(fake.requests) > most:
            raise NotYet(hint)
        return answer(body)

    fake = ScriptedModel(model)
    return fake
