"""What lesson 9's notebook has imported before its exercise cells (given_exactly=False: what the checks assume)."""

GIVEN = """
from course.exercises import check, hint
"""
