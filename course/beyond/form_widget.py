"""Lesson 9: the elicitation form in JupyterLab, drawn from the requested schema (ipywidgets).

One widget per field (`forms.form_fields`): text, a number box, a checkbox, a dropdown for an enum
(showing a titled enum's titles, sending its values); required fields are starred, and each field's
description is shown under it, as the server wrote it (escaped): the human judges the question.
Send checks the answer against the schema first and shows what is wrong instead of sending;
Decline and Cancel answer at once. Like the approval widget it awaits a
Future a button resolves (ipykernel >= 7.4), with a timeout that cancels.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from typing import Any

from course.beyond.answer import CANCEL, DECLINE, Answer, parse
from course.beyond.forms import FormField, form_fields, problems


def field_widget(f: FormField) -> Any:
    import ipywidgets as w

    label = f.label + (" *" if f.required else "")
    style = {"description_width": "initial"}
    if f.kind == "boolean":
        return w.Checkbox(value=bool(f.default), description=label, indent=False)
    shown = list(zip(f.choice_labels or map(str, f.choices), f.choices, strict=True))
    if f.kind == "choices":
        return w.SelectMultiple(options=shown, value=tuple(f.default or ()), description=label, style=style)
    if f.kind == "choice":
        return w.Dropdown(options=[("", None), *shown], value=f.default, description=label, style=style)
    # Numbers are typed as text and parsed on Send: a FloatText would show 0 and send it unasked.
    value = "" if f.default is None else str(f.default)
    return w.Text(value=value, description=label, style=style)


def about(f: FormField) -> list[Any]:
    """The field's description as the server wrote it, in small print under it (none when it has none)."""
    import ipywidgets as w

    return [w.HTML(f"<small>{html.escape(f.about)}</small>")] if f.about else []


class FormAnswerer:
    def __init__(self, timeout: float = 600) -> None:
        self.timeout = timeout

    async def __call__(self, message: str, schema: dict, last: list[str]) -> Answer:
        import ipywidgets as w
        from IPython.display import display

        fields = form_fields(schema)
        inputs = {f.name: field_widget(f) for f in fields}
        status = w.HTML()
        send, decline, cancel = (w.Button(description=d) for d in ("Send", "Decline", "Cancel"))
        send.button_style = "primary"
        done: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()

        def on_send(_: Any) -> None:
            content = {f.name: parse(f.kind, inputs[f.name].value) if isinstance(inputs[f.name].value, str)
                       else list(inputs[f.name].value) if f.kind == "choices" else inputs[f.name].value
                       for f in fields if inputs[f.name].value not in (None, "", ())}
            wrong = problems(schema, content)
            if wrong:
                status.value = "<br>".join(html.escape(p) for p in wrong)  # stays open: nothing is sent
            elif not done.done():
                done.set_result(Answer("accept", content))

        send.on_click(on_send)
        def answer_with(choice: Answer) -> Callable[[Any], None]:
            def on_click(_: Any) -> None:
                if not done.done():
                    done.set_result(choice)
            return on_click

        decline.on_click(answer_with(DECLINE))
        cancel.on_click(answer_with(CANCEL))
        rows = [row for f in fields for row in (inputs[f.name], *about(f))]
        display(w.VBox([w.HTML(f"<b>{html.escape(message)}</b>"), *rows,
                        w.HBox([send, decline, cancel]), status]))
        try:
            answer = await asyncio.wait_for(done, self.timeout)
        except TimeoutError:
            answer = CANCEL
        for b in (send, decline, cancel, *inputs.values()):
            b.disabled = True
        status.value = {"accept": "sent", "decline": "declined", "cancel": "cancelled"}[answer.action]
        return answer
