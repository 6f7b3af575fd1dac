"""Where the code runs: a Jupyter kernel or not, which ipykernel, and waiting that Interrupt can end."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator


def in_kernel() -> bool:
    """True inside a Jupyter kernel (a notebook), False in a plain Python process."""
    if "IPython" not in sys.modules:
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def require_ipykernel_74() -> None:
    try:
        import ipykernel
    except ImportError:  # not in a Jupyter kernel at all
        return
    major, minor = (int(p) for p in ipykernel.__version__.split(".")[:2])
    if (major, minor) < (7, 4):
        raise RuntimeError(
            f"Approve/Reject buttons need ipykernel 7.4 or newer (this kernel has {ipykernel.__version__}): "
            "older kernels cannot handle a click while the cell runs, so it would hang. Run `make setup` "
            "and pick the kernel 'Python (course)', or set COURSE_APPROVER=terminal or scripted.")


@contextlib.contextmanager
def interrupt_calls(stop: Callable[[], None]) -> Iterator[None]:
    """While inside, Interrupt (SIGINT) calls `stop()` on the running loop instead of its usual handler.

    ipykernel turns SIGINT into a cancellation that only arrives with the next message the kernel
    gets, so a cell awaiting a click stays busy; waking the loop ourselves ends the wait at once.
    Signal handlers can only be set from the main thread; elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()
    previous = signal.signal(signal.SIGINT, lambda *_: loop.call_soon_threadsafe(stop))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
