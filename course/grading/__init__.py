"""Grading learners' notebooks in a sandbox, with feedback for the mentor (`python -m course.grading`).

sandbox.py (where learner code runs and what protects the mentor), supervisor.py and worker.py
(the two processes inside a sandbox), runner.py (a class, `-j N` at a time), report.py (feedback
files, class CSV), cli.py (the command line).
"""

from course.grading.runner import Learner, Result, grade_class
from course.grading.sandbox import Limits, Sandbox, SandboxError

__all__ = ["Learner", "Limits", "Result", "Sandbox", "SandboxError", "grade_class"]
