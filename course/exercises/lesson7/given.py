"""What lesson 7's notebook has imported before each exercise cell: a check runs it before the learner's cell."""

# tests/test_exercises_lessons.py compares it with the notebook's cells before each exercise.
GIVEN = """
from course.adapters import ToolCall, ToolResult, ModelTurn
"""
