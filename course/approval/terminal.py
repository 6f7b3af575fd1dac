"""Asking on the keyboard, for agents run from a terminal."""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass

from course.approval import kernel
from course.approval.request import ApprovalRequest, ApprovalTimeout


@dataclass
class TerminalApprover:
    """Asks on the keyboard. Only "y" or "yes" approves; anything else, or no input, rejects.

    Keys typed before the question appears are thrown away, so typing ahead never approves a
    question you have not read. The timeout works when the process reads its own terminal or
    pipe (Linux, macOS): the question is read with the event loop, and nothing keeps reading
    after a timeout. Elsewhere (Windows, a notebook kernel) `input()` runs in a thread, which
    cannot be stopped, so there the question waits without a timeout.
    """

    timeout: float | None = None
    who = "human (terminal)"

    async def __call__(self, request: ApprovalRequest) -> bool:
        prompt = f"\nThe assistant wants to run {request} [{request.risk}]. Approve? [y/N] "
        fd = _stdin_fd()
        if fd is not None:
            _discard_typed_ahead(fd)
            print(prompt, end="", flush=True)
            try:
                answer = await _read_line(fd, self.timeout)
            except NotImplementedError:  # this event loop cannot watch stdin: ask with input() below
                prompt = ""
            else:
                if not os.isatty(fd):
                    print()  # nobody pressed Enter on this screen: end the question's line
                return answer is not None and answer.strip().lower() in {"y", "yes"}
        try:
            # input() blocks, so it runs in a thread and the event loop keeps going.
            answer = await asyncio.to_thread(input, prompt)
        except EOFError:  # no keyboard (stdin closed): nobody can approve
            return False
        except Exception as e:
            if type(e).__name__ == "StdinNotImplementedError":  # a kernel whose front end cannot type
                raise RuntimeError("this notebook cannot read the keyboard (input() is not supported here), so "
                                   "COURSE_APPROVER=terminal cannot ask. Use COURSE_APPROVER=widget in JupyterLab, "
                                   "or scripted answers.") from None
            raise
        return answer.strip().lower() in {"y", "yes"}


def _stdin_fd() -> int | None:
    """The file descriptor to read answers from, or None where input() must be used instead."""
    if kernel.in_kernel() or sys.stdin is None:
        return None  # a kernel's input() asks the notebook front end, not the process's stdin
    try:
        return sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):  # replaced stdin (pytest, IDEs) has no real file
        return None


def _discard_typed_ahead(fd: int) -> None:
    try:
        import termios

        if os.isatty(fd):
            termios.tcflush(fd, termios.TCIFLUSH)
    except (ImportError, OSError):  # no termios on Windows; nothing to discard on a pipe
        pass


async def _read_line(fd: int, timeout: float | None) -> str | None:
    """One line from `fd` without a thread, so a timeout leaves nothing reading; None at end of input."""
    loop = asyncio.get_running_loop()
    line: asyncio.Future[str | None] = loop.create_future()
    got = bytearray()

    def readable() -> None:
        try:
            byte = os.read(fd, 1)  # one byte at a time: never take the next answer's line
        except OSError:
            byte = b""  # the terminal went away: nobody can approve
        if line.done():
            return
        if not byte:
            line.set_result(None)
        elif byte == b"\n":
            line.set_result(got.decode(errors="replace"))
        else:
            got.extend(byte)

    try:
        loop.add_reader(fd, readable)
    except (NotImplementedError, OSError, ValueError) as e:  # Windows loops; a regular file as stdin
        raise NotImplementedError(str(e)) from None
    try:
        return await asyncio.wait_for(line, timeout)
    except TimeoutError:
        print()
        raise ApprovalTimeout(f"no answer within {timeout:.0f} s") from None
    finally:
        loop.remove_reader(fd)
