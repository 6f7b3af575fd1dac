"""Checks one learner's exercise cells inside the sandbox (started by the supervisor): each in a
process of its own, forked from a worker that has imported the course and runs no learner code.

The worker imports every course module the checks use, fingerprints them, says it is ready, then
forks a child per exercise. The child closes the worker's channel before anything else, runs the
lesson's imports, the learner's cell and the check, and writes its verdict on a pipe of its own;
what it prints goes to that exercise's output file. The worker reads the pipe (within the time
limit), kills whatever the child left running, and writes the verdict, with the job's nonce and
the exercise's index, on the channel the supervisor reads. So nothing a cell does (patch the
grader, start a thread, set a signal, write a forged verdict) reaches another exercise's check or
verdict: each child starts from the worker's pristine memory.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import json
import os
import select
import signal
import sys
import time

from course.grading.fingerprints import changes, fingerprint, preimport
from course.grading.reaping import become_subreaper, end_children, set_dumpable

PIPE_LIMIT = 1 << 20  # a verdict is a few hundred bytes: more is the learner's code writing


def redirect_output(path: str) -> None:
    """Point fds 1 and 2 (and so what the learner's code and its subprocesses print) at one exercise's file."""
    sys.stdout.flush()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def check_cell(registry, exercise, item: dict, start: dict, course: str) -> dict:
    """Run the lesson's imports, the learner's cell and the check; the verdict, void if the cell changed
    what the verdict depends on. `start` is the worker's fingerprint: this process is a fork of it, and the
    lesson's imports change nothing it watches, so one comparison covers the whole cell."""
    id = exercise.id
    Verdict, judge, run_cell = registry.Verdict, registry.judge, registry.run_cell
    namespace, _ = run_cell(exercise, id, "")  # the lesson's imports (`given`): pristine code
    builtin, saved = vars(builtins), dict(vars(builtins))
    try:
        namespace, failed = run_cell(exercise, id, item["source"], namespace)
        verdict = failed or judge(exercise, namespace)
    except (SystemExit, KeyboardInterrupt) as e:  # in Jupyter the kernel goes on; here the check cannot
        verdict = Verdict(id, False, f"the code raised {type(e).__name__}({e}), which stops a script: remove it "
                                     "from the exercise cell (in the notebook the kernel just goes on).")
    except Exception as e:  # judge never raises, unless the learner's code broke what it relies on
        verdict = Verdict(id, False, f"the check itself could not run: {type(e).__name__}: {e}")
    # Builtins first, with no builtin called: a patched `isinstance` must not break what follows.
    patched = [f"builtins.{k}" for k in {**builtin, **saved} if builtin.get(k) is not saved.get(k)]
    builtin.clear()
    builtin.update(saved)
    sys.stdout.flush()
    tampered = sorted({*patched, *changes(start, course)})
    if tampered:
        verdict = Verdict(id, False, "the code changed the grader or the course while it was checked ("
                          + ", ".join(tampered[:5]) + "): no pass.")
    return {"passed": verdict.passed is True, "message": str(verdict.message), "tampered": tampered}


def in_child(run, channel: int, output: str, wall: float) -> dict:
    """`run()` in a forked child; what it wrote on its pipe, how it ended, and whether it ran out of time."""
    sys.stdout.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: from here on, learner code may run
        # Taken before the learner's code runs, so a patched `os` neither forges the answer nor keeps the child
        # alive; the answer is a repr of plain values (builtins are put back by check_cell), not json.
        write, exit_now = os.write, os._exit
        try:
            os.close(channel)  # the verdicts of the other exercises are out of its reach
            os.close(read_end)
            set_dumpable(True)
            redirect_output(output)
            answer = run()
            write(write_end, repr((answer["passed"] is True, str.__str__(answer["message"]),
                                   [str.__str__(t) for t in answer["tampered"]])).encode("utf-8", "replace") + b"\n")
        finally:
            exit_now(0)  # no learner atexit handler or thread runs after the verdict
    os.close(write_end)
    data, deadline, timed_out = b"", time.monotonic() + wall, False
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([read_end], [], [], left)[0]:
            timed_out = True
            break
        chunk = os.read(read_end, 1 << 16)
        if not chunk or len(data) > PIPE_LIMIT:
            break
        data += chunk
    os.close(read_end)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    end_children()  # what the cell left running: detached, it was handed over to us (a subreaper)
    code = os.waitstatus_to_exitcode(status)
    lines = [line for line in data.split(b"\n") if line.strip()]
    verdict = parsed(lines[0]) if len(lines) == 1 else None
    # The child writes one verdict and exits 0 at once. Anything else on its pipe (a second verdict, one
    # followed by a kill or another exit code, garbage) is the learner's code writing: void.
    forged = bool(lines) and not timed_out and (verdict is None or code != 0)
    return {"verdict": None if forged or timed_out else verdict, "exit": code, "timed_out": timed_out,
            "forged": forged}


def parsed(line: bytes) -> dict | None:
    """The verdict a child wrote (see in_child), or None if the line is not one."""
    try:
        passed, message, tampered = ast.literal_eval(line.decode("utf-8", "replace"))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if not (isinstance(passed, bool) and isinstance(message, str) and isinstance(tampered, list)):
        return None
    return {"passed": passed, "message": message, "tampered": tampered}


def main() -> None:
    job = json.loads(sys.stdin.read())
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    redirect_output(job["outputs"][0])
    sys.stdout = open(1, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)
    sys.stderr = sys.stdout
    set_dumpable(False)  # the children cannot open this process's channel through /proc
    become_subreaper()
    nonce = job.pop("nonce")

    from course.exercises import registry

    for module in dict.fromkeys(importlib.import_module(item["module"]) for item in job["exercises"]):
        preimport(module)
    exercises = [registry.REGISTRY[item["id"]] for item in job["exercises"]]
    start = fingerprint()
    channel.write(json.dumps({"nonce": nonce, "ready": True}) + "\n")
    channel.flush()
    wall = job["limits"]["wall_seconds"]
    for index, (item, exercise) in enumerate(zip(job["exercises"], exercises, strict=True)):
        def run(item=item, exercise=exercise) -> dict:
            return check_cell(registry, exercise, item, start, job["course"])

        if hasattr(os, "fork"):
            answer = in_child(run, channel.fileno(), job["outputs"][index], wall)
        else:  # Windows: the runner sends one exercise per sandbox, and it is checked here
            redirect_output(job["outputs"][index])
            answer = {"verdict": run(), "exit": 0, "timed_out": False, "forged": False}
        channel.write(json.dumps({"nonce": nonce, "index": index, **answer}) + "\n")
        channel.flush()
    os._exit(0)
