"""Grading learners' notebooks in a sandbox, with the evidence a mentor reads (`python -m course.grading`).

sandbox.py (the boundary: bubblewrap, and the supervisor outside it), worker.py (inside: a process per
exercise), vocabulary.py (what a pass may use; changes.py: what a cell changes), runner.py (a class, `-j N`
learners at a time), report.py (the overview, a page per learner, class.csv, copies, mentor feedback), cli.py
(the command line).
"""

from course.grading.runner import Grade, Learner, grade_class
from course.grading.sandbox import Sandbox, SandboxError, SandboxLimits

__all__ = ["Grade", "Learner", "Sandbox", "SandboxError", "SandboxLimits", "grade_class"]
