"""`python -m course.doctor`: run every check, print them and the verdict; exit 0 when ready."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from course import paths
from course.doctor.hub import hub_checks
from course.doctor.machine import (
    PORTS,
    check_disk,
    check_kernel,
    check_model,
    check_port,
    check_python,
    check_state,
    kernel_specs,
    model_loads,
    venv_python_version,
)
from course.doctor.report import Check, report
from course.doctor.sizing import PATHS, check_room, machine_cores, machine_memory


def checks(venv: Path, ports: dict[int, str], skip_model: bool = False, hub: bool = False,
           learners: int | None = None, path: str = "half-day") -> list[Check]:
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
    found += hub_checks(required=hub)
    if learners:  # the machine that serves the room: its memory and cores against WORKSHOP.md's table
        found += check_room(learners, path, machine_memory(), machine_cores())
    found += [check_port(port, what) for port, what in ports.items()]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.doctor",
                                     description="Pre-flight for a workshop: is this machine ready to run the course?")
    parser.add_argument("--venv", type=Path, default=paths.ROOT / ".venv")
    parser.add_argument("--ports", default=",".join(map(str, PORTS)), help="comma-separated ports to check")
    parser.add_argument("--skip-model", action="store_true", help="do not load the embedding model (faster)")
    parser.add_argument("--hub", action="store_true",
                        help="this machine serves a JupyterHub: node, npm and configurable-http-proxy must be there")
    parser.add_argument("--learners", type=int, metavar="N",
                        help="this machine serves N learners: check its memory and cores against WORKSHOP.md's table")
    parser.add_argument("--path", choices=sorted(PATHS), default="half-day",
                        help="the workshop's path (2h or half-day), for --learners")
    args = parser.parse_args(argv)
    ports = {int(p): PORTS.get(int(p), "the course") for p in args.ports.split(",") if p.strip()}
    ready, text = report(checks(args.venv, ports, args.skip_model, args.hub, args.learners, args.path))
    print(text)
    return 0 if ready else 1
