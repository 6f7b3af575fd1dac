"""What a 400 from the (scripted) API says about the learner's request, as a hint; and a scripted model that
stops a learner's code that keeps asking (lessons 1 and 2)."""

from __future__ import annotations

import openai

from course.exercises.hints import refused
from course.exercises.registry import NotYet


def rejected(e: openai.BadRequestError) -> NotYet:
    """A request the API refused (HTTP 400), as a hint about what the learner's code sent."""
    problem, how = refused(e)
    return NotYet(problem, how)


def capped(answer, most: int, problem: str, how: str):
    """A `ScriptedModel` that answers with `answer(body)`, and stops the learner's code with a hint (what is wrong,
    how to go about it) when it sends more than `most` requests (a loop that never ends would otherwise hang the
    check)."""
    from course.scripted import ScriptedModel

    def model(body: dict):
        if len(fake.requests) > most:
            raise NotYet(problem, how)
        return answer(body)

    fake = ScriptedModel(model)
    return fake
