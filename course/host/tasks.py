"""Tools that run as MCP tasks: start, poll with a deadline, cancel, fetch the result (lesson 9, part of `McpHost`).

A tool whose `execution.taskSupport` is `"required"` cannot be called the ordinary way. The host
calls it with `task: {ttl}`; the server answers at once with a task id, and the host asks
`tasks/get` every `pollInterval` until the task ends or `HostTasks.wait` seconds pass. Each new
status message is shown (`on_status`). Then the model gets the tool's result, or one line that
says it was cancelled, or that it is **still running** (the task keeps its id: `wait_for(id)`
later, or `cancel(id)`). A task that needs the human (`input_required`) is answered through
`tasks/result`, which carries the server's question to the host's elicitation callback.

Protocol: tasks are in 2025-11-25 (the handshake era); mcp 2.3 has their types only
(`mcp_types._types`) and no client methods for them, and 2026-07-28 moved them out of the core
into an extension the SDK does not ship. The SDK's `call_tool` validates every `tools/call`
answer as a `CallToolResult`, so a `CreateTaskResult` cannot come back through it: `_start`
sends that one request a level lower (`session._dispatcher.send_raw_request`), the course's
only use of the SDK's private API, pinned by tests/test_lesson9_tasks.py. `tasks/*` go through
the public `session.send_request`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
from mcp import MCPError, types

from course.errors import ServerError
from course.show import printable

if TYPE_CHECKING:
    from course.host.connection import Connection

__all__ = ["HostTasks", "Running", "TaskEnd", "print_status", "serves_tasks"]

TERMINAL = ("completed", "failed", "cancelled")


def serves_tasks(connection: Connection) -> bool:
    """Whether the server said (capabilities.tasks.requests.tools.call) that tools/call may run as a task."""
    client = connection.client
    capabilities = client.session.server_capabilities if client is not None else None
    tasks = capabilities.tasks if capabilities is not None else None
    return bool(tasks and tasks.requests and tasks.requests.tools and tasks.requests.tools.call is not None)


@dataclass(frozen=True)
class TaskEnd:
    """How a task call ended, for the model (`text`) and the decision log (`happened`)."""

    text: str
    happened: str
    is_error: bool


@dataclass
class Running:
    """A task the host started and has not seen end."""

    server: str
    tool: str
    task: types.Task
    connection: Connection = field(repr=False)


def print_status(tool: str, task: types.Task) -> None:
    """The default display: one line per new status (a server's words, escaped)."""
    said = f": {printable(task.status_message)}" if task.status_message else ""
    print(f"{tool} [{printable(task.task_id)}] {task.status}{said}")


class HostTasks:
    """The host's tasks: `wait` seconds before the model hears "still running"; `running` by task id."""

    def __init__(self, *, wait: float = 30.0, ttl_ms: int = 300_000,
                 on_status: Callable[[str, types.Task], Any] | None = print_status) -> None:
        self.wait, self.ttl_ms, self.on_status = wait, ttl_ms, on_status
        self.running: dict[str, Running] = {}
        self.log: list[str] = []  # what happened to each task, for the human

    async def call(self, connection: Connection, tool: str, arguments: dict,
                   timeout: float) -> types.CallToolResult | TaskEnd:
        """Run `tool` as a task; its result, or how it ended without one."""
        started = await self._start(connection, tool, arguments, timeout)
        if isinstance(started, types.CallToolResult):  # the server ran it at once, as it may
            return started
        self.running[started.task_id] = Running(connection.name, tool, started, connection)
        self.log.append(f"{tool}: started as task {started.task_id}")
        self._show(tool, started, None)
        return await self.wait_for(started.task_id, self.wait, timeout=timeout)

    async def wait_for(self, task_id: str, wait: float | None = None, *,
                       timeout: float = 10.0) -> types.CallToolResult | TaskEnd:
        """Poll a running task for up to `wait` seconds (default: `self.wait`); its result, or how it stands."""
        run = self._running(task_id)
        deadline = time.monotonic() + (self.wait if wait is None else wait)
        task = run.task
        while task.status not in TERMINAL:
            left = deadline - time.monotonic()
            if task.status == "input_required":  # the server's question comes with tasks/result
                return await self._result(run, timeout=max(left, 0.1) + timeout)
            if left <= 0:
                self.log.append(f"{run.tool}: task {task_id} still {task.status} after the deadline")
                return TaskEnd(f"Still running: {run.tool} is running on the server as task {task_id} "
                               f"({task.status_message or task.status}). It has not finished and was not "
                               "cancelled; its result is not known yet. Tell the user it is in progress.",
                               "still running (a task)", False)
            await anyio.sleep(min(max((task.poll_interval or 1000) / 1000, 0.05), 5.0, left))
            previous, task = task, await self._get(run, timeout)
            run.task = task
            self._show(run.tool, task, previous)
        if task.status == "cancelled":
            self.running.pop(task_id, None)
            self.log.append(f"{run.tool}: task {task_id} cancelled")
            return TaskEnd(f"Cancelled: {run.tool} (task {task_id}) was cancelled before it finished. "
                           "Do not say it was done.", "cancelled (a task)", True)
        return await self._result(run, timeout=timeout)

    async def cancel(self, task_id: str, *, timeout: float = 10.0) -> types.Task:
        """Ask the server to cancel a running task (`tasks/cancel`); the task as the server now has it."""
        run = self._running(task_id)
        request = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
        run.task = await self._send(run.connection, request, types.CancelTaskResult, timeout)
        self.log.append(f"{run.tool}: task {task_id} cancel asked; the server says {run.task.status}")
        if run.task.status in TERMINAL:
            self.running.pop(task_id, None)
        return run.task

    def _running(self, task_id: str) -> Running:
        if task_id not in self.running:
            known = ", ".join(self.running) or "none"
            raise KeyError(f"no running task {task_id!r} (running: {known}).")
        return self.running[task_id]

    def _show(self, tool: str, task: types.Task, previous: types.Task | None) -> None:
        changed = previous is None or (task.status, task.status_message) != (previous.status, previous.status_message)
        if changed and self.on_status is not None:
            self.on_status(tool, task)

    async def _start(self, connection: Connection, tool: str, arguments: dict,
                     timeout: float) -> types.Task | types.CallToolResult:
        session = connection._usable().session
        data: dict[str, Any] = {"method": "tools/call",
                                "params": {"name": tool, "arguments": arguments, "task": {"ttl": self.ttl_ms}}}
        opts: Any = {"timeout": timeout}
        session._stamp(data, opts)  # the era's _meta, as send_request would add it
        try:
            raw = await session._dispatcher.send_raw_request("tools/call", data["params"], opts)
        except MCPError as e:
            raise self._failed(connection, tool, "starting", e) from None
        if "task" in raw:
            return types.CreateTaskResult.model_validate(raw, by_name=False).task
        return types.CallToolResult.model_validate(raw, by_name=False)

    async def _get(self, run: Running, timeout: float) -> types.Task:
        request = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=run.task.task_id))
        return await self._send(run.connection, request, types.GetTaskResult, timeout, run.tool)

    async def _result(self, run: Running, *, timeout: float) -> types.CallToolResult:
        request = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=run.task.task_id))
        result = await self._send(run.connection, request, types.CallToolResult, timeout, run.tool)
        self.running.pop(run.task.task_id, None)
        self.log.append(f"{run.tool}: task {run.task.task_id} {'failed' if result.is_error else 'completed'}")
        return result

    async def _send(self, connection: Connection, request: Any, result_type: Any, timeout: float,
                    tool: str = "a task") -> Any:
        try:
            return await connection._usable().session.send_request(request, result_type,
                                                                    request_read_timeout_seconds=timeout)
        except MCPError as e:
            raise self._failed(connection, tool, request.method, e) from None

    @staticmethod
    def _failed(connection: Connection, tool: str, during: str, e: MCPError) -> ServerError:
        return ServerError(connection.name, f"{during} {tool} as a task failed ({e.code}).",
                           "the server's log, and whether it serves tasks.",
                           f"\n  The server said: {printable(str(e.message))}")
