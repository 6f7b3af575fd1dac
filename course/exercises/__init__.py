"""Checked exercises, used by every lesson: `check("lN-x")` in a notebook, `@exercise` in lessonN/.

A failed check shows what is wrong; `hint("lN-x")` shows the next stage of its hint (`hints.py`).

The registry and the in-notebook API live in `registry.py`; grading learners' notebooks in a
sandbox lives in `course.grading` (`python -m course.grading`), which builds on this package, never the
other way round (the layer contract in pyproject.toml).
"""

from course.exercises.hints import hint
from course.exercises.registry import (
    MARKER,
    REGISTRY,
    DuplicateExercise,
    Exercise,
    NotYet,
    Verdict,
    check,
    check_source,
    exercise,
    exercise_cells,
    judge,
    load_all,
    run_async,
    run_cell,
    run_check,
)

__all__ = ["MARKER", "REGISTRY", "DuplicateExercise", "Exercise", "NotYet", "Verdict", "check", "check_source",
           "exercise", "exercise_cells", "hint", "judge", "load_all", "run_async", "run_cell", "run_check"]
