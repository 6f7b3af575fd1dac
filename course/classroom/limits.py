"""A fair share of the class server for each learner: one learner's flood slows that learner only (issue 21).

Two limits, both per learner (the token's owner), never global:

- `InFlightLimit`, MCP middleware: at most `in_flight` of a learner's requests are served at once
  (4). A few more (`waiting`, 8) wait for a turn, without a thread, for at most `wait_seconds`:
  a model's parallel tool calls are a burst of a handful, and they are served, not refused.
  Beyond that a request is refused at once with a JSON-RPC error (`TOO_MANY`) that says why and
  what to do: waiting costs memory and time for everyone, refusing costs the flooder one message.
  A `subscriptions/listen` stream (2026-07-28: the course's host opens one per connection to hear
  that the tool list changed) lasts as long as the connection and holds no thread: it takes no
  turn (with turns, a learner's four open connections left no turn for any of their calls), and
  a learner may hold `streams` of them at once (16, as many as sessions); the next is refused.
- `StoreLanes`: the shop-store tools are synchronous and wait for the store's file lock. Run in
  the SDK's shared thread pool (40 threads for everyone), 40 of one learner's writes waiting on
  their own lock left no thread for anyone's search. Each learner's store calls run in a lane of
  their own instead: one thread at a time, under a `CapacityLimiter` of that learner's, so a wait
  for a lock holds that learner's thread, never one of the shared pool; the others wait without
  a thread at all.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread

from course.errors import TOO_MANY_REQUESTS

IN_FLIGHT = 4  # a learner's requests served at once (issue 21: 4 brought a flooded class back to 13 ms)
WAITING = 8  # more may wait for a turn: a burst of parallel tool calls
WAIT_SECONDS = 30.0  # the longest a request waits for its turn before it is refused
STREAMS = 16  # a learner's open subscriptions/listen streams (a connection each): as many as their sessions
LISTEN = "subscriptions/listen"
TOO_MANY = TOO_MANY_REQUESTS  # -32029; the course's host reads it as "not run, try again later" (CallRefused)


# (learner, method, tool or None, which limit: "in-flight", "streams", "sessions"): a refusal, for the call log
Refused = Callable[[str, str, "str | None", str], None]


def learner_of(ctx: Any) -> str | None:
    """The learner whose verified token this request carries (None: no HTTP request, no token)."""
    request = getattr(ctx, "request", None)
    user = getattr(request, "scope", {}).get("user") if request is not None else None
    return getattr(getattr(user, "access_token", None), "client_id", None)


@dataclass
class _Share:
    turns: anyio.Semaphore
    waiting: int = 0
    refused: int = 0
    listening: int = 0  # open subscriptions/listen streams


class InFlightLimit:
    """MCP server middleware: each learner's requests are served `in_flight` at a time; `waiting` more
    wait (at most `wait_seconds`); the rest are refused at once. One instance for all the class
    server's endpoints, so the share is the learner's, whichever endpoint or session they use."""

    def __init__(self, in_flight: int = IN_FLIGHT, waiting: int = WAITING, wait_seconds: float = WAIT_SECONDS,
                 streams: int = STREAMS, on_refused: Refused | None = None):
        if in_flight < 1 or waiting < 0 or streams < 1:
            raise ValueError("in_flight and streams must be at least 1 and waiting at least 0")
        self.in_flight, self.waiting, self.wait_seconds, self.streams = in_flight, waiting, wait_seconds, streams
        self.on_refused = on_refused  # the class server logs each refusal in the learner's call log
        self._shares: dict[str, _Share] = {}

    def share(self, learner: str) -> _Share:
        share = self._shares.get(learner)
        if share is None:
            share = self._shares[learner] = _Share(anyio.Semaphore(self.in_flight))
        return share

    def running(self, learner: str) -> int:
        """How many of `learner`'s requests are being served now."""
        share = self._shares.get(learner)
        return self.in_flight - share.turns.value if share else 0

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        learner = learner_of(ctx)
        if learner is None or ctx.request_id is None:  # a notification: nothing to answer, nothing to hold
            return await call_next(ctx)
        share = self.share(learner)
        if ctx.method == LISTEN:
            return await self._listen(share, learner, ctx, call_next)
        if share.turns.value == 0 and share.waiting >= self.waiting:
            self._refuse(share, learner, ctx, "are being served and")
        share.waiting += 1
        try:
            with anyio.move_on_after(self.wait_seconds) as waited:
                await share.turns.acquire()
        finally:
            share.waiting -= 1
        if waited.cancelled_caught:
            self._refuse(share, learner, ctx, f"have been served for over {self.wait_seconds:g} s while")
        try:
            return await call_next(ctx)
        finally:
            share.turns.release()

    async def _listen(self, share: _Share, learner: str, ctx: Any, call_next: Any) -> Any:
        """A stream for the connection's life: no turn, but at most `streams` of them per learner."""
        if share.listening >= self.streams:
            from mcp import MCPError

            self._count(share, learner, ctx, "streams")
            raise MCPError(code=TOO_MANY, message=(
                f"Too many open connections from you: {self.streams} of yours are listening for changes. Close "
                "the connections you no longer use (a notebook's host: `await host.close()`), then connect again."))
        share.listening += 1
        try:
            return await call_next(ctx)
        finally:
            share.listening -= 1

    def _refuse(self, share: _Share, learner: str, ctx: Any, state: str) -> None:
        from mcp import MCPError

        self._count(share, learner, ctx, "in-flight")
        raise MCPError(code=TOO_MANY, message=self._refusal_text(state))

    def _count(self, share: _Share, learner: str, ctx: Any, limit: str) -> None:
        share.refused += 1
        if self.on_refused is not None:
            tool = (ctx.params or {}).get("name") if ctx.method == "tools/call" else None
            self.on_refused(learner, ctx.method, tool, limit)

    def _refusal_text(self, state: str) -> str:
        """What the refused learner reads (the course's host hands it to the model: course/host/replies.py)."""
        # No "token: ..." in it: the host withholds text that looks like a secret from the model (redact).
        return (f"Too many requests at once from you: {self.in_flight} of yours {state} {self.waiting} more "
                "are waiting. Wait for your earlier calls to finish, then send this one again (the class server "
                "gives every learner the same share).")


class StoreLanes:
    """A lane per learner for the store's synchronous tools: at most one thread each, never a thread
    of the SDK's shared pool. `wrap` turns a sync tool function into an async one that runs it there."""

    def __init__(self, learner: Callable[[], str]):
        self._learner = learner  # the learner being served (the class server: the workspace's owner)
        self._limiters: dict[str, anyio.CapacityLimiter] = {}

    def limiter(self, learner: str) -> anyio.CapacityLimiter:
        limiter = self._limiters.get(learner)
        if limiter is None:
            limiter = self._limiters[learner] = anyio.CapacityLimiter(1)
        return limiter

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        async def in_own_lane(**arguments: Any) -> Any:
            # to_thread copies the context, so the tool still sees the learner's workspace (learners.current).
            return await anyio.to_thread.run_sync(functools.partial(fn, **arguments),
                                                  limiter=self.limiter(self._learner()))
        return in_own_lane

    def take(self, server: Any, names: Iterable[str]) -> None:
        """Serve the tools `names` of `server` (an `MCPServer`) from the learners' lanes."""
        for name in names:
            tool = server._tool_manager.get_tool(name)  # the SDK keeps its tools private; as StrictServer does
            if tool is None or tool.is_async:
                raise ValueError(f"{name}: no such synchronous tool on {server.name}")
            tool.fn, tool.is_async = self.wrap(tool.fn), True
