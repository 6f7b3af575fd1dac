"""A rehearsal with N simulated learners: `make class-rehearsal N=20` (before the day, on the machine of the day).

    python -m course.classroom.rehearsal --learners 20 [--to auto|hub|class-server] [--embedder auto|lexical]

Where the learners go, and the first line it prints says which: as root, with JupyterHub and
configurable-http-proxy installed (`make hub`), to **a real hub** (`rehearsal_hub.py`): each logs
in, gets a server as their own system user and runs lesson 6's calls in a kernel there. Elsewhere
(or `--to class-server`), **straight to the class server**: N learners, a token each, run lesson
6's calls through the course's host from this one process, all at once, as a room does at lesson 6
§6 (connect, list the tools, search the documents, read an order, open a ticket, ask for a refund,
approved); no hub, no JupyterLab, no kernels (their memory is what `make bench` measures in
bench/sizing.py and WORKSHOP.md's table adds up; `make doctor LEARNERS=N` checks a machine against
it). Either way the class server is started here on a fresh tokens file and data folder, removed
afterwards. Printed: the wall time, latency, errors, learners whose shop holds someone else's writes
(goal 0), the class server's memory, the learners' (hub) or this machine's (class server).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ALLOW = {"search_docs", "get_order_record", "create_ticket", "issue_refund"}
CALLS = [("search_docs", {"query": "how long do refunds take", "k": 3}),
         ("get_order_record", {"order_id": "A1002"}),
         ("create_ticket", {"order_id": "A1002", "subject": "Broken mugs", "message": "Two mugs arrived broken."}),
         ("issue_refund", {"order_id": "A1002", "amount": 5.0, "reason": "One mug arrived broken."})]


@dataclass
class Rehearsal:
    learners: int
    seconds: float
    times: list[float]
    errors: int
    crossed: int  # learners whose shop does not hold exactly their own writes
    server_peak_mb: float
    index_seconds: float = 0.0  # from the server's start to its first answered search (not in the figures)

    def report(self) -> str:
        import psutil

        ms = sorted(t * 1000 for t in self.times) or [0.0]
        p95 = ms[max(0, int(len(ms) * 0.95) - 1)]
        memory = psutil.virtual_memory()
        return "\n".join([
            f"rehearsal: {self.learners} simulated learners, lesson 6's calls, straight to the class server "
            "(no hub, no JupyterLab, no kernels)",
            f"  index ready     {self.index_seconds:.1f} s after the server listened (a search before the room starts)",
            f"  time            {self.seconds:.1f} s for {len(self.times)} calls "
            f"({len(self.times) / self.seconds:.0f}/s)",
            f"  latency         p50 {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms",
            f"  errors          {self.errors}",
            f"  crossed shops   {self.crossed} (learners whose shop holds someone else's writes; goal 0)",
            f"  class server    peak {self.server_peak_mb:.0f} MB",
            f"  this machine    {memory.total / 2**30:.1f} GB, {memory.available / 2**30:.1f} GB available",
            f"  a real room of {self.learners} also needs their servers and kernels: "
            f"`make doctor LEARNERS={self.learners}` checks this machine against WORKSHOP.md's table",
        ])


async def learner(url: str, token: str, rounds: int, times: list[float]) -> int:
    from course.approval import AutoApprover
    from course.host import McpHost, http

    errors = 0
    async with McpHost(approver=AutoApprover(True), quiet=True, timeout=120) as host:
        start = time.perf_counter()
        await host.connect("shop", http(url, token=token), allow=ALLOW)  # the log-in: a token, a session
        times.append(time.perf_counter() - start)
        for _ in range(rounds):
            for name, arguments in CALLS:
                start = time.perf_counter()
                await host.execute(name, json.dumps(arguments))
                times.append(time.perf_counter() - start)
                errors += host.outcomes[-1].is_error
    return errors


async def warm_up(url: str, token: str) -> None:
    """One search before the room starts: the server's index is loaded, as it is long before a real class."""
    from course.host import McpHost, http

    async with McpHost(quiet=True, timeout=300) as host:
        await host.connect("shop", http(url, token=token), allow={"search_docs"})
        await host.execute("search_docs", '{"query": "refunds"}')


def watch(pid: int, peak: list[float], stop: threading.Event) -> None:
    import psutil

    process = psutil.Process(pid)
    while not stop.is_set():
        try:
            peak[0] = max(peak[0], process.memory_info().rss / 2**20)
        except psutil.Error:
            return
        stop.wait(0.1)


def rehearse(learners: int, embedder: str = "auto", rounds: int = 1) -> Rehearsal:
    import psutil

    from course.classroom.learners import new_tokens, read_tokens, write_tokens
    from course.classroom.server import serving

    with tempfile.TemporaryDirectory(prefix="course-rehearsal-") as folder:
        tokens_file = Path(folder) / "tokens.txt"
        write_tokens(tokens_file, new_tokens(f"learner-{i:02d}" for i in range(1, learners + 1)))
        tokens = read_tokens(tokens_file)
        data = Path(folder) / "class"
        with serving(tokens_file, "--embedder", embedder, "--data", str(data), timeout=180) as url:
            server = next(p.pid for p in psutil.Process().children() if "course.classroom" in " ".join(p.cmdline()))
            peak, stop = [0.0], threading.Event()
            watcher = threading.Thread(target=watch, args=(server, peak, stop), daemon=True)
            watcher.start()
            start = time.perf_counter()
            asyncio.run(warm_up(url, next(iter(tokens))))
            ready = time.perf_counter() - start
            times: list[float] = []
            start = time.perf_counter()

            async def room() -> list[int]:
                return await asyncio.gather(*(learner(url, token, rounds, times) for token in tokens))

            errors = sum(asyncio.run(room()))
            seconds = time.perf_counter() - start
            stop.set()
            watcher.join()
        crossed = 0
        for name in tokens.values():
            shop = json.loads((data / name / "shop.json").read_text())
            crossed += len(shop["tickets"]) != rounds or any(r["order_id"] != "A1002" for r in shop["refunds"])
    return Rehearsal(learners, seconds, times, errors, crossed, peak[0], ready)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.classroom.rehearsal", description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=20, metavar="N")
    parser.add_argument("--embedder", choices=["auto", "lexical"], default="auto",
                        help="the class server's search (auto: embeddings, as in the room)")
    parser.add_argument("--rounds", type=int, default=1, help="times each learner runs lesson 6's calls")
    parser.add_argument("--to", choices=["auto", "hub", "class-server"], default="auto",
                        help="hub: log in to a real JupyterHub (root); class-server: straight to it; auto: the hub "
                             "when this machine can run one")
    args = parser.parse_args(argv)
    if not 1 <= args.learners <= 200:
        parser.error("--learners: between 1 and 200")
    from course.classroom import rehearsal_hub

    why_not = rehearsal_hub.possible()
    if args.to == "hub" and why_not:
        parser.exit(2, f"no hub rehearsal here: {why_not}\n")
    if args.to != "class-server" and not why_not:
        print(f"starting the class server, a JupyterHub and {args.learners} simulated learners...",
              file=sys.stderr, flush=True)
        run = rehearsal_hub.rehearse_on_hub(args.learners, args.embedder)
        print(rehearsal_hub.report(run))
        return 0 if not any(r.errors or r.problem for r in run.learners) else 1
    if args.to == "auto":
        print(f"no hub here ({why_not}): the learners go straight to the class server", file=sys.stderr)
    print(f"starting the class server and {args.learners} simulated learners...", file=sys.stderr, flush=True)
    done = rehearse(args.learners, args.embedder, args.rounds)
    print(done.report())
    return 0 if done.errors == 0 and done.crossed == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
