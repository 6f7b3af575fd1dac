"""A fair class server: one learner's flood of calls or of sessions slows that learner only (issue 21).

The class server runs in this process (its ASGI app behind httpx2's ASGI transport): the tests
hold a learner's store lock, as a slow write would, and look at what the others still get.
Each attack here passed through the server as it was before `limits.py` and `sessions.py`.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import anyio.to_thread
import httpx2
import pytest
from filelock import FileLock
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from course.classroom.limits import IN_FLIGHT, WAITING
from course.classroom.server import build_app

pytestmark = pytest.mark.anyio

BASE = "http://127.0.0.1:8000"
URL = f"{BASE}/mcp"
TOKENS = {"anna-" + "a" * 20: "anna", "ben-" + "b" * 20: "ben"}
TOKEN = {name: token for token, name in TOKENS.items()}
TICKET = {"order_id": "A1001", "subject": "Late parcel", "message": "Where is my parcel?"}
REFUND = {"order_id": "A1002", "amount": 1.0, "reason": "One mug arrived broken."}
DEADLINE = 20.0  # seconds: only ever reached when a call hangs (the failure these tests look for)
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "flood", "version": "1"}}}


@contextlib.asynccontextmanager
async def class_server(tmp_path: Path, **limits) -> AsyncIterator[tuple[object, Path]]:
    app = build_app(TOKENS, data=tmp_path / "work", embedder="lexical", **limits)
    async with app.router.lifespan_context(app):
        yield app, tmp_path / "work"


def http(app, learner: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url=BASE, timeout=DEADLINE,
                              headers={"Authorization": f"Bearer {TOKEN[learner]}"})


@contextlib.asynccontextmanager
async def connected(app, learner: str) -> AsyncIterator[Client]:
    async with http(app, learner) as h, Client(streamable_http_client(URL, http_client=h)) as client:
        yield client


@contextlib.contextmanager
def store_locked(work: Path, learner: str):
    """Hold `learner`'s store lock, as another process changing their shop would."""
    (work / learner).mkdir(parents=True, exist_ok=True)
    lock = FileLock(work / learner / "shop.json.lock")
    with lock.acquire(timeout=5):
        yield


@contextlib.asynccontextmanager
async def turn_taken(app, work: Path, client: Client, learner: str = "anna") -> AsyncIterator[None]:
    """`learner`'s one in-flight turn held by a write waiting on their store lock; the body runs meanwhile (within
    DEADLINE), and the write finishes once it ends."""
    async with anyio.create_task_group() as calls:
        with store_locked(work, learner):
            calls.start_soon(outcome, client, "create_ticket", TICKET)
            with anyio.fail_after(DEADLINE):
                while app.state.share.running(learner) < 1:
                    await anyio.sleep(0.01)
                yield


async def outcome(client: Client, tool: str, arguments: dict) -> str:
    try:
        result = await client.call_tool(tool, arguments)
    except MCPError as e:
        return f"refused: {e.message}"
    return "error" if result.is_error else "ok"


async def test_a_learner_flooding_writes_is_refused_beyond_their_share_while_another_learner_searches(tmp_path):
    results: list[str] = []
    async with class_server(tmp_path) as (app, work), connected(app, "anna") as anna, connected(app, "ben") as ben:
        async def one() -> None:
            results.append(await outcome(anna, "create_ticket", TICKET))

        async with anyio.create_task_group() as flood:
            with store_locked(work, "anna"):  # anna's writes cannot finish: each holds its share while it waits
                for _ in range(IN_FLIGHT + WAITING + 1):
                    flood.start_soon(one)
                with anyio.fail_after(DEADLINE):  # the one beyond her share is answered at once
                    while not results:
                        await anyio.sleep(0.01)
                    hits = await ben.call_tool("search_docs", {"query": "how long do refunds take"})
                assert results == [results[0]] and results[0].startswith("refused: Too many requests at once")
                assert not hits.is_error and json.loads(hits.content[0].text)["hits"]
    assert results.count("ok") == IN_FLIGHT + WAITING  # once the lock is free, every admitted write is done


async def test_a_learners_share_is_theirs_whichever_connection_they_use(tmp_path):
    async with class_server(tmp_path, in_flight=1, waiting=0) as (app, work), \
            connected(app, "anna") as first, connected(app, "anna") as second, connected(app, "ben") as ben:
        async with turn_taken(app, work, first):
            other = await outcome(second, "search_docs", {"query": "refunds"})
            bens = await outcome(ben, "search_docs", {"query": "refunds"})
    assert other.startswith("refused: Too many requests at once")  # a second connection is no second share
    assert bens == "ok"


@pytest.mark.parametrize(("tool", "arguments"), [("create_ticket", TICKET), ("issue_refund", REFUND),
                                                 ("get_order_record", {"order_id": "A1002"})])
async def test_a_learners_store_calls_waiting_on_its_lock_hold_no_thread_of_the_shared_pool(tmp_path, tool,
                                                                                           arguments):
    shared = anyio.to_thread.current_default_thread_limiter()
    tokens, shared.total_tokens = shared.total_tokens, 2  # the SDK's 40 threads, as if 38 were busy already
    try:
        async with class_server(tmp_path) as (app, work), connected(app, "anna") as anna, \
                connected(app, "ben") as ben:
            async with anyio.create_task_group() as calls:
                with store_locked(work, "anna"):
                    for _ in range(3):
                        calls.start_soon(outcome, anna, tool, arguments)
                    await anyio.sleep(0.2)  # let anna's calls reach her store (the fix passes without it too)
                    borrowed = shared.borrowed_tokens
                    with anyio.fail_after(DEADLINE):  # before: both threads waited on anna's lock, ben waited
                        bens = await outcome(ben, "search_docs", {"query": "how long do refunds take"})
    finally:
        shared.total_tokens = tokens
    assert bens == "ok" and borrowed == 0


async def initialize(h: httpx2.AsyncClient) -> httpx2.Response:
    return await h.post("/mcp", json=INITIALIZE, headers={"Accept": "application/json, text/event-stream"})


async def open_sessions_until_refused(h: httpx2.AsyncClient, at_most: int) -> list[str]:
    """Handshake-era sessions opened with `h`'s token until the server says no (or `at_most` of them)."""
    opened: list[str] = []
    while len(opened) < at_most:
        r = await initialize(h)
        if r.status_code != 200:
            assert r.status_code == 503 and "Too many open sessions" in r.text
            break
        opened.append(r.headers["mcp-session-id"])
    return opened


async def test_one_learner_opening_sessions_until_refused_locks_out_nobody_else(tmp_path):
    async with class_server(tmp_path) as (app, _), http(app, "anna") as anna, http(app, "ben") as ben:
        # As many as the server could ever hold (before: the SDK's 10,000 for the whole server).
        cap = max(m.max_sessions for m in app.state.session_managers) if hasattr(app.state, "session_managers") \
            else 10_000
        opened = await open_sessions_until_refused(anna, cap + 1)
        bens = await initialize(ben)
        held = [sum(1 for _ in m._server_instances) for m in getattr(app.state, "session_managers", [])]
    assert bens.status_code == 200 and bens.headers["mcp-session-id"] not in opened
    assert len(opened) <= cap // len(TOKENS) and held and max(held) <= len(opened) + 1


async def test_a_learner_at_their_session_cap_opens_another_once_they_close_one(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="mcp.server.streamable_http_manager")
    async with class_server(tmp_path, sessions=3) as (app, _), http(app, "anna") as anna:
        opened = await open_sessions_until_refused(anna, 10)
        for _ in range(5):
            assert (await initialize(anna)).status_code == 503
        closed = await anna.delete("/mcp", headers={"mcp-session-id": opened[0],
                                                    "mcp-protocol-version": "2025-11-25"})
        again = await initialize(anna)
    assert len(opened) == 3 and closed.status_code == 200 and again.status_code == 200
    said = [r.getMessage() for r in caplog.records if "Refusing" in r.msg or "class server" in r.msg]
    assert said == [said[0]] and "anna holds 3 open sessions" in said[0]  # one line for six refusals, named


async def test_a_learners_idle_sessions_end_and_free_their_share(tmp_path):
    async with class_server(tmp_path, sessions=2, idle_seconds=0.2) as (app, _), http(app, "anna") as anna:
        opened = await open_sessions_until_refused(anna, 10)
        with anyio.fail_after(DEADLINE):  # idle for 0.2 s: ended by the SDK's idle timer, a slot each
            while (await initialize(anna)).status_code != 200:
                await anyio.sleep(0.05)
        gone = await anna.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                               headers={"Accept": "application/json, text/event-stream",
                                        "mcp-session-id": opened[0], "mcp-protocol-version": "2025-11-25"})
    assert len(opened) == 2 and gone.status_code == 404



# A listen stream is a long response: httpx2's ASGI transport waits for a response's end, so these
# two use a real server process (the course's host opens the stream) and the middleware itself.
@pytest.mark.subprocess
async def test_the_courses_host_calls_tools_when_a_learners_share_is_one_call_at_a_time(tmp_path):
    from course.approval import AutoApprover
    from course.classroom.server import serving
    from course.host import McpHost
    from course.host import http as host_http

    tokens = tmp_path / "tokens.txt"
    tokens.write_text("".join(f"{name} {token}\n" for token, name in TOKENS.items()))
    tokens.chmod(0o600)
    with serving(tokens, "--embedder", "lexical", "--data", str(tmp_path / "work"), "--in-flight", "1",
                 "--waiting", "0") as url:
        async with McpHost(approver=AutoApprover(True), quiet=True, timeout=DEADLINE) as host:
            with anyio.fail_after(2 * DEADLINE):  # its listen stream held anna's only turn: connecting hung
                await host.connect("shop", host_http(url, token=TOKEN["anna"]), allow={"search_docs"})
                reply = await host.execute("search_docs", '{"query": "how long do refunds take", "k": 1}')
    assert json.loads(reply)["hits"]


async def test_a_learner_opening_listen_streams_in_a_loop_is_refused_beyond_their_share_and_nobody_else():
    from types import SimpleNamespace

    from course.classroom.limits import LISTEN, InFlightLimit

    def request(learner: str, method: str) -> SimpleNamespace:
        user = SimpleNamespace(access_token=SimpleNamespace(client_id=learner))
        return SimpleNamespace(request=SimpleNamespace(scope={"user": user}), request_id=1, method=method)

    limit, ended = InFlightLimit(in_flight=1, waiting=0, streams=2), anyio.Event()

    async def stream(ctx):  # a listen stream: open until the connection ends
        await ended.wait()

    async def answer(ctx):
        return "ok"

    async with anyio.create_task_group() as streams:
        for _ in range(2):
            streams.start_soon(limit, request("anna", LISTEN), stream)
        await anyio.wait_all_tasks_blocked()
        with pytest.raises(MCPError, match="Too many open connections from you: 2 of yours"):
            await limit(request("anna", LISTEN), stream)
        streams.start_soon(limit, request("ben", LISTEN), stream)  # ben's share is his own
        await anyio.wait_all_tasks_blocked()
        assert limit.share("ben").listening == 1
        assert await limit(request("anna", "tools/call"), answer) == "ok"  # the streams took no turn
        ended.set()
    assert limit.share("anna").listening == 0


async def test_a_learners_refused_calls_are_in_their_call_log_and_class_status_names_them(tmp_path):
    from course.classroom.class_data import class_data
    from course.classroom.status import refusals, table

    async with class_server(tmp_path, in_flight=1, waiting=0) as (app, work), \
            connected(app, "anna") as anna, connected(app, "ben") as ben:
        async with turn_taken(app, work, anna):
            answers = [await outcome(anna, "search_docs", {"query": "refunds"}) for _ in range(3)]
        assert await outcome(ben, "search_docs", {"query": "refunds"}) == "ok"
    assert all(a.startswith("refused: Too many requests at once") for a in answers)
    logged = [json.loads(line) for line in (work / "anna" / "calls.jsonl").read_text().splitlines()]
    assert [(e["tool"], e["refused"]) for e in logged if "refused" in e] == [("search_docs", "in-flight")] * 3
    rows = {r.name: r for r in class_data(work)}
    assert (rows["anna"].refused, rows["anna"].failed, rows["ben"].refused) == (3, 0, 0)  # a refusal is no failure
    shown = table(work, list(rows.values())).splitlines()
    refused_at = shown[1].index("refused") + len("refused")
    assert shown[2].startswith("anna") and shown[2][refused_at - 1] == "3" and shown[3][refused_at - 1] == "0"
    assert "Most: anna (3)" in refusals(list(rows.values())) and "ben" not in refusals(list(rows.values()))


async def test_a_learners_sessions_refused_at_their_cap_are_in_their_call_log(tmp_path):
    from course.classroom.class_data import class_data

    async with class_server(tmp_path, sessions=2) as (app, work), http(app, "anna") as anna:
        await open_sessions_until_refused(anna, 10)
        for _ in range(4):
            assert (await initialize(anna)).status_code == 503
    logged = [json.loads(line) for line in (work / "anna" / "calls.jsonl").read_text().splitlines()]
    assert [e["method"] for e in logged if e.get("refused") == "sessions"] == ["initialize"] * 5
    assert {r.name: r.refused for r in class_data(work)} == {"anna": 5}
