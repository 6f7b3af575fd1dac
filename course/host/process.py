"""Start a Streamable HTTP server as a child process and stop it again (lesson 6's notebook and tests).

    with serve_http("course.servers.docs", env={...}) as server:
        await host.connect("docs", http(server.url, token=...), allow=...)

The server runs until `stop()` (or the end of the `with` block): a notebook must not leave
it running. Like a stdio child, it gets only the environment you pass.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from mcp.client.stdio import get_default_environment


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class HttpServer:
    """A server child process listening on 127.0.0.1:`port`."""

    process: subprocess.Popen
    port: int
    path: str = "/mcp"
    log: object = field(default=None, repr=False)  # its stdout/stderr, kept in a temporary file

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def stop(self) -> None:
        if self.running:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.log.close()

    def __enter__(self) -> HttpServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_http(module_or_script: str, *args: str, port: int | None = None, env: Mapping[str, str] | None = None,
               port_flag: str | None = "--port", extra: tuple[str, ...] = ("--transport", "streamable-http"),
               wait: float = 30.0) -> HttpServer:
    """Run a Python MCP server over HTTP with this interpreter, and wait until it accepts connections.

    By default the command is `python -m <module> --transport streamable-http --port <port> <args>`
    (the course's servers take these flags); set `extra=()` and `port_flag=None` for others and
    pass the port in `args` yourself.
    """
    port = port or free_port()
    target = [module_or_script] if module_or_script.endswith(".py") else ["-m", module_or_script]
    command = [sys.executable, *target, *extra, *([port_flag, str(port)] if port_flag else []), *args]
    log = tempfile.TemporaryFile("w+")
    process = subprocess.Popen(command, env=get_default_environment() | dict(env or {}), stdout=log, stderr=log,
                               stdin=subprocess.DEVNULL)
    server = HttpServer(process, port, log=log)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not server.running:
            text = server.output().strip()[-1500:]
            server.stop()
            raise RuntimeError(f"the server exited (code {process.returncode}) before listening on port {port}:\n"
                               f"{text}\nCheck the command: {' '.join(command[1:])}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server
        except OSError:
            time.sleep(0.05)
    server.stop()
    raise RuntimeError(f"the server did not listen on port {port} within {wait:g} s: {' '.join(command[1:])}")
