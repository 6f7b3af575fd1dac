"""Checks for lesson 2's exercises (notebooks/02_agent_loop.ipynb), in the order the lesson builds things.

Every check runs the learner's code on cases made up when it runs (limits, budgets, tool names,
arguments, models that call those tools), so only code that does the job in general passes.
Hints say what is wrong, then how to go about it.

| module | holds |
|---|---|
| `given` | what the notebook has imported before each exercise cell |
| `cases` | made-up tools, models that call them, and a loop to compare with |
| `limits` | `l2-limit-reached` |
| `loop` | `l2-agent-loop` |
| `repeats` | `l2-repeat-key`, `l2-skip-repeats` |
| `finish` | `l2-finish` |
"""

# Importing the check modules registers their checks, in the order the lesson builds things.
from course.exercises.lesson2 import limits, loop, repeats, finish  # isort: skip

__all__ = ["limits", "loop", "repeats", "finish"]
