"""Checks for lesson 6's exercises (notebooks/06_mcp_client.ipynb): the learner writes the MCP client itself.

Each check runs the learner's async code on an event loop of its own in a worker thread (the notebook's
loop is busy running the check cell), against the course's document server in memory and against servers
made up as it runs (`cases`), so only a general solution passes. Hints say what went wrong, never a hidden
input.

| module | holds |
|---|---|
| `given` | what the notebook has imported before each exercise cell |
| `cases` | the document server in memory, made-up servers (pages, annotations, a failing and a slow tool) |
| `client` | `l6-list-tools` |
| `convert` | `l6-to-openai` |
| `result` | `l6-result-text` |
| `execute` | `l6-execute` |
| `agent` | `l6-agent` |
"""

# Importing the check modules registers their checks, in the order the lesson builds things.
from course.exercises.lesson6 import client, convert, result, execute, agent  # isort: skip

__all__ = ["client", "convert", "result", "execute", "agent"]
