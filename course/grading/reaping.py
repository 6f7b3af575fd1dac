"""Ending what a learner's code left running: its detached descendants become our children
(a subreaper, Linux), and we kill them, round after round, until none is left."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path


def become_subreaper() -> None:
    """Orphaned descendants (a learner's detached background process) become our children, so we can end them."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        except (OSError, AttributeError):
            pass


def children() -> list[int]:
    me, found = os.getpid(), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == me:
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def end_children(keep: frozenset[int] = frozenset()) -> None:
    """Kill every child of this process but `keep`, and the orphans each kill hands over to us, until none is left."""
    for _ in range(50):  # each round, the orphans of what we killed become our children
        left = [pid for pid in children() if pid not in keep] if Path("/proc").is_dir() else []
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ChildProcessError, ProcessLookupError):
                pass
        time.sleep(0.01)


def set_dumpable(on: bool) -> None:
    """Off: processes of the same account can no longer read this one's memory or open its files and
    pipes through /proc (without CAP_SYS_PTRACE, which the bubblewrap sandbox drops)."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(4, int(on), 0, 0, 0)  # PR_SET_DUMPABLE
        except (OSError, AttributeError):
            pass
