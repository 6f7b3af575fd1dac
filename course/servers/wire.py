"""See the JSON-RPC messages a client and a server exchange (lesson 5).

    log = []
    async with Client(recorded(stdio_client(params), log)) as client:
        await client.call_tool("search_docs", {"query": "refunds"})
    for direction, message in log: ...      # "->" client to server, "<-" server to client

`recorded` wraps any client transport (stdio, Streamable HTTP) and keeps each message as
the JSON that travels (camelCase, by alias), in order. An in-memory `Client(server)` has no
wire: it calls the server directly, so there is nothing to record there.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any

import anyio

__all__ = ["recorded"]


def as_wire_json(item: Any) -> Any:
    message = getattr(item, "message", item)  # a SessionMessage wraps the JSON-RPC message
    if hasattr(message, "model_dump"):
        return message.model_dump(mode="json", by_alias=True, exclude_none=True)
    return repr(message)  # an exception the transport passed up


class _Recorded:
    """Wraps one end of a transport stream; everything but the recording goes to the stream."""

    def __init__(self, inner: Any, log: list):
        self._inner, self._log = inner, log

    def __getattr__(self, name: str) -> Any:  # e.g. aclose, last_context
        return getattr(self._inner, name)

    # `async with` looks these up on the class, not through __getattr__.
    async def __aenter__(self) -> _Recorded:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._inner.aclose()


class _Reader(_Recorded):
    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._log.append(("<-", as_wire_json(item)))
        return item

    def __aiter__(self) -> _Reader:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None


class _Writer(_Recorded):
    async def send(self, item: Any) -> None:
        self._log.append(("->", as_wire_json(item)))
        await self._inner.send(item)


@asynccontextmanager
async def recorded(transport: Any, log: list):
    """A client transport that appends ("->" | "<-", message JSON) to `log` for every message."""
    async with transport as (read, write):
        yield _Reader(read, log), _Writer(write, log)
