"""Asking on the keyboard, for agents run from a terminal."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import sys
from dataclasses import dataclass

from course.approval import kernel
from course.approval.request import ApprovalRequest
from course.errors import ApprovalTimeout


@dataclass
class TerminalApprover:
    """Asks on the keyboard. Only "y" or "yes" approves; anything else, or no input, rejects.

    Keys typed before the question appears are thrown away, so typing ahead never approves a
    question you have not read. The question is read with prompt_toolkit on the event loop,
    so a timeout leaves nothing reading. In a notebook kernel (and where the loop cannot
    watch stdin) `input()` runs in a thread instead, which cannot be stopped: no timeout there.
    """

    timeout: float | None = None
    who = "human (terminal)"

    async def __call__(self, request: ApprovalRequest) -> bool:
        # The tool and its risk open and close the question; no value can push them off an 80x24 screen.
        lines = request.lines()
        for _ in range(3):  # "f" shows the full values, then asks again
            print("\n" + "\n".join(lines), flush=True)
            answer = await self._answer(request.question())
            if answer is None or answer.strip().lower() not in {"f", "full"}:
                return answer is not None and answer.strip().lower() in {"y", "yes"}
            lines = request.lines(full=True)
        return False

    async def _answer(self, question: str) -> str | None:
        keys = _keyboard()
        if keys is None:
            return await _input_in_thread(question)
        try:
            return await asyncio.wait_for(_ask(keys, question), self.timeout)
        except TimeoutError:
            print()
            raise ApprovalTimeout(f"no answer within {self.timeout:.0f} s") from None


async def _ask(keys, question: str) -> str | None:
    """One line typed after the question is shown; None when the input has ended."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.output import DummyOutput

    _discard_typed_ahead(sys.stdin.fileno())
    on_screen = sys.stdout is not None and sys.stdout.isatty()
    if not on_screen:  # prompt_toolkit would draw with escape codes into a file or pipe
        print(question, end="", flush=True)
    session: PromptSession[str] = PromptSession(input=keys, output=None if on_screen else DummyOutput())
    try:
        return await session.prompt_async(question if on_screen else "")
    except EOFError:  # stdin closed, or Ctrl+D: nobody can approve
        return None


def _keyboard():
    """prompt_toolkit's input on this process's stdin, or None where input() must be used instead."""
    if kernel.in_kernel() or sys.stdin is None:
        return None  # a kernel's input() asks the notebook front end, not the process's stdin
    try:
        fd = sys.stdin.fileno()
        os.fstat(fd)
    except (AttributeError, OSError, ValueError):  # replaced stdin (pytest, IDEs) has no real file
        return None
    if not _loop_can_watch(fd):
        return None
    from prompt_toolkit.input import create_input

    with contextlib.redirect_stderr(io.StringIO()):  # "Input is not a terminal": a pipe is fine here
        return create_input(sys.stdin)


def _loop_can_watch(fd: int) -> bool:
    """Windows loops and regular files (stdin < file) cannot be watched for keys."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_reader(fd, lambda: None)
    except (NotImplementedError, OSError, ValueError):
        return False
    loop.remove_reader(fd)
    return True


async def _input_in_thread(question: str) -> str | None:
    try:
        # input() blocks, so it runs in a thread and the event loop keeps going.
        return await asyncio.to_thread(input, question)
    except EOFError:  # no keyboard (stdin closed): nobody can approve
        return None
    except Exception as e:
        if type(e).__name__ == "StdinNotImplementedError":  # a kernel whose front end cannot type
            raise RuntimeError("this notebook cannot read the keyboard (input() is not supported here), so "
                               "COURSE_APPROVER=terminal cannot ask. Use COURSE_APPROVER=widget in JupyterLab, "
                               "or scripted answers.") from None
        raise


def _discard_typed_ahead(fd: int) -> None:
    try:
        import termios

        if os.isatty(fd):
            termios.tcflush(fd, termios.TCIFLUSH)
    except (ImportError, OSError):  # no termios on Windows; nothing to discard on a pipe
        pass
