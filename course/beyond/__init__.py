"""Lesson 9 (notebooks/09_beyond_tools.ipynb): MCP beyond tools — elicitation, structured output, progress and
cancellation, tasks, OAuth 2.1, for the shop desk. The host's side of tasks is `course/host/tasks.py`.

| module | holds |
|---|---|
| `forms` | the form's fields from a requested schema, an answer's problems, the secret rule |
| `answer` | what a human answers (accept, decline, cancel), typed text read as a value |
| `answerers` | scripted, terminal and form answerers, and the host's elicitation callback |
| `form_widget` | the ipywidgets form |
| `structured` | a result checked against its outputSchema, and what the model reads |
| `progress` | a progress line or bar |
| `tasks` | a server's side of MCP tasks (2025-11-25): the shop's `TaskRunner` middleware |
| `shop` | the lesson's server |
| `desk` | the course host (`McpHost`) on the lesson's server, with all of the above |
| `authserver` | the local authorization server's provider (clients, consent, tokens) |
| `protected` | the docs and desk servers as OAuth protected resources, served in memory |
| `oauth_flow` | the host's side: discovery, PKCE, sign-in, refresh |
"""

from course.beyond.answer import CANCEL, DECLINE, Answer, accept
from course.beyond.answerers import Asked, ScriptedAnswerer, choose_answerer
from course.beyond.desk import Desk
from course.beyond.forms import FormField, asks_for_secret, form_fields, problems
from course.beyond.progress import ProgressLine, progress_display, progress_text
from course.beyond.structured import BrokenResult, for_model, structure_problems

__all__ = ["CANCEL", "DECLINE", "Answer", "Asked", "BrokenResult", "Desk", "FormField", "ProgressLine",
           "ScriptedAnswerer", "accept", "asks_for_secret", "choose_answerer", "for_model", "form_fields",
           "problems", "progress_display", "progress_text", "structure_problems"]
