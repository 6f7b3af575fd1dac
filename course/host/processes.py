"""Which child processes of this program are still running (lesson 6).

A notebook must not leave servers behind. `host.connections` says what a host *thinks* is
open; this asks the operating system, so it also finds a child that an earlier run of a cell
started and no variable refers to any more.
"""

from __future__ import annotations

import sys


def child_processes() -> list[str]:
    """The command lines of this process's live children (and theirs): ["python -m course.servers.docs", ...]."""
    import psutil  # here, not at the top: stdio children import `course.host` too, and need it not

    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.status() == psutil.STATUS_ZOMBIE:  # exited, waiting to be reaped: not running
                continue
            command = " ".join(child.cmdline()) or child.name()
        except psutil.Error:  # exited while we looked
            continue
        found.append(command.replace(sys.executable, "python"))
    return found
