"""The model id the course asks for (lesson 1): `MODEL`, unless COURSE_MODEL names another.

Below both `course.backend` (which connects to a model) and `course.scripted` (which answers to this id as well
as its own name), so that neither imports the other; `course.backend` re-exports both names.
"""

from __future__ import annotations

import os

MODEL = "gpt-5.5"  # the one place the model id is defined; COURSE_MODEL overrides it


def model_id() -> str:
    return os.environ.get("COURSE_MODEL") or MODEL
