"""A rehearsal with N simulated learners: `make class-rehearsal N=20` (before the day, on the machine of the day).

    python -m course.classroom.rehearsal --learners 20 [--embedder auto|lexical] [--rounds 3]

What it simulates, and what not: N learners, each with a token of their own, log in to a class MCP
server started here (a fresh tokens file and data folder, removed afterwards) and run lesson 6's
calls through the course's host, all at once, as a room does at lesson 6 §6: connect, list the
tools, search the documents, read an order, open a ticket and ask for a refund (approved). It does
not start a JupyterHub, JupyterLab servers or kernels: the learners talk to the class server
directly, from this one process. Their kernels' memory is what `make bench` measures
(bench/sizing.py) and WORKSHOP.md's table adds up (`make doctor LEARNERS=N` checks a machine against
it). Printed: the wall time, call latency p50/p95, errors, learners whose
shop holds someone else's writes (goal 0), the class server's peak memory, and this machine's.
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

    def report(self) -> str:
        import psutil

        ms = sorted(t * 1000 for t in self.times) or [0.0]
        p95 = ms[max(0, int(len(ms) * 0.95) - 1)]
        memory = psutil.virtual_memory()
        return "\n".join([
            f"rehearsal: {self.learners} simulated learners, lesson 6's calls, straight to the class server "
            "(no hub, no JupyterLab, no kernels)",
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
    return Rehearsal(learners, seconds, times, errors, crossed, peak[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.classroom.rehearsal", description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=20, metavar="N")
    parser.add_argument("--embedder", choices=["auto", "lexical"], default="auto",
                        help="the class server's search (auto: embeddings, as in the room)")
    parser.add_argument("--rounds", type=int, default=1, help="times each learner runs lesson 6's calls")
    args = parser.parse_args(argv)
    if not 1 <= args.learners <= 200:
        parser.error("--learners: between 1 and 200")
    print(f"starting the class server and {args.learners} simulated learners...", file=sys.stderr, flush=True)
    done = rehearse(args.learners, args.embedder, args.rounds)
    print(done.report())
    return 0 if done.errors == 0 and done.crossed == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
