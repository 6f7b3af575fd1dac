"""Measuring the course's agent (lesson 7) and its retrieval (lesson 3, held-out questions and hybrid ranking).

`agent` runs the agent over a question set and reports task success, tool choice, steps,
tokens and stop reasons; `ranking` holds the rankings compared beyond plain embeddings.
"""

from course.evaluation.agent import Question, Row, evaluate, failures, judge, load_questions, summary

__all__ = ["Question", "Row", "evaluate", "failures", "judge", "load_questions", "summary"]
