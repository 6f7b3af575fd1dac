"""Inside the sandbox: checks one learner's exercise cells, each in a process forked from this one.

This worker imports the course, makes itself non-dumpable (no process of the sandbox can read its
memory or open its pipes through /proc), says it is ready, then per exercise forks a child that keeps
only its own verdict pipe (fd 3), runs the lesson's imports, the learner's cell and the check, and
writes one line. The worker reads at most VERDICT_CAP bytes of it within the time limit, ends every
other process of the sandbox, and answers on its stdout, in order. What a child writes on its own
pipe is the learner's to forge: the vocabulary rule (vocabulary.py) is what trusts a pass.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import resource
import select
import signal
import sys
import time

VERDICT_CAP = 1 << 16


def prctl(option: int, value: int) -> None:
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def set_limits(limits: dict) -> None:
    for kind, value in ((resource.RLIMIT_CPU, limits["cpu_seconds"]), (resource.RLIMIT_AS, limits["memory_mb"] << 20),
                        (resource.RLIMIT_FSIZE, limits["file_mb"] << 20),
                        (resource.RLIMIT_NPROC, limits["processes"])):
        hard = resource.getrlimit(kind)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass


def check_cell(registry, exercise, source: str) -> tuple[bool, str]:
    namespace, _ = registry.run_cell(exercise, exercise.id, "")  # the lesson's imports (`given`)
    try:
        namespace, failed = registry.run_cell(exercise, exercise.id, source, namespace)
        verdict = failed or registry.judge(exercise, namespace)
    except (SystemExit, KeyboardInterrupt) as e:  # in Jupyter the kernel goes on; here the check cannot
        return False, (f"the code raised {type(e).__name__}({e}), which stops a script: remove it from the "
                       "exercise cell (in the notebook the kernel just goes on).")
    except Exception as e:
        return False, f"the check itself could not run: {type(e).__name__}: {e}"
    except BaseException as e:  # GeneratorExit, a class of its own: it must not skip the check's own line
        return False, f"the code raised {type(e).__name__}, which is not an error a check can handle: remove it."
    return verdict.passed is True, str(verdict.message)


def in_child(run, output: str, wall: float, whole_namespace: bool) -> dict:
    """`run()` in a forked child with only its verdict pipe; what it answered and how it ended."""
    sys.stdout.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        write, exit_now, fstat, code = os.write, os._exit, os.fstat, 1
        try:
            os.dup2(write_end, 3)
            os.closerange(4, 1 << 16)  # the worker's answers, and everything else, are out of its reach
            fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            pipe = fstat(3)
            passed, message = run()
            sys.stdout.flush()
            sys.stderr.flush()
            now = fstat(3)  # closed or swapped (dup2) by the cell: its own line went first, the exit says so
            if (now.st_dev, now.st_ino) == (pipe.st_dev, pipe.st_ino):
                # Framed by a newline first: a half-line the cell wrote before cannot join the verdict's.
                write(3, b"\n" + repr((passed, message)).encode("utf-8", "replace") + b"\n")
                code = 0
        finally:
            exit_now(code)
    os.close(write_end)
    data, deadline, timed_out = b"", time.monotonic() + wall, False
    while len(data) <= VERDICT_CAP:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([read_end], [], [], left)[0]:
            timed_out = True
            break
        chunk = os.read(read_end, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(read_end)
    os.kill(pid, signal.SIGKILL)  # exited already, or out of time
    _, status = os.waitpid(pid, 0)
    end_others(whole_namespace)
    code = os.waitstatus_to_exitcode(status)
    lines = data.split(b"\n")
    answer = {"exit": code, "timed_out": timed_out, "passed": False, "message": ""}
    try:
        assert len(lines) == 3 and lines[0] == lines[2] == b"" and code == 0
        passed, message = ast.literal_eval(lines[1].decode("utf-8", "replace"))
        assert isinstance(passed, bool) and isinstance(message, str)
        answer.update(passed=passed, message=message)
    except Exception:  # no line (it crashed or looped), or more than the one the child writes: no verdict
        answer["forged"] = bool(data) and not timed_out
    return answer


def end_others(whole_namespace: bool) -> None:
    """Kill every process of the sandbox but this one and its init (bubblewrap's /proc shows only them);
    in process mode, every child of this process (a subreaper: detached descendants come back to it)."""
    for _ in range(20):
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())
                and (whole_namespace or parent(p) == os.getpid())]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        time.sleep(0.01)


def parent(pid: str) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def head(path: str, chars: int) -> tuple[str, int]:
    try:
        with open(path, "rb") as f:
            first = f.read(chars * 4)
            lines = first.count(b"\n") + sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except OSError:
        return "", 0
    return first.decode("utf-8", "replace")[:chars], lines + (bool(first) and not first.endswith(b"\n"))


def main() -> None:
    job = json.loads(sys.stdin.read())
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(os.open(os.devnull, os.O_RDWR), 0)
    os.makedirs(job["home"], exist_ok=True)
    os.chdir(job["home"])
    os.dup2(os.open(os.path.join(job["home"], "worker.txt"), os.O_WRONLY | os.O_CREAT, 0o600), 1)
    set_limits(job["limits"])
    prctl(4, 0)  # PR_SET_DUMPABLE off: learner code cannot read this process's memory nor open its fds
    prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: in process mode, detached descendants come back to be killed
    from course.exercises import registry

    for item in job["exercises"]:
        importlib.import_module(item["module"])
    channel.write(json.dumps({"ready": True}) + "\n")
    channel.flush()
    limits = job["limits"]
    for index, item in enumerate(job["exercises"]):
        output = os.path.join(job["home"], f"output-{index}.txt")
        exercise = registry.REGISTRY[item["id"]]
        answer = in_child(lambda e=exercise, s=item["source"]: check_cell(registry, e, s), output,
                          limits["wall_seconds"], job["mode"] == "bwrap")
        text, lines = head(output, limits["output_chars"])
        channel.write(json.dumps({"index": index, **answer, "output": text, "output_lines": lines}) + "\n")
        channel.flush()
    os._exit(0)
