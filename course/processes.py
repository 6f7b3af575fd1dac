"""Child processes: the environment a child starts with, a free port, stopping a child, and what is still running.

Both sides use these: the host starts stdio servers as children (lesson 6), and lesson 5
starts the course's servers over HTTP. `child_processes()` asks the operating system, so it
also finds a child that an earlier run of a cell started and no variable refers to any more:
a notebook must not leave servers behind.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

HOST = "127.0.0.1"  # never 0.0.0.0: the course's servers are for this machine only


def child_env(pass_env: Iterable[str] = (), env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a child server starts with: the MCP SDK's basic set (PATH, HOME, ...), the
    named variables copied from this process if set, then `env`. Never the whole environment:
    API keys and other secrets stay in the parent."""
    from mcp.client.stdio import get_default_environment

    passed = {name: os.environ[name] for name in pass_env if name in os.environ}
    return get_default_environment() | passed | dict(env or {})


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, log: Any, timeout: float) -> None:
    """Wait until a child listens on `port`; if it exits first, raise with the end of its `log` (stderr)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"the server exited with code {proc.returncode}:\n{log.read().decode()[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex((HOST, port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"the server did not listen on port {port} within {timeout:g} s")


def stop(proc: subprocess.Popen, grace: float = 5.0) -> int:
    """Stop a child process: SIGINT (a clean shutdown), then SIGKILL if it does not exit in time."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def child_processes() -> list[str]:
    """The command lines of this process's live children (and theirs): ["python -m course.servers.docs", ...]."""
    import psutil  # here, not at the top: stdio children import this module too, and need it not

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


@contextmanager
def running(argv: list[str], env: dict[str, str], port: int, timeout: float) -> Iterator[None]:
    """Run a server process that listens on `port` (its stderr kept for the error if it fails to start);
    stop it on exit, Ctrl+C first so it shuts down cleanly, even if the block raises."""
    import tempfile

    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        wait_for_port(port, proc, log, timeout)
        yield
    finally:
        stop(proc)
        log.close()
