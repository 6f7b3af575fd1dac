"""Checks for lesson 1's exercises (notebooks/01_tool_calling.ipynb), in the order the lesson builds things.

Every check tries the learner's code on the notebook's example and on cases made up at random
when the check runs (tool names, fields, order numbers, call ids), so only code that does the
job in general passes. Hints say what is wrong, then how to go about it.

| module | holds |
|---|---|
| `given` | what the notebook has imported before each exercise cell |
| `cases` | the tools, calls and schemas the checks make up |
| `definitions` | `l1-tool-definition`, `l1-refund-params` |
| `round_trip` | `l1-tool-message`, `l1-round-trip` |
| `bad_calls` | `l1-bad-calls` |
"""

# Importing the check modules registers their checks, in the order the lesson builds things.
from course.exercises.lesson1 import definitions, round_trip, bad_calls  # isort: skip

__all__ = ["definitions", "round_trip", "bad_calls"]
