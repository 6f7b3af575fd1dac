"""Checks for lesson 4's exercises (notebooks/04_permissions.ipynb), in the order the lesson builds things.

Every check calls the learner's code on calls it makes up as it runs (tool names, amounts, allowlists,
the approver's answers) from a thread of its own, and works out the right answers only afterwards
(`cases.apart`), so a lookup table or a function that reads its caller's variables fails. Hints name what
kind of call went wrong, never the call itself.

| module | holds |
|---|---|
| `given` | what the notebook has imported before each exercise cell |
| `cases` | made-up calls, a thread to run the learner's code in, a spy tool and an approver |
| `rules` | `l4-refund-limit`, `l4-allowlist` |
| `policy` | `l4-policy` |
| `guard` | `l4-guard`, `l4-log` |
"""

# Importing the check modules registers their checks, in the order the lesson builds things.
from course.exercises.lesson4 import rules, policy, guard  # isort: skip

__all__ = ["rules", "policy", "guard"]
