"""Checks for lesson 8's exercises (notebooks/08_architecture_and_security.ipynb), in the order the lesson builds
things.

Each check tries the learner's code on cases made up when it runs (order numbers, tool names,
tokens), so only code that does the job in general passes; hints say what is wrong and how to
go about it. MCP checks run on an event loop of their own, in a worker thread.

| module | holds |
|---|---|
| `given` | what the notebook has imported before each exercise cell |
| `cases` | made-up order numbers and names |
| `architecture` | `l8-resource-template`, `l8-route-tenant` |
| `security` | `l8-injection-rule`, `l8-changed-tool` |
"""

# Importing the check modules registers their checks, in the order the lesson builds things.
from course.exercises.lesson8 import architecture, security  # isort: skip

__all__ = ["architecture", "security"]
