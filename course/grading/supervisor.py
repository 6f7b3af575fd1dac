"""The top process of a sandbox (no learner code runs here): limits, the worker, the clean-up.

It reads a job on stdin (one learner's exercises), sets the OS limits (inherited by the worker and
its children), makes itself the reaper of orphaned descendants (Linux), runs `course.grading.worker`,
kills the worker's process group and every descendant left, and prints one JSON line: the worker's
verdicts in order (each with how its exercise's child ended), whether the worker stalled, and the
head of what each exercise printed.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from course.grading.reaping import become_subreaper, end_children

STARTUP_SECONDS = 120  # for the worker to import the course before the first exercise (a busy machine)
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


def end_descendants(worker: subprocess.Popen) -> None:
    try:
        os.killpg(worker.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):  # gone; or no process groups (Windows)
        pass
    worker.kill()
    worker.wait()
    end_children()


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


def read_verdicts(worker: subprocess.Popen, nonce: str, wall: float) -> tuple[list[dict], bool, bool]:
    """The nonce-tagged lines of the worker's channel after its "ready" line, each within `wall` seconds
    of the one before; whether the last wait ran out of time; and whether the worker got ready."""
    assert worker.stdout is not None
    fd, buffer, ready = worker.stdout.fileno(), b"", False
    verdicts: list[dict] = []
    deadline = time.monotonic() + STARTUP_SECONDS  # the first exercise's time starts when the worker is ready
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return verdicts, True, ready
            # A descendant may hold the channel open after the worker exits: then no end of file comes.
            exited = worker.poll() is not None
            if not selector.select(0 if exited else min(left, 0.2)):
                if exited:
                    return verdicts, False, ready
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:  # the worker is exiting: its exit code tells a crash from a clean end
                try:
                    worker.wait(timeout=max(left, 0.1))
                except subprocess.TimeoutExpired:
                    return verdicts, True, ready
                return verdicts, False, ready
            *lines, buffer = (buffer + chunk).split(b"\n")
            for line in lines:
                try:
                    candidate = json.loads(line.decode("utf-8", "replace"))
                except ValueError:
                    continue
                if isinstance(candidate, dict) and candidate.get("nonce") == nonce:
                    # Written before any learner code runs, so it cannot be forged; a later one is a verdict
                    # with no index (irregular).
                    if not ready and not verdicts and candidate.get("ready"):
                        ready = True
                    else:
                        verdicts.append(candidate)
                    deadline = time.monotonic() + wall  # the next exercise's time starts now


def irregular(verdicts: list[dict]) -> bool:
    """Whether the channel shows lines only someone else could write: the worker writes verdicts 0, 1, ...
    in order, each once (its children, where learner code runs, do not hold the channel)."""
    return [v.get("index") for v in verdicts] != list(range(len(verdicts)))


def main() -> None:
    job = json.loads(sys.stdin.read())
    limits, count = job["limits"], len(job["exercises"])
    set_limits(limits)
    become_subreaper()
    private = Path(job["private"])
    outputs = [private / f"output-{index}.txt" for index in range(count)]
    job["outputs"] = [str(path) for path in outputs]
    with outputs[0].open("ab") as out:  # the worker's own errors, before its first exercise, land here
        worker = subprocess.Popen([job["python"], "-I", "-c", BOOT, job["course"]], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=out, cwd=private / "home",
                                  process_group=0 if os.name == "posix" else None)
    assert worker.stdin is not None
    try:
        worker.stdin.write(json.dumps(job).encode())
        worker.stdin.close()
    except BrokenPipeError:
        pass
    # The worker enforces the limit per exercise; this is in case the worker itself stalls.
    verdicts, timed_out, ready = read_verdicts(worker, job["nonce"], limits["wall_seconds"] + 10)
    end_descendants(worker)
    forged = irregular(verdicts)
    shown = [head(path, limits["output_chars"]) for path in outputs]
    problem = {} if ready else {"problem": "the grader's worker did not start: " + (
        f"it was not ready after {STARTUP_SECONDS} s (a very busy machine?)" if timed_out else
        f"it exited with code {worker.returncode} before the first exercise; "
        + (shown[0][0].strip().splitlines() or ["no output"])[-1][:200])}
    print(json.dumps({"nonce": job["nonce"], **problem, "verdicts": [] if forged else verdicts,
                      "tampered": ["the verdict channel: a verdict the grader did not write"] if forged else [],
                      "timed_out": timed_out, "exit": worker.returncode,
                      "outputs": [{"output": text, "output_lines": lines} for text, lines in shown]}))
