"""Lesson 9: a server's side of MCP tasks — a long tool call answered at once with a task the client polls.

Tasks (SEP-1686) came with protocol 2025-11-25: the client adds `task: {ttl}` to `tools/call`,
the server answers at once with a `CreateTaskResult` (a task id, status `working`), runs the
tool in the background, and the client asks `tasks/get` (status and a status message),
`tasks/result` (waits for the end, then the tool's own `CallToolResult`) or `tasks/cancel`.
A tool says how it may be called in `execution.taskSupport`: `forbidden` (the default),
`optional` or `required`.

In mcp 2.3 tasks are **types only** (`mcp_types._types`, "Tasks: introduced in 2025-11-25,
removed from the core spec in 2026-07-28 (continuing as an extension)"): `MCPServer` neither
lists `execution` nor serves `tasks/*`, and 2026-07-28 has no tasks in its core at all (the
extension is not in the SDK). So the lesson's shop serves them itself, in the handshake era
only, with one `ServerMiddleware` (a public hook of `MCPServer(middleware=...)`) that sees
every request before the SDK does: `TaskRunner`. On a 2026-07-28 connection the same tool is
listed without `execution` and runs as an ordinary call, with progress.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.types import INVALID_PARAMS, METHOD_NOT_FOUND

from course.beyond.progress import progress_text

__all__ = ["ERA", "ServerTask", "TaskRunner", "report"]

ERA = "2025-11-25"  # the only protocol version with tasks in mcp 2.3
TERMINAL = ("completed", "failed", "cancelled")
RELATED = "io.modelcontextprotocol/related-task"  # _meta key tying a message to its task


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class ServerTask:
    """One task as the server keeps it: the wire fields, the background job and its result."""

    task_id: str
    tool: str
    ttl: int | None
    status: str = "working"
    status_message: str | None = None
    created_at: str = field(default_factory=_now)
    last_updated_at: str = field(default_factory=_now)
    result: dict[str, Any] | None = None
    job: asyncio.Task | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def wire(self, poll_interval: int) -> dict[str, Any]:
        task = {"taskId": self.task_id, "status": self.status, "createdAt": self.created_at,
                "lastUpdatedAt": self.last_updated_at, "ttl": self.ttl, "pollInterval": poll_interval}
        if self.status_message is not None:
            task["statusMessage"] = self.status_message
        return task

    def settle(self, status: str, message: str | None = None) -> None:
        if self.status in TERMINAL:  # a cancel that came first wins
            return
        self.status, self.last_updated_at = status, _now()
        if message is not None:
            self.status_message = message
        self.done.set()


_current: contextvars.ContextVar[ServerTask | None] = contextvars.ContextVar("course_current_task", default=None)


async def report(ctx: Any, done: float, total: float | None, message: str | None = None) -> None:
    """How far a tool is: in its task's status message when it runs as a task, else as progress.

    A task's request was answered long ago (with the task id), so progress notifications tied
    to it reach nobody: the client reads `statusMessage` when it polls `tasks/get`.
    """
    task = _current.get()
    if task is None:
        await ctx.report_progress(done, total, message)
        return
    task.status_message, task.last_updated_at = progress_text(done, total, message), _now()


class TaskRunner:
    """The shop's task support, as `MCPServer(middleware=[runner], lifespan=runner.lifespan)`.

    `tools`: tool name -> "optional" or "required". `log` keeps what happened, for the lesson.
    """

    def __init__(self, tools: dict[str, str], *, poll_interval: int = 100, log: list[str] | None = None) -> None:
        self.tools, self.poll_interval = dict(tools), poll_interval
        self.tasks: dict[str, ServerTask] = {}
        self.log = log if log is not None else []
        self._ids = itertools.count(1)

    @asynccontextmanager
    async def lifespan(self, _server: Any) -> AsyncIterator[None]:
        """Background jobs end with the server (a stdio child, or a `Client(server)` block)."""
        try:
            yield
        finally:
            for task in self.tasks.values():
                if task.job is not None and not task.job.done():
                    task.job.cancel()

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.protocol_version != ERA or ctx.request_id is None:
            return await call_next(ctx)
        params = dict(ctx.params or {})
        if ctx.method == "initialize":
            return self._advertise(await call_next(ctx))
        if ctx.method == "tools/list":
            return self._stamp(await call_next(ctx))
        if ctx.method == "tools/call":
            return await self._call(ctx, call_next, params)
        if ctx.method in ("tasks/get", "tasks/result", "tasks/cancel"):
            return await self._answer(ctx.method, self._find(params))
        if ctx.method == "tasks/list":
            return {"tasks": [t.wire(self.poll_interval) for t in self.tasks.values()]}
        return await call_next(ctx)

    def _advertise(self, result: HandlerResult) -> HandlerResult:
        if isinstance(result, dict):  # 2025-11-25: capabilities.tasks says what may run as a task
            result.setdefault("capabilities", {})["tasks"] = {"list": {}, "cancel": {},
                                                              "requests": {"tools": {"call": {}}}}
        return result

    def _stamp(self, result: HandlerResult) -> HandlerResult:
        if isinstance(result, dict):  # MCPServer cannot list `execution`; the runner adds it
            for tool in result.get("tools", []):
                if tool.get("name") in self.tools:
                    tool["execution"] = {"taskSupport": self.tools[tool["name"]]}
        return result

    async def _call(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext,
                    params: dict[str, Any]) -> HandlerResult:
        name, asked = params.get("name"), params.get("task")
        if asked is None:
            if self.tools.get(str(name)) == "required":
                raise MCPError(METHOD_NOT_FOUND, f"{name} runs only as a task (execution.taskSupport is "
                                                 "'required'): call it with params.task.")
            return await call_next(ctx)
        if name not in self.tools:
            raise MCPError(INVALID_PARAMS, f"{name} cannot run as a task (execution.taskSupport is 'forbidden').")
        ttl = asked.get("ttl") if isinstance(asked, dict) else None
        task = ServerTask(f"task-{next(self._ids)}", str(name), ttl if isinstance(ttl, int) else 60_000)
        self.tasks[task.task_id] = task
        task.job = asyncio.create_task(self._run(task, ctx, call_next), name=f"mcp-task-{task.task_id}")
        self.log.append(f"{name}: started as {task.task_id}")
        return {"task": task.wire(self.poll_interval)}

    async def _run(self, task: ServerTask, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> None:
        _current.set(task)
        try:
            result = await call_next(ctx)  # the SDK's own tools/call: arguments checked, the tool run
        except asyncio.CancelledError:
            task.settle("cancelled")
            raise
        except Exception as e:  # noqa: BLE001 - a crashed job is a failed task, said in its status
            task.result = {"content": [{"type": "text", "text": f"Error executing tool {task.tool}"}],
                           "isError": True}
            task.settle("failed", f"{type(e).__name__}")
            return
        task.result = result if isinstance(result, dict) else None
        failed = bool(task.result and task.result.get("isError"))
        task.settle("failed" if failed else "completed")
        self.log.append(f"{task.tool}: {task.task_id} {task.status}")

    def _find(self, params: dict[str, Any]) -> ServerTask:
        task = self.tasks.get(str(params.get("taskId")))
        if task is None:
            raise MCPError(INVALID_PARAMS, f"Failed to retrieve task: no task {params.get('taskId')!r}.")
        return task

    async def _answer(self, method: str, task: ServerTask) -> dict[str, Any]:
        if method == "tasks/get":
            return task.wire(self.poll_interval)
        if method == "tasks/cancel":
            if task.status in TERMINAL:
                raise MCPError(INVALID_PARAMS, f"Cannot cancel {task.task_id}: it is already {task.status}.")
            task.settle("cancelled", "cancelled by the client")
            if task.job is not None:
                task.job.cancel()
            self.log.append(f"{task.tool}: {task.task_id} cancelled by the client")
            return task.wire(self.poll_interval)
        await task.done.wait()  # tasks/result waits for the end
        if task.result is None:
            raise MCPError(INVALID_PARAMS, f"{task.task_id} was {task.status}: it has no result.")
        meta = {**task.result.get("_meta", {}), RELATED: {"taskId": task.task_id}}
        return {**task.result, "_meta": meta}
