"""The top process of a sandbox (no learner code runs here): limits, the worker, the clean-up.

It reads a job on stdin, sets the OS limits (inherited by the worker), makes itself the reaper of
orphaned descendants (Linux), runs `course.grading.worker` with a wall-clock limit, kills the
worker's process group and every descendant left, and prints one JSON line: the worker's verdict
(or none), whether it timed out, and the head of what the learner's code printed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from course.grading.worker import main; main()"


def set_limits(limits: dict) -> None:
    try:
        import resource
    except ImportError:  # Windows: the wall-clock limit and the process group still apply
        return
    wanted = {"RLIMIT_CPU": limits["cpu_seconds"], "RLIMIT_AS": limits["memory_mb"] << 20,
              "RLIMIT_FSIZE": limits["file_mb"] << 20, "RLIMIT_NPROC": user_processes() + limits["processes"]}
    for name, value in wanted.items():
        kind = getattr(resource, name, None)
        if kind is None:
            continue
        soft, hard = resource.getrlimit(kind)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass  # e.g. macOS refuses RLIMIT_AS; the other limits still hold


def user_processes() -> int:
    """How many processes this account runs already (RLIMIT_NPROC counts them all)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return 256
    uid, count = os.getuid(), 0
    for status in proc.glob("[0-9]*/status"):
        try:
            count += any(line.split()[1:2] == [str(uid)] for line in status.read_text().splitlines()
                         if line.startswith("Uid:"))
        except OSError:
            continue
    return count


def become_subreaper() -> None:
    """Orphaned descendants (a learner's detached background process) become our children, so we can end them."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        except (OSError, AttributeError):
            pass


def children() -> list[int]:
    me, found = os.getpid(), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == me:
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def end_descendants(worker: subprocess.Popen) -> None:
    try:
        os.killpg(worker.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):  # gone; or no process groups (Windows)
        pass
    worker.kill()
    worker.wait()
    for _ in range(50):  # each round, the orphans of what we killed become our children
        left = children() if Path("/proc").is_dir() else []
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ChildProcessError, ProcessLookupError):
                pass
        time.sleep(0.01)


def head(path: Path, chars: int) -> tuple[str, int]:
    """The first `chars` characters of what was printed, and how many lines there were."""
    if not path.exists():
        return "", 0
    lines = 0
    with path.open("rb") as f:
        first = f.read(chars * 4)
        lines += first.count(b"\n")
        while chunk := f.read(1 << 20):
            lines += chunk.count(b"\n")
    if first and not first.endswith(b"\n"):
        lines += 1
    return first.decode("utf-8", "replace")[:chars], lines


def main() -> None:
    job = json.loads(sys.stdin.read())
    limits = job["limits"]
    set_limits(limits)
    become_subreaper()
    private = Path(job["private"])
    output = private / "output.txt"
    with output.open("wb") as out:
        worker = subprocess.Popen([job["python"], "-I", "-c", BOOT, job["course"]], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=out, cwd=private / "home",
                                  process_group=0 if os.name == "posix" else None)
        timed_out = False
        try:
            answer, _ = worker.communicate(json.dumps(job).encode(), timeout=limits["wall_seconds"])
        except subprocess.TimeoutExpired:
            timed_out, answer = True, b""
        end_descendants(worker)
    verdict = None
    for line in answer.decode("utf-8", "replace").splitlines():
        try:
            candidate = json.loads(line)
        except ValueError:
            continue
        if isinstance(candidate, dict) and candidate.get("nonce") == job["nonce"]:
            verdict = candidate
    text, lines = head(output, limits["output_chars"])
    print(json.dumps({"nonce": job["nonce"], "verdict": verdict, "timed_out": timed_out,
                      "exit": worker.returncode, "output": text, "output_lines": lines}))
