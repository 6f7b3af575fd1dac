"""Inside the sandbox: checks one learner's exercise cells, each in a process forked from this one.

The worker imports the course, makes itself non-dumpable (no process of the sandbox can read its memory
or open its pipes through /proc), says it is ready, then per exercise forks a child that keeps only its
verdict pipe (fd 3), runs the lesson's imports, the cell and the check, and writes one framed line. The
worker ends every other process of the sandbox and answers in order. The child's pipe is the learner's
to forge: the vocabulary rule (vocabulary.py) is what trusts a pass; the framing only refuses a
verdict that other code wrote or completed.
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import sys
import tempfile
import time

WHOLE_NAMESPACE = False  # in bubblewrap /proc shows only the sandbox's processes


def set_limits(limits: dict) -> None:
    for kind, value in ((resource.RLIMIT_CPU, limits["cpu_seconds"]), (resource.RLIMIT_AS, limits["memory_mb"] << 20),
                        (resource.RLIMIT_FSIZE, limits["file_mb"] << 20),
                        (resource.RLIMIT_NPROC, limits["processes"])):
        hard = resource.getrlimit(kind)[1]
        try:
            resource.setrlimit(kind, (value if hard == resource.RLIM_INFINITY else min(value, hard),) * 2)
        except (ValueError, OSError):
            pass


def check_cell(registry, exercise, source: str, options: dict) -> tuple[bool, str, int | None]:
    """`options`: the check's optional parameters from the job (earlier lessons' cells), never from the cell."""
    namespace, _ = registry.run_cell(exercise, exercise.id, "")  # the lesson's imports (`given`)
    try:
        namespace, failed = registry.run_cell(exercise, exercise.id, source, namespace)
        verdict = failed or registry.judge(exercise, namespace, options=options)
    except BaseException as e:  # SystemExit & co: in Jupyter the kernel goes on, here the check cannot
        return False, f"the code raised {type(e).__name__}, which stops the check: remove it from the cell.", None
    return verdict.passed is True, str(verdict.message), verdict.seed


def in_child(run, output: int, wall: float) -> dict:
    """`run()` in a forked child, printing into the file `output`: its exit status is the verdict (0 passed, 1 not),
    its pipe the message."""
    sys.stdout.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        write, exit_now, code = os.write, os._exit, 2
        try:
            os.dup2(output, 1)
            os.dup2(output, 2)
            os.dup2(write_end, 3)
            os.closerange(4, 1 << 16)  # the worker's answers, and everything else, are out of its reach
            passed, message, seed = run()
            sys.stdout.flush()
            sys.stderr.flush()
            code = 0 if passed is True else 1  # a cell can write on fd 3 as well, not set this
            write(3, json.dumps({"message": message, "seed": seed}).encode())
        finally:
            exit_now(code)
    os.close(write_end)
    data, deadline, timed_out = b"", time.monotonic() + wall, False
    while len(data) <= 1 << 16:
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
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    end_others()
    try:
        said = json.loads(data)
        assert isinstance(said["message"], str) and isinstance(said["seed"], int | None)
    except Exception:  # nothing (a crash, a loop), or the cell wrote there too: no message to trust
        said = {"message": "", "seed": None, "forged": bool(data)}
    return {"exit": code, "timed_out": timed_out, "passed": code == 0 and not timed_out, **said}


def end_others() -> None:
    """Kill every process but this one and bubblewrap's init (in process mode, where /proc shows the whole
    machine, every descendant: this process is a subreaper, so detached ones come back to it)."""
    for _ in range(20):
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
        pids = [p for p in pids if WHOLE_NAMESPACE or parent(p) == os.getpid()]
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


def parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def main() -> None:
    import ctypes
    import importlib

    job = json.loads(sys.stdin.read())
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")  # fd 2 is the same pipe, until the course imported
    os.makedirs(job["home"], exist_ok=True)
    os.chdir(job["home"])
    log = os.open("worker.txt", os.O_WRONLY | os.O_CREAT, 0o600)
    for fd, to in ((0, os.open(os.devnull, os.O_RDWR)), (1, log)):
        os.dup2(to, fd)
    set_limits(limits := job["limits"])
    global WHOLE_NAMESPACE  # noqa: PLW0603 -- set once, before any exercise
    WHOLE_NAMESPACE = job["mode"] == "bwrap"
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE off: learner code cannot read its memory nor open its fds
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: in process mode, detached descendants come back
    from course.exercises import registry

    exercises = [importlib.import_module(item["module"]) and registry.REGISTRY[item["id"]] for item in job["exercises"]]
    for module in {m for item in job["exercises"] for m in item.get("modules", ())}:  # the earlier cells' checks
        importlib.import_module(module)
    for given in dict.fromkeys(e.given for e in exercises):  # the lessons' imports, once: each child inherits them
        try:
            exec(compile(given, "<given>", "exec"), {"__name__": "given"})
        except Exception:  # the child runs it again and reports it
            pass
    channel.write(json.dumps({"ready": True}) + "\n")
    channel.flush()
    os.dup2(log, 2)
    for index, (item, exercise) in enumerate(zip(job["exercises"], exercises, strict=True)):
        options = {k: item[k] for k in ("sources", "notebooks") if k in item}
        # A file with no name, on the sandbox's capped tmpfs: no cell can put a folder, a FIFO or a symlink where
        # a later exercise's output goes, nor replace the one the worker reads.
        with tempfile.TemporaryFile(dir=".") as output:
            answer = in_child(lambda e=exercise, s=item["source"], o=options: check_cell(registry, e, s, o),
                              output.fileno(), limits["wall_seconds"])
            output.seek(0)
            text = output.read(limits["output_chars"] * 4)
            lines = text.count(b"\n") + sum(chunk.count(b"\n") for chunk in iter(lambda: output.read(1 << 20), b""))
        answer.update(output=text.decode("utf-8", "replace")[:limits["output_chars"]], index=index,
                      output_lines=lines + (bool(text) and not text.endswith(b"\n")))
        channel.write(json.dumps(answer) + "\n")
        channel.flush()
    os._exit(0)
