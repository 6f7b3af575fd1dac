"""Grading learners' notebooks in a sandbox, with feedback for the mentor (`python -m course.grading`).

sandbox.py (where learner code runs and what protects the mentor), supervisor.py and worker.py
(the two processes inside a sandbox; worker.py forks a process per exercise), fingerprints.py (what
a cell could patch), reaping.py (ending what a cell left running), runner.py (a class, `-j N`
learners at a time), report.py (feedback files, class CSV), cli.py (the command line).
"""

from course.grading.runner import Learner, Result, grade_class
from course.grading.sandbox import Limits, Sandbox, SandboxError

__all__ = ["Learner", "Limits", "Result", "Sandbox", "SandboxError", "grade_class"]
