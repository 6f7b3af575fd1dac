"""Checks for lesson 5's exercises (notebooks/05_mcp_server.ipynb), in the order the lesson builds things.

Each check talks to the learner's server in memory through the SDK's `Client`, exactly as the
notebook does. Beside the example the task shows, every check tries cases the learner has not
seen (random weights, countries, tracking numbers, budgets), so only a general solution passes;
hints name the mistake, never a hidden input.

| module | holds |
|---|---|
| `given` | what the notebook has imported before each exercise cell |
| `client` | talking to the learner's server, and the hints about what comes back |
| `cases` | made-up country codes and search answers |
| `declarations` | `l5-constrained-tool`, `l5-annotations` |
| `replies` | `l5-advice`, `l5-trim` |
| `budget` | `l5-budget` |
"""

# Importing the check modules registers their checks, in the order the lesson builds things.
from course.exercises.lesson5 import declarations, replies, budget  # isort: skip

__all__ = ["declarations", "replies", "budget"]
