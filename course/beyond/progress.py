"""Lesson 9: progress of a long tool call, shown as a bar in JupyterLab or a line in a terminal.

A `progress_callback` gets `(progress, total, message)` for each `notifications/progress`; total may
be missing (then there is no percentage), and values arrive as int in memory and float over JSON-RPC.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO


def progress_text(progress: float, total: float | None, message: str | None) -> str:
    """One line: '3/10 (30%) aisle 3', or '3 done' with no total (lesson 9, exercise l9-progress-line)."""
    if total:
        line = f"{progress:g}/{total:g} ({min(progress / total, 1.0):.0%})"
    else:
        line = f"{progress:g} done"
    return f"{line} {message}" if message else line


class ProgressLine:
    """One printed line per update (rewritten in place on a terminal); `lines` keeps them, for tests and logs."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.lines: list[str] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        line = progress_text(progress, total, message)
        self.lines.append(line)
        if self.out.isatty():
            print(f"\r{line}", end="\n" if total and progress >= total else "", file=self.out, flush=True)
        else:
            print(line, file=self.out)


class ProgressBar:
    """An ipywidgets bar with the same line under it."""

    def __init__(self, description: str = "") -> None:
        import ipywidgets as w
        from IPython.display import display

        self.bar, self.label = w.FloatProgress(min=0, max=1, description=description), w.Label()
        self.lines: list[str] = []
        display(w.HBox([self.bar, self.label]))

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        line = progress_text(progress, total, message)
        self.lines.append(line)
        self.label.value = line
        if total:
            self.bar.value = min(progress / total, 1.0)
        else:
            self.bar.bar_style = "info"


def progress_display(description: str = "") -> Any:
    """The bar inside a kernel with a frontend, else the line (nbval, a terminal)."""
    import os
    if "ipykernel" in sys.modules and not (os.environ.get("CI") or os.environ.get("COURSE_HEADLESS")
                                           or os.environ.get("COURSE_APPROVER") == "scripted"):
        return ProgressBar(description)
    return ProgressLine()
