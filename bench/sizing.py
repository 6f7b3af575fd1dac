"""Sizing a room: one learner's memory on a JupyterLab server, as WORKSHOP.md's table assumes (goal: within it).

A real `jupyter lab` (the course's venv, as a hub's learner runs it) with five notebooks open,
each in a kernel of its own started through the server's sessions API, as a browser tab does;
lessons 1, 2, 3, 4 and 6 are run cell by cell in them (scripted model, scripted approver; lesson 3
with the class embedding cache of `make class-cache`). Measured: the JupyterLab server's memory
after that use, each kernel's (with its child processes) after its lesson, and the learner's
total with all five open. The goals are the per-learner figures `make doctor` and WORKSHOP.md's
table size a room from (`course/doctor/sizing.py`): a measurement above them means the table is
wrong. CPU-seconds of lesson 3's first run are reported too. RSS, not PSS: libraries the
kernels share are counted in each, as `top` and a hub's per-learner limit see them.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2
import nbformat
import psutil

from bench._figures import Figure, at_most
from course import offline
from course.doctor import sizing
from course.processes import free_port

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ["01_tool_calling", "02_agent_loop", "03_document_search", "04_permissions", "06_mcp_client"]
MB = 2**20
CELL_TIMEOUT = 300


def tree_rss(process: psutil.Process) -> int:
    """Resident bytes of a process and its children (lesson 6's servers are the kernel's children)."""
    total = 0
    for p in [process, *process.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def tree_cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system + times.children_user + times.children_system


def environment(work: Path, cache: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in offline.REAL_MODEL}
    env |= offline.SCRIPTED | {"COURSE_WORK": str(work), "JUPYTER_RUNTIME_DIR": str(work / "runtime"),
                               "CI": "1", "PYTHONPATH": str(ROOT)}
    offline.use_local_models(env)
    if cache is not None:
        env["COURSE_SHARED_EMBEDDINGS"] = str(cache)
    return env


def class_cache(out: Path) -> Path | None:
    """The teacher's `make class-cache`, into `out` (None when the model does not load here)."""
    try:
        from course.classroom.class_cache import build

        build(out)
        return out
    except SystemExit:
        return None


class Lab:
    """A `jupyter lab` server on loopback with a token; kernels opened through its sessions API."""

    def __init__(self, env: dict[str, str]):
        self.port, self.token = free_port(), secrets.token_urlsafe(16)
        self.env = env
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Lab:
        command = [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", f"--port={self.port}",
                   f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={ROOT}", "--ServerApp.ip=127.0.0.1"]
        if os.getuid() == 0:
            command.append("--allow-root")
        self.process = subprocess.Popen(command, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.http = httpx2.Client(base_url=self.url, headers={"Authorization": f"token {self.token}"}, timeout=120)
        for _ in range(240):
            try:
                if self.http.get("/api/status").status_code == 200:
                    break
            except httpx2.TransportError:
                pass
            time.sleep(0.5)
        else:
            raise RuntimeError("jupyter lab did not start within 120 s")
        self.http.get("/lab")  # the page a learner's browser loads
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def open(self, notebook: str) -> tuple[Any, psutil.Process]:
        """Open `notebook` as JupyterLab does (a session, a kernel): its client and its kernel's process."""
        path = f"notebooks/{notebook}.ipynb"
        self.http.get(f"/api/contents/{path}", params={"content": 1})
        session = self.http.post("/api/sessions", json={"path": path, "type": "notebook", "name": path,
                                                        "kernel": {"name": "course"}}).json()
        kernel_id = session["kernel"]["id"]
        connection = Path(self.env["JUPYTER_RUNTIME_DIR"]) / f"kernel-{kernel_id}.json"
        for _ in range(120):
            if connection.exists():
                break
            time.sleep(0.5)
        from jupyter_client import BlockingKernelClient

        client = BlockingKernelClient(connection_file=str(connection))
        client.load_connection_file()
        client.start_channels()
        client.wait_for_ready(timeout=120)
        assert self.process is not None
        kernel = next(p for p in psutil.Process(self.process.pid).children(recursive=True)
                      if kernel_id in " ".join(p.cmdline()))
        return client, kernel


def run_cells(client: Any, notebook: str) -> int:
    """Run the notebook's code cells in its kernel, as Run All does; the number of cells that raised."""
    nb = nbformat.read(ROOT / "notebooks" / f"{notebook}.ipynb", as_version=4)
    errors = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.strip():
            reply = client.execute_interactive(cell.source, timeout=CELL_TIMEOUT, output_hook=lambda msg: None)
            errors += reply["content"]["status"] != "ok"
    return errors


def measure() -> dict[str, float]:
    """The figures, in MB and CPU-seconds."""
    found: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="course-sizing-") as tmp:
        work = Path(tmp)
        cache = class_cache(work / "class-embeddings")
        found["class cache built"] = float(cache is not None)
        with Lab(environment(work, cache)) as lab:
            assert lab.process is not None
            server = psutil.Process(lab.process.pid)
            found["server, started"] = server.memory_info().rss / MB
            kernels, errors = [], 0
            for lesson in LESSONS:
                client, kernel = lab.open(lesson)
                cpu = tree_cpu(kernel)
                errors += run_cells(client, lesson)
                kernels.append(kernel)
                found[f"kernel after {lesson}"] = tree_rss(kernel) / MB
                found[f"kernel CPU-s, {lesson}"] = tree_cpu(kernel) - cpu
                client.stop_channels()
            found["cells that raised"] = errors
            found["server, after use"] = server.memory_info().rss / MB
            rss = {lesson: tree_rss(kernel) for lesson, kernel in zip(LESSONS, kernels, strict=True)}
            found["learner, lessons 1-4 and 6 open"] = (server.memory_info().rss + sum(rss.values())) / MB
            found["learner, lessons 1, 2, 4 and 6 open"] = (server.memory_info().rss + sum(
                v for lesson, v in rss.items() if not lesson.startswith("03"))) / MB
    return found


def main() -> list[Figure]:
    found = measure()
    per = sizing.PER_LEARNER
    goals = {"server, after use": per["server"], "kernel after 03_document_search": per["lesson 3 kernel"],
             "learner, lessons 1-4 and 6 open": per["half day"], "learner, lessons 1, 2, 4 and 6 open": per["2 hours"]}
    figures = []
    for name, value in found.items():
        unit = "s" if "CPU-s" in name else "" if name in ("cells that raised", "class cache built") else "MB"
        goal = at_most(goals[name]) if name in goals else at_most(0) if name == "cells that raised" else None
        figures.append(Figure(name, round(value, 1), unit, goal))
    print(json.dumps({k: round(v, 1) for k, v in found.items()}), file=sys.stderr)
    return figures


if __name__ == "__main__":
    for f in main():
        print(f.name, f.shown(), f.verdict())
