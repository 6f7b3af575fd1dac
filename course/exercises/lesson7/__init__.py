"""Checks for lesson 7's exercises (notebooks/07_model_adapters.ipynb), in the order the lesson builds things.

Every check tries the learner's code on cases made up at random on each run (call ids, texts, error flags,
content parts of every kind), so a solution that only fits the notebook's example does not pass.

| module | holds |
|---|---|
| `given` | what the notebook has imported before each exercise cell |
| `cases` | call ids, sentences, MCP results with parts of every kind |
| `results` | `l7-read-response`, `l7-error-flag` |
| `stream` | `l7-stream` |
| `evaluation` | `l7-success-rate` |
"""

# Importing the check modules registers their checks, in the order the lesson builds things.
from course.exercises.lesson7 import results, stream, evaluation  # isort: skip

__all__ = ["results", "stream", "evaluation"]
