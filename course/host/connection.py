"""One client per server, kept open in a task of its own (lesson 6).

The SDK's `Client` is an `async with` block: entered and exited in the same task. A
notebook runs every cell in a new task, so a client entered in one cell cannot be closed in
another ("Attempted to exit cancel scope in a different task"). A `Connection` therefore
runs the `async with` in a background task it owns; any cell can call through it, and
`close()` ends that task, which stops a stdio child.

It also keeps what the SDK does not show: a stdio child's stderr (in a notebook it would go
to the terminal that started Jupyter, not to the cell), the HTTP status behind an error,
and text a stdio server wrongly writes to stdout.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable
from contextlib import suppress
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import httpx2
import mcp.types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import INVALID_PARAMS
from pydantic import ValidationError

from course.errors import TOO_MANY_REQUESTS, CallRefused, CallRejected, CallTimedOut, ServerError
from course.host.errors import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    Observed,
    _quote,
    clear_words,
    explain,
    one_line,
    redact,
    sentence,
)
from course.host.servers import Http, InMemory, ServerSpec, Stdio, check_spec

MAX_PAGES = 100  # a server whose cursor never ends cannot hang the host


def _client_info() -> types.Implementation:
    """Who the host says it is (the SDK's default is `mcp 0.1.0`, which tells a server's log nothing)."""
    try:
        release = version("llm-mcp-course")
    except PackageNotFoundError:  # running from a checkout that was never installed
        release = "unknown"
    return types.Implementation(name="llm-mcp-course", title="LLM tool calling to MCP: course host",
                                version=release)


class _DropParseNoise(logging.Filter):
    # The SDK logs a traceback for every non-JSON stdout line; the connection reports it in one sentence.
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to parse JSONRPC message")


logging.getLogger("mcp.client.stdio").addFilter(_DropParseNoise())
logger = logging.getLogger(__name__)


_warming = threading.Lock()


def _warm_up_result_validation() -> None:
    """Import `jsonschema` in the background, once per process.

    The SDK imports it at the first result it validates against a tool's output schema, and
    that import takes 1-2 s. Started here, it overlaps with the child starting up instead.
    """
    if "jsonschema" in sys.modules or not _warming.acquire(blocking=False):
        return
    threading.Thread(target=importlib.import_module, args=("jsonschema",), name="import-jsonschema",
                     daemon=True).start()


class Connection:
    """An open connection to one server. Create with `await Connection.open(name, spec)`."""

    def __init__(self, name: str, spec: ServerSpec, *, read_timeout: float,
                 elicitation: Callable[..., Awaitable[types.ElicitResult]] | None = None):
        self.name, self.spec, self.read_timeout = name, spec, read_timeout
        self.elicitation = elicitation  # lesson 9: declares the elicitation capability, answers the questions
        self.client: Client | None = None
        self.seen = Observed()
        self.failure: ServerError | None = None
        self.noise_reported = 0  # how many stdout_noise lines the host has shown
        self._stderr: Any = None
        self._http: httpx2.AsyncClient | None = None
        self._closing = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._ready: asyncio.Future | None = None  # set once connected (or failed)
        self.tools_changed = asyncio.Event()  # the server said its tool list changed
        self.on_tools_changed: Callable[[], Awaitable[None]] | None = None  # then this lists them again

    @classmethod
    async def open(cls, name: str, spec: ServerSpec, *, read_timeout: float = 10.0,
                   elicitation: Callable[..., Awaitable[types.ElicitResult]] | None = None) -> Connection:
        check_spec(spec)
        _warm_up_result_validation()
        conn = cls(name, spec, read_timeout=read_timeout, elicitation=elicitation)
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        # Read the outcome even when nobody waits any more (after a timeout), so asyncio does not warn.
        ready.add_done_callback(lambda f: f.cancelled() or f.exception())
        conn._ready = ready
        conn._task = asyncio.create_task(conn._own(ready), name=f"mcp-connection-{name}")
        try:
            # The read timeout bounds connecting too. (The SDK's own server/discover probe waits up to 10 s
            # for a server that never answers before it even tries the older initialize handshake.)
            await asyncio.wait_for(asyncio.shield(ready), read_timeout)
        except (asyncio.TimeoutError, TimeoutError) as e:
            await conn.close()
            raise conn._explain(e, "connecting") from None
        except ServerError:
            await conn.close()
            raise
        return conn

    @property
    def alive(self) -> bool:
        return self.client is not None and self.failure is None and not self._closing.is_set()

    async def _own(self, ready: asyncio.Future) -> None:
        try:
            async with self._client() as client:
                self.client = client
                ready.set_result(None)
                helpers = [asyncio.create_task(self._listen(client), name=f"mcp-listen-{self.name}"),
                           asyncio.create_task(self._follow_changes(), name=f"mcp-tools-{self.name}")]
                try:
                    await self._closing.wait()
                finally:
                    for helper in helpers:
                        helper.cancel()
                        with suppress(BaseException):
                            await helper
        except BaseException as e:  # noqa: BLE001 - an ExceptionGroup from the SDK's task groups, or a cancel
            error = self._explain(e, "connecting" if not ready.done() else "running")
            if not ready.done():
                ready.set_exception(error)
            elif not self._closing.is_set():
                self.failure = error
            if isinstance(e, asyncio.CancelledError):
                raise
        finally:
            if not ready.done():  # whatever happened, `open` must not wait for its timeout
                ready.set_exception(ServerError(self.name, "the connection ended before it was ready.",
                                                "the server's log."))
            self.client = None
            if self._http is not None:
                await self._http.aclose()
            if self._stderr is not None:
                self._stderr.close()

    async def _listen(self, client: Client) -> None:
        """Hear about tool-list changes on a 2026-07-28 connection (older ones send a notification anyway).

        On 2026-07-28 a server tells only clients that opened a `subscriptions/listen` stream; its
        events also reach `_on_message`, which sets `tools_changed`.
        """
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    self.tools_changed.set()
        except Exception as e:  # noqa: BLE001 - an older protocol, or a server without subscriptions: no events
            logger.debug("%s: no subscriptions/listen stream (%s: %s)", self.name, type(e).__name__, e)

    async def _follow_changes(self) -> None:
        while True:
            await self.tools_changed.wait()
            if self.on_tools_changed is None:  # nobody to tell
                self.tools_changed.clear()
                continue
            try:
                await self.on_tools_changed()  # clears `tools_changed` before it lists, so no change is missed
            except Exception:  # noqa: BLE001 - a failed refresh must not end the watch
                logger.exception("%s: listing the changed tools failed", self.name)
                self.tools_changed.clear()

    def _client(self) -> Client:
        spec = self.spec
        options: dict[str, Any] = {"read_timeout_seconds": self.read_timeout, "message_handler": self._on_message,
                                   "client_info": _client_info()}
        if self.elicitation is not None:
            options["elicitation_callback"] = self.elicitation
        if isinstance(spec, InMemory):
            return Client(spec.server, mode=spec.mode, **options)
        if isinstance(spec, Stdio):
            # A real file: the child needs a file descriptor, and we want to read its stderr later.
            self._stderr = tempfile.TemporaryFile("w+")
            # "replace": with the SDK's "strict", one byte that is not UTF-8 stops its stdout reader for
            # good while the connection still looks alive, and every later call waits for its timeout.
            params = StdioServerParameters(command=spec.command, args=list(spec.args), cwd=spec.cwd,
                                           env=spec.child_env(), encoding_error_handler="replace")
            return Client(stdio_client(params, errlog=self._stderr), **options)
        headers = {"Authorization": f"Bearer {spec.token}"} if spec.token else {}
        self.seen.token_sent = bool(spec.token)
        self._http = httpx2.AsyncClient(headers=headers, event_hooks={"response": [self._on_response]},
                                        timeout=httpx2.Timeout(30.0, connect=spec.connect_timeout, read=300.0))
        return Client(streamable_http_client(spec.url, http_client=self._http), **options)

    async def _on_response(self, response: httpx2.Response) -> None:
        if response.status_code >= 400:
            self.seen.http_status = response.status_code

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.tools_changed.set()
        elif isinstance(message, ValidationError):  # a stdout line that is not JSON-RPC
            errors = message.errors()
            line = str(errors[0].get("input", "")) if errors else str(message)
            self.seen.stdout_noise.append(line)
            if '"jsonrpc"' in line:  # a reply glued to printed text: it can never be read, so fail now
                self.seen.mangled = True
                if self._ready is not None and not self._ready.done():
                    self._ready.set_exception(self._explain(RuntimeError(line), "connecting"))

    def stderr_tail(self, limit: int = 4000) -> str:
        """The end of a stdio child's stderr (read without moving the shared file offset)."""
        if self._stderr is None or self._stderr.closed:
            return self.seen.stderr
        fd = self._stderr.fileno()
        size = os.fstat(fd).st_size
        data = os.pread(fd, limit, max(0, size - limit))
        return data.decode("utf-8", "replace")

    def _explain(self, exc: BaseException, during: str) -> ServerError:
        try:
            self.seen.stderr = self.stderr_tail().replace(sys.executable, "python")  # shorter, same on every machine
            where = self.spec.url if isinstance(self.spec, Http) else self.spec.describe()
            return explain(exc, self.name, where, self.seen, during=during)
        except Exception as e:  # noqa: BLE001 - a diagnosis must never hide the failure it describes
            return ServerError(self.name, f"{during} failed: {type(exc).__name__}: {exc} ({type(e).__name__} "
                                          f"while explaining it: {e})", "the server's log.")

    def _usable(self) -> Client:
        if self.failure is not None:
            raise self.failure
        if self.client is None:
            raise ServerError(self.name, "the connection is closed.", "connect to the server again.")
        return self.client

    async def list_tools(self) -> list[types.Tool]:
        """Every tool the server lists, following `next_cursor` page by page."""
        client = self._usable()
        tools: list[types.Tool] = []
        cursor: str | None = None
        seen_cursors: set[str] = set()
        for _ in range(MAX_PAGES):
            try:
                page = await client.list_tools(cursor=cursor)
            except Exception as e:
                raise self._explain(e, "listing tools") from None
            tools += page.tools
            cursor = page.next_cursor
            if cursor is None:
                return tools
            if cursor in seen_cursors:
                raise ServerError(self.name, f"the tool list repeats the cursor {cursor!r}.",
                                  "the server's pagination (each next_cursor must lead to a new page).")
            seen_cursors.add(cursor)
        raise ServerError(self.name, f"the tool list has more than {MAX_PAGES} pages.", "the server's pagination.")

    async def call_tool(self, tool: str, arguments: dict, timeout: float,
                        progress: Callable[..., Awaitable[None]] | None = None) -> types.CallToolResult:
        """Call one tool. A timeout or a dead server raises `ServerError`; tool failures come back flagged.

        `progress(progress, total, message)` hears the server's progress notifications (lesson 9)."""
        client = self._usable()
        try:
            return await client.call_tool(tool, arguments, read_timeout_seconds=timeout,
                                          progress_callback=progress)  # type: ignore[arg-type]
        except RuntimeError as e:  # the SDK's own check of a listed tool's outputSchema (lesson 9)
            if "structured content" not in str(e) and "output schema" not in str(e):
                raise
            raise ServerError(self.name, f"{tool} returned a result that breaks its own outputSchema, so the host "
                                         "refused it.", "the server's tool (tell its maintainer).",
                              f"\n  The SDK said: {redact(str(e))[:300]}") from None
        except MCPError as e:
            if e.code == REQUEST_TIMEOUT:  # the call timed out; the connection is still fine
                raise CallTimedOut(self.name, f"{tool} did not answer within {timeout:g} s.",
                                  "whether the tool is stuck, or raise the timeout.") from None
            if e.code == INVALID_PARAMS:  # the server turned the call away; the connection is still fine
                said = one_line(e.message)  # the server's words, for the model to act on
                said = said if len(said) <= 300 else said[:299] + "…"
                raise CallRejected(self.name, f"the server rejected the call to {tool} as invalid params "
                                              f"(-32602): {sentence(said)}",
                                   "the arguments against the tool's input schema.") from None
            if e.code == TOO_MANY_REQUESTS:  # refused before it ran (the class server's fair share): wait, resend
                words = clear_words(e.message)  # the model reads it: only a plain sentence, else the host's own
                raise CallRefused(self.name, f"the server refused the call to {tool} for now (-32029): "
                                             + (words or "too many requests at once."),
                                  "how many calls run at once.",
                                  "" if words else _quote(e.message, "It said")) from None
            await asyncio.sleep(0.05)  # let the owner task see a closed connection first
            error = self._explain(e, f"running {tool}")
            if not self.alive or e.code == CONNECTION_CLOSED:
                self.failure = self.failure or error
            raise error from None

    async def close(self) -> None:
        """End the connection (a stdio child is asked to exit, then killed if it does not)."""
        self._closing.set()
        if self._task is not None and not self._task.done():
            if self.client is None:  # still connecting (a server that never answers): nothing to shut down politely
                self._task.cancel()
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 10)
            except (asyncio.TimeoutError, TimeoutError):
                self._task.cancel()
            except BaseException:  # noqa: BLE001 - the failure is already recorded
                pass

    def __repr__(self) -> str:
        state = "open" if self.alive else "failed" if self.failure else "closed"
        return f"<Connection {self.name!r} {state}: {self.spec.describe()}>"
