"""Runs one learner's exercise cells and their checks, one after another, inside the sandbox
(started by the supervisor).

The checks are taken from the registry and every course module they use is imported before any
learner code runs. Before each cell, everything the verdict depends on (the `course` modules,
builtins, the check itself) is fingerprinted: if the learner's code changed any of it (patched
`run_check`, the registry, a course function, a builtin), that verdict is void whatever the check
said; that, or a thread the cell left running, stops the worker (the exercises left run in a
fresh one). What each cell prints goes to its own output file; each verdict goes, with the job's
nonce and the exercise's index, to the channel the supervisor reads.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import json
import os
import re
import sys
import threading
import types

# Third-party packages cache things in their modules and classes as they run: watching them would void
# honest work. A learner who patches pydantic or openai to fool a check is not caught here (README).
WATCHED = ("course", "json", "inspect")  # builtins: compared and restored on their own (main)
STRICT = ("course", "builtins")  # where even a new name counts (it could shadow a builtin for a check)
CACHES = ("__pydantic", "_abc_", "__signature__", "__parameters__")  # filled in lazily, legitimately


def watched(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in WATCHED)


def identity(value) -> tuple:
    if isinstance(value, types.FunctionType):
        return (id(value), id(value.__code__), id(value.__defaults__), id(value.__kwdefaults__))
    if isinstance(value, type):
        return (id(value), tuple((k, id(v), id(v.__code__) if isinstance(v, types.FunctionType) else 0)
                                 for k, v in list(vars(value).items()) if not k.startswith(CACHES)))
    return (id(value),)


def fingerprint() -> dict:
    seen = {}
    for name, module in list(sys.modules.items()):
        if watched(name) and isinstance(module, types.ModuleType):
            seen[name] = (id(module), {k: identity(v) for k, v in list(vars(module).items())})
    return seen


def changes(before: dict, course: str) -> list[str]:
    """What differs from `before`: a changed or removed name anywhere watched, a new non-module name in course."""
    found = []
    for name, module in list(sys.modules.items()):
        if not watched(name):
            continue
        if name not in before:
            where = getattr(module, "__file__", None) or ""
            if name.startswith("course") and not os.path.realpath(where).startswith(os.path.realpath(course)):
                found.append(f"module {name}")
            continue
        module_id, names = before[name]
        if id(module) != module_id:
            found.append(f"module {name}")
            continue
        now = vars(module)
        strict = any(name == p or name.startswith(p + ".") for p in STRICT)
        for key, value in list(now.items()):
            if key in names:
                if identity(value) != names[key]:
                    found.append(f"{name}.{key}")
            elif strict and not isinstance(value, types.ModuleType):
                found.append(f"{name}.{key}")
        found += [f"{name}.{key}" for key in names if key not in now]
    return found


def preimport(module) -> None:
    """Import the course modules a check uses before the learner's code runs, so none is loaded after it."""
    for name in set(re.findall(r"(?:from|import)\s+(course(?:\.\w+)*)", inspect.getsource(module))):
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def redirect_output(path: str) -> None:
    """Point fds 1 and 2 (and so what the learner's code and its subprocesses print) at one exercise's file."""
    sys.stdout.flush()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def main() -> None:
    job = json.loads(sys.stdin.read())
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    redirect_output(job["outputs"][0])
    sys.stdout = open(1, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)
    sys.stderr = sys.stdout
    # Taken before the learner's code runs: what a cell patches later is not what reports the verdict.
    nonce, exit_now, dumps, write = job.pop("nonce"), os._exit, json.dumps, channel.write

    from course.exercises import registry

    Verdict, judge, run_cell = registry.Verdict, registry.judge, registry.run_cell
    for module in dict.fromkeys(importlib.import_module(item["module"]) for item in job["exercises"]):
        preimport(module)
    exercises = [registry.REGISTRY[item["id"]] for item in job["exercises"]]
    # Compared after every cell too, not only with the state before that cell: a change made between two
    # cells (by a thread or process an earlier cell left behind) is caught as well.
    start, threads = fingerprint(), threading.enumerate
    write(dumps({"nonce": nonce, "ready": True}) + "\n")
    channel.flush()
    for index, (item, exercise) in enumerate(zip(job["exercises"], exercises, strict=True)):
        id = item["id"]
        redirect_output(job["outputs"][index])
        namespace, _ = run_cell(exercise, id, "")  # the lesson's imports (`given`): pristine code
        before, builtin, saved, running = fingerprint(), vars(builtins), dict(vars(builtins)), set(threads())
        namespace, failed = run_cell(exercise, id, item["source"], namespace)
        try:
            verdict = failed or judge(exercise, namespace)
        except Exception as e:  # judge never raises, unless the learner's code broke what it relies on
            verdict = Verdict(id, False, f"the check itself could not run: {type(e).__name__}: {e}")
        # Builtins first, with no builtin called: a patched `isinstance` must not break what follows.
        patched = [f"builtins.{k}" for k in {**builtin, **saved} if builtin.get(k) is not saved.get(k)]
        builtin.clear()
        builtin.update(saved)
        sys.stdout.flush()
        tampered = sorted({*patched, *changes(before, job["course"]), *changes(start, job["course"])})
        # A thread the cell left running could sway the next checks: they run in a fresh process.
        stop = bool(tampered) or any(t not in running for t in threads())
        if tampered:
            verdict = Verdict(id, False, "the code changed the grader or the course while it was checked ("
                              + ", ".join(tampered[:5]) + "): no pass.")
        write(dumps({"nonce": nonce, "index": index, "passed": verdict.passed is True,
                     "message": str(verdict.message), "tampered": tampered, "stop": stop}) + "\n")
        channel.flush()
        if stop:
            break  # the supervisor runs the exercises left in a fresh worker
    exit_now(0)  # no learner atexit handler or thread runs after the verdicts
