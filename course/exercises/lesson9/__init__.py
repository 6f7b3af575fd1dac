"""Checks for lesson 9's exercises (notebooks/09_beyond_tools.ipynb), in the order the lesson builds things.

Each check tries the learner's code on schemas, answers and results it makes up as it runs, so only
code that does the job in general passes; the course's own code (course/beyond/) is the reference.

| module | holds |
|---|---|
| `given` | what the notebook has imported before the exercises |
| `cases` | made-up elicitation schemas, answers and output schemas |
| `forms` | `l9-form-fields`, `l9-answer-problems`, `l9-secret-question` |
| `results` | `l9-structured-result` |
| `progress` | `l9-progress-line` |
| `tokens` | `l9-token-check` |
"""

# Importing the check modules registers their checks, in the order the lesson builds things.
from course.exercises.lesson9 import forms, results, progress, tokens  # isort: skip

__all__ = ["forms", "progress", "results", "tokens"]
