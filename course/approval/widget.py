"""Approve / Reject buttons in JupyterLab, awaited inside the running cell (lesson 4)."""

from __future__ import annotations

import asyncio
import functools
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from course.approval.display import capped, collapsed
from course.approval.kernel import interrupt_calls, require_ipykernel_74
from course.approval.request import DEFAULT_TIMEOUT, ApprovalRequest
from course.errors import ApprovalInterrupted, ApprovalTimeout
from course.show import printable

RETRY = "nothing was run. To be asked again, run this cell again."


@dataclass
class WidgetApprover:
    """Approve / Reject buttons in JupyterLab, awaited inside the running cell.

    Needs ipykernel 7.4+: older kernels cannot deliver a button click while a cell is
    running, so the cell would hang. The timeout turns a forgotten prompt into a rejection;
    Interrupt (the ■ button) ends the wait at once.
    """

    timeout: float = DEFAULT_TIMEOUT
    who = "human (buttons)"

    async def __call__(self, request: ApprovalRequest) -> bool:
        require_ipykernel_74()
        choice: asyncio.Future[bool | None] = asyncio.get_running_loop().create_future()

        def settle(value: bool | None) -> None:  # the first click, or Interrupt, decides
            if not choice.done():
                choice.set_result(value)

        prompt = Prompt(request, self.timeout, answer=settle)
        with interrupt_calls(lambda: settle(None)):
            try:
                approved = await asyncio.wait_for(choice, self.timeout)
            except TimeoutError:
                prompt.close(f"<b>timed out</b>: no decision within {self.timeout:g} s, so it counts as "
                             f"rejected; {RETRY}")
                raise ApprovalTimeout(f"no click within {self.timeout:g} s") from None
            except asyncio.CancelledError:
                prompt.close(f"<b>interrupted</b>: {RETRY}")
                raise
        if approved is None:
            prompt.close(f"<b>interrupted</b>: {RETRY}")
            raise ApprovalInterrupted(f"the prompt for {request.tool} was cancelled, so nothing was run.")
        prompt.close(f"<b>{'approved' if approved else 'rejected'}</b>")
        return approved


class Prompt:
    """The question on screen: the request, two buttons, a status line; scrolled into view."""

    def __init__(self, request: ApprovalRequest, timeout: float, answer: Callable[[bool], Any]):
        import ipywidgets as w
        from IPython.display import display

        loop = asyncio.get_running_loop()

        def on(value: bool) -> Callable[[Any], None]:
            def clicked(_button: Any) -> None:  # a click may arrive on another thread: hand it to the loop
                loop.call_soon_threadsafe(answer, value)
            return clicked

        self.request = request
        # The buttons name the tool and its risk again: a long table above cannot hide what they approve.
        self.ok = w.Button(description=f"Approve {capped(printable(collapsed(request.tool)), 40)} "
                                       f"[{printable(request.risk)}]",
                           button_style="success", icon="check", layout=w.Layout(width="auto"))
        self.no = w.Button(description="Reject", button_style="danger", icon="times")
        self.full = w.Button(description="Show full values", icon="eye", layout=w.Layout(width="auto"))
        self.ok.on_click(on(True))
        self.no.on_click(on(False))
        self.status = w.HTML(f"Waiting for your decision (rejected automatically after {timeout:g} s; "
                              "Interrupt ■ stops waiting)…")
        table = w.HTML(request.html())
        self.full.on_click(lambda _button: setattr(table, "value", request.html(full=True)))
        self.box = _box_class()([table, w.HBox([self.ok, self.no, self.full]), self.status])
        self.box.text = f"Approval prompt: {request} [{request.risk}]"
        marker = f"course-approval-{secrets.token_hex(4)}"
        self.box.add_class(marker)
        self.shown = display(self.box, display_id=True)
        # Empty text beside the script: a tab reopened later, which does not run it, shows nothing.
        self.scroll = display({"application/javascript": scroll_into_view(marker), "text/plain": ""},
                              raw=True, display_id=True)

    def close(self, decision: str) -> None:
        """Lock the buttons and leave plain text behind: it still reads right after save and reopen."""
        self.ok.disabled = self.no.disabled = self.full.disabled = True  # one decision per prompt
        self.status.value = f"Decision: {decision}"
        plain = f"{self.box.text}. Decision: {decision.replace('<b>', '').replace('</b>', '')}"
        if self.shown is not None:
            self.shown.update({"text/html": f"{self.request.html()}<p>Decision: {decision}</p>",
                               "text/plain": plain}, raw=True)
        if self.scroll is not None:
            self.scroll.update({"text/plain": ""}, raw=True)
        # The widget stays open: a tab reloaded from a file saved while it waited still shows it, decided.


@functools.cache
def _box_class() -> type:
    import ipywidgets as w

    class PromptBox(w.VBox):
        """A VBox whose stored text says what it asks, instead of `VBox(children=(HTML(...`."""

        text = ""

        def __repr__(self) -> str:
            return self.text

    return PromptBox


def scroll_into_view(marker: str) -> str:
    """Script for JupyterLab: bring the prompt on screen, and keep it there until the page settles.

    Run All leaves the view at the last cell. One `scrollIntoView` is not enough: JupyterLab
    lays out the cells it scrolls past only then (their height was a guess), which pushes the
    prompt back below the screen. So the script checks every 0.1 s and scrolls again until the
    prompt has stayed in view for half a second (or 15 s have passed).
    """
    return f"""
(function () {{
  let ticks = 0, steady = 0;
  const timer = setInterval(function () {{
    const box = document.querySelector({json.dumps("." + marker)});
    if (++ticks > 150) {{ clearInterval(timer); return; }}
    if (!box) return;
    const pane = box.closest(".jp-WindowedPanel-outer") || document.documentElement;
    const view = pane.getBoundingClientRect(), r = box.getBoundingClientRect();
    const bottom = Math.min(view.bottom, window.innerHeight), tall = r.height > bottom - view.top;
    const seen = tall ? Math.abs(r.top - view.top) < 60 : r.top >= view.top && r.bottom <= bottom;
    if (seen) {{
      if (++steady >= 5) clearInterval(timer);
    }} else {{
      steady = 0;
      box.scrollIntoView({{block: tall ? "start" : "center"}});
    }}
  }}, 100);
}})();
"""
