"""Sizing a room: the memory and cores a hub needs for N learners (`make doctor LEARNERS=20`, WORKSHOP.md's table).

Per learner, as `make bench` measures it (bench/sizing.py: a real JupyterLab server, a kernel per
open lesson, lesson 3 with `make class-cache`; its goals are these figures, so a run that needs
more fails the bench). The Littlest JupyterHub's rule: memory = learners x peak per learner +
what the machine itself runs, with headroom; cores from lesson 3's first run, which every learner
starts at about the same time.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from course.doctor.report import Check

# MB per learner: the larger of `make bench`'s figures (bench/sizing.py, on the 2-core machine: server 106,
# kernel after lesson 3 with the class cache 595, lessons 1-4 and 6 open 1,310, lessons 1, 2, 4 and 6 715)
# and the teacher's rehearsal with a browser (server 160-170, lesson 3 kernel ~720, lessons 1-4 and 6 up to
# 1,500), rounded up. bench/sizing.py's goals are these: a run that needs more fails the bench.
PER_LEARNER = {
    "server": 180,  # the learner's JupyterLab server, after use
    "lesson 3 kernel": 760,  # a kernel after lesson 3, with the class embedding cache
    "2 hours": 800,  # the 2-hour path: lessons 1, 2, 4 and 6 open (no lesson 3), the server included
    "half day": 1500,  # lessons 1-4 and 6 open, the server included
}
# CPU-seconds of the heaviest lesson's run on each path, which the room starts at about the same time
# (bench/sizing.py: lesson 3 with the class cache 11.5, lesson 6 5.3, lessons 1, 2, 4 about 1.5 each).
PEAK_CPU_SECONDS = {"2 hours": 6.0, "half day": 12.0}
BASE_MB = 128 + 700 + 300  # the OS (TLJH's 128 MB), the class MCP server with embeddings, the hub and its proxy
HEADROOM = 1.2  # TLJH: 20-40 % on top
WAIT_SECONDS = 60.0  # how long the room may wait for that lesson's run when everyone starts it together
BASE_CORES = 1  # the hub, the proxy and the class server
PATHS = {"2h": "2 hours", "half-day": "half day"}
ROOMS = (10, 20, 30)


def room(learners: int, path: str = "half-day") -> tuple[int, int]:
    """(GB of memory, cores) for `learners` on `path` ("2h" or "half-day")."""
    which = PATHS[path]
    memory_gb = (learners * PER_LEARNER[which] * HEADROOM + BASE_MB) / 1024
    cores = BASE_CORES + math.ceil(learners * PEAK_CPU_SECONDS[which] / WAIT_SECONDS)
    return math.ceil(memory_gb), max(2, cores)


def table() -> str:
    """WORKSHOP.md's table, as markdown (tests/test_classroom_doctor.py keeps the two in step)."""
    lines = ["| learners | 2-hour path: memory, cores | half day: memory, cores |", "|---|---|---|"]
    for n in ROOMS:
        (m2, c2), (mh, ch) = room(n, "2h"), room(n, "half-day")
        lines.append(f"| {n} | {m2} GB, {c2} cores | {mh} GB, {ch} cores |")
    return "\n".join(lines)


def machine_memory(meminfo: Path = Path("/proc/meminfo")) -> int | None:
    """Total memory in bytes (Linux), None when it cannot be read."""
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def machine_cores() -> int:
    """The cores this process may use (a container's share, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS
        return os.cpu_count() or 1


def enough(memory: int, need_gb: int) -> bool:
    """Whether `memory` bytes hold `need_gb` (5 % short still counts: MemTotal leaves out the kernel's own)."""
    return memory >= need_gb * 2**30 * 0.95


def learners_fitting(memory: int, path: str) -> int:
    """The most learners on `path` that `memory` bytes hold by the table's rule (0: not even one)."""
    n = 0
    while enough(memory, room(n + 1, path)[0]):
        n += 1
    return n


def check_room(learners: int, path: str, memory: int | None, cores: int) -> list[Check]:
    """Memory short of the table is a failure (kernels die); cores short of it a warning (the room waits)."""
    need_gb, need_cores = room(learners, path)
    name = f"{learners} learners, {PATHS[path]}"
    found: list[Check] = []
    if memory is None:
        found.append(Check(f"memory ({name})", "warn", "could not read this machine's memory",
                           f"make sure it has {need_gb} GB (WORKSHOP.md, Sizing)"))
    else:
        shown = f"{memory / 2**30:.1f} GB here, the table says {need_gb} GB"
        fits = learners_fitting(memory, path)
        # Only what is left to choose: a teacher already on the 2-hour path is not told to take it.
        shorter = (f", or the 2-hour path ({room(learners, '2h')[0]} GB)" if path == "half-day" else
                   ", or ask learners to shut down each lesson's kernel when they move on (about half)")
        found.append(Check(f"memory ({name})", "ok" if enough(memory, need_gb) else "fail", shown,
                           f"a machine with {need_gb} GB, at most {fits} learners on this one{shorter} "
                           "(WORKSHOP.md, Sizing); past one machine: Zero to JupyterHub (k8s/)"))
    found.append(Check(f"cores ({name})", "ok" if cores >= need_cores else "warn",
                       f"{cores} here, the table says {need_cores}",
                       f"{need_cores} cores, or " + ("`make class-cache` and lesson 3 started in two groups"
                                                     if path == "half-day" else "lesson 6 started in two groups")))
    return found
