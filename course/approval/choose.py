"""Which approver to use where the code runs, from the environment."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from course.approval import kernel
from course.approval.request import DEFAULT_TIMEOUT, Approver
from course.approval.scripted import AutoApprover, ScriptedApprover
from course.approval.terminal import TerminalApprover
from course.approval.widget import WidgetApprover

APPROVERS = ("widget", "scripted", "terminal", "yes", "no")


def choose_approver(scripted: Iterable[bool] = (), *, timeout: float = DEFAULT_TIMEOUT) -> Approver:
    """The approver for where this code runs.

    `COURSE_APPROVER` (widget, scripted, terminal, yes, no) overrides; otherwise `CI` or
    `COURSE_HEADLESS` -> the `scripted` answers; a Jupyter kernel -> buttons; a terminal ->
    `input()`; anything else -> the scripted answers. `COURSE_APPROVAL_TIMEOUT` (seconds)
    overrides `timeout`, e.g. for a rehearsal of a lesson nobody clicks through.
    """
    timeout = _timeout(timeout)
    choice = os.environ.get("COURSE_APPROVER", "").strip().lower()
    if choice and choice not in APPROVERS:
        raise ValueError(f"COURSE_APPROVER={choice!r} is not an approver; use one of {', '.join(APPROVERS)}, "
                         "or unset it to choose automatically.")
    if not choice:
        if _flag("CI") or _flag("COURSE_HEADLESS"):
            choice = "scripted"
        elif kernel.in_kernel():
            choice = "widget"
        elif sys.stdin is not None and sys.stdin.isatty():
            choice = "terminal"
        else:
            choice = "scripted"
    if choice == "widget":
        return WidgetApprover(timeout)
    if choice == "terminal":
        return TerminalApprover(timeout)
    if choice in ("yes", "no"):
        return AutoApprover(choice == "yes")
    return ScriptedApprover(list(scripted))


def _timeout(default: float) -> float:
    text = os.environ.get("COURSE_APPROVAL_TIMEOUT", "").strip()
    if not text:
        return default
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise ValueError(f"COURSE_APPROVAL_TIMEOUT={text!r} is not a number of seconds above 0; e.g. 30, or unset it.")
    return seconds


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")
