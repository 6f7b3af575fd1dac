"""Class MCP server: 30 learners x 100 calls through the course's host, one server on loopback (goal: 0 errors).

Each learner is a `McpHost` of their own (their token, approval on) calling the document server's
tools in turn: search, order record, a section, a new ticket (a write, approved). All 30 run at
once against one `course.classroom` process. Reported: errors (goal 0), calls whose
result landed in another learner's workspace (goal 0), call latency p50/p95 as the host sees it,
calls per second, and the server's peak memory. Run with the lexical index and with embeddings.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

import psutil

from bench._figures import Figure, at_most
from course.approval import AutoApprover
from course.classroom.learners import new_tokens, read_tokens
from course.classroom.rehearsal import watch
from course.classroom.server import serving
from course.host import McpHost, http

LEARNERS, CALLS = 30, 100
ALLOW = {"search_docs", "read_section", "get_order_record", "create_ticket"}
ROUND = [("search_docs", {"query": "how long do refunds take", "k": 3}),
         ("get_order_record", {"order_id": "A1002"}),
         ("read_section", {"document": "refunds", "section": "Time limits"}),
         ("create_ticket", {"order_id": "A1001", "subject": "Late parcel", "message": "Where is my parcel?"})]


async def learner(url: str, token: str, times: list[float]) -> int:
    errors = 0
    async with McpHost(approver=AutoApprover(True), quiet=True, timeout=60) as host:
        await host.connect("shop", http(url, token=token), allow=ALLOW)
        for i in range(CALLS):
            name, arguments = ROUND[i % len(ROUND)]
            start = time.perf_counter()
            await host.execute(name, json.dumps(arguments))
            times.append(time.perf_counter() - start)
            errors += host.outcomes[-1].is_error
    return errors


async def load(url: str, tokens: dict[str, str]) -> tuple[list[float], int, float]:
    times: list[float] = []
    start = time.perf_counter()
    errors = await asyncio.gather(*(learner(url, token, times) for token in tokens))
    return times, sum(errors), time.perf_counter() - start


def run(embedder: str) -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder:
        tokens_file = Path(folder) / "tokens.txt"
        tokens_file.write_text(new_tokens(f"learner-{i:02d}" for i in range(1, LEARNERS + 1)))
        tokens = read_tokens(tokens_file)
        work = Path(folder) / "work"
        with serving(tokens_file, "--embedder", embedder, "--data", str(work)) as url:
            server_pid = next(p.pid for p in psutil.Process().children() if "course.classroom" in
                              " ".join(p.cmdline()))
            peak, stop = [0.0], threading.Event()
            watcher = threading.Thread(target=watch, args=(server_pid, peak, stop), daemon=True)
            watcher.start()
            times, errors, seconds = asyncio.run(load(url, tokens))
            stop.set()
            watcher.join()
        tickets = CALLS // len(ROUND)
        crossed = sum(len(json.loads((work / name / "shop.json").read_text())["tickets"]) != tickets
                      for name in tokens.values())
    ms = sorted(t * 1000 for t in times)
    label = f"{embedder}, {LEARNERS} learners x {CALLS} calls"
    return [Figure(f"{label}: errors", errors, "", at_most(0)),
            Figure(f"{label}: learners with someone else's writes", crossed, "", at_most(0)),
            Figure(f"{label}: calls", len(ms)),
            Figure(f"{label}: p50", statistics.median(ms), "ms"),
            Figure(f"{label}: p95", ms[int(len(ms) * 0.95) - 1], "ms"),
            Figure(f"{label}: throughput", len(ms) / seconds, "calls/s"),
            Figure(f"{label}: server peak memory", peak[0], "MiB")]


def main() -> list[Figure]:
    return [figure for embedder in ("lexical", "auto") for figure in run(embedder)]
