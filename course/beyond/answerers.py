"""Lesson 9: who answers an elicitation — a scripted answer (CI), the terminal, or a form (form_widget.py).

They work like the approvers of lesson 4 (course/approval/): the same notebook cell picks the form in
JupyterLab and the script under nbval. `elicitation_callback` puts the host's rules around any of
them: a question for a secret is declined without asking anyone, and an answer that breaks the
schema is never sent (the human is asked again, up to three times, then the call is cancelled).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mcp import types

from course.beyond.answer import CANCEL, DECLINE, Answer, parse
from course.beyond.forms import asks_for_secret, form_fields, problems

Answerer = Callable[[str, dict, list[str]], Awaitable[Answer]]  # (message, schema, problems last time)


class ScriptedAnswerer:
    """Answers given in advance, one per question, each printed; an empty script is a mistake, said clearly."""

    def __init__(self, answers: Iterable[Answer]) -> None:
        self.answers = list(answers)

    async def __call__(self, message: str, schema: dict, last: list[str]) -> Answer:
        if not self.answers:
            raise RuntimeError(f"the scripted answerer has no answer left for {message!r}: add one to its list.")
        answer = self.answers.pop(0)
        print(f"asked: {message} -> {answer.action}" + (f" {answer.content}" if answer.content else ""))
        return answer


class TerminalAnswerer:
    """Asks field by field on the terminal; an empty line for a field that is not required skips it."""

    async def __call__(self, message: str, schema: dict, last: list[str]) -> Answer:
        print(message, *last, sep="\n  ")
        choice = (await asyncio.to_thread(input, "[a]nswer, [d]ecline or [c]ancel? ")).strip().lower()
        if choice.startswith("d"):
            return DECLINE
        if not choice.startswith("a"):
            return CANCEL
        content: dict[str, Any] = {}
        for f in form_fields(schema):
            if f.about:
                print(f"  {f.label}: {f.about}")
            shown = [str(c) if str(c) == label else f"{c}={label}" for c, label in zip(f.choices, f.choice_labels,
                                                                                          strict=True)]
            hint = f" ({'/'.join(shown)})" if shown else ""
            text = (await asyncio.to_thread(input, f"{f.label}{hint}{'*' if f.required else ''}: ")).strip()
            if text:
                content[f.name] = parse(f.kind, text)
        return Answer("accept", content)


@dataclass
class Asked:
    """What the host's log keeps of one question: never the answer's content (it may be personal)."""

    message: str
    outcome: str
    fields: list[str] = field(default_factory=list)


def elicitation_callback(answerer: Answerer, log: list[Asked] | None = None, tries: int = 3) -> Callable[..., Any]:
    """An `elicitation_callback` for `mcp.Client`: the host's rules around `answerer`."""
    log = [] if log is None else log

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        schema = getattr(params, "requested_schema", None)
        if schema is None:  # URL mode: the host does not open links a server sends
            log.append(Asked(params.message, "declined: URL elicitation is not supported"))
            return types.ElicitResult(action="decline")
        try:
            form_fields(schema)
        except ValueError as e:  # a schema no form can draw: nobody is asked
            log.append(Asked(params.message, f"declined: {e}"))
            return types.ElicitResult(action="decline")
        secret = asks_for_secret(params.message, schema)
        if secret:
            log.append(Asked(params.message, f"refused: it asks for a secret ({secret!r})"))
            return types.ElicitResult(action="decline")
        last: list[str] = []
        for _ in range(tries):
            answer = await answerer(params.message, schema, last)
            if answer.action != "accept":
                log.append(Asked(params.message, answer.action))
                return types.ElicitResult(action=answer.action)
            last = problems(schema, answer.content or {})
            if not last:
                log.append(Asked(params.message, "accepted", sorted(answer.content or {})))
                return types.ElicitResult(action="accept", content=answer.content)
        log.append(Asked(params.message, f"cancelled: {tries} answers broke the form ({'; '.join(last)})"))
        return types.ElicitResult(action="cancel")

    callback.log = log  # type: ignore[attr-defined]
    return callback


def choose_answerer(scripted: Iterable[Answer] = (), *, timeout: float = 600) -> Answerer:
    """COURSE_APPROVER=scripted|terminal|widget decides, as for approvals; else CI → script, kernel → form."""
    how = os.environ.get("COURSE_APPROVER", "")
    if how == "scripted" or (not how and (os.environ.get("CI") or os.environ.get("COURSE_HEADLESS"))):
        return ScriptedAnswerer(scripted)
    if how == "terminal" or (not how and "ipykernel" not in sys.modules and sys.stdin.isatty()):
        return TerminalAnswerer()
    if how in ("widget", "") and "ipykernel" in sys.modules:
        from course.beyond.form_widget import FormAnswerer
        return FormAnswerer(timeout=timeout)
    return ScriptedAnswerer(scripted)
