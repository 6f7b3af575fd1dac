"""Pre-flight for a workshop: is this machine ready to run the course? `make doctor`

    python -m course.doctor [--venv .venv] [--ports 8888,8000,8080,8081,8001,8765] [--skip-model] [--hub]
                            [--learners N --path 2h|half-day]

Checks the Python version, free disk space, that the kernel "Python (course)" is registered,
that the embedding model of lesson 3 loads (offline), what `make hub` needs (Node.js 20+, npm,
configurable-http-proxy) and that the ports the course uses are free; then prints one verdict:
READY, or NOT READY with what to do. A failed check makes the machine not ready; a warning (a
port in use, say, or no Node.js on a laptop that will never serve a hub) is worth a look but
does not; `--hub` (`make doctor HUB=1`) makes the hub's needs failures. Imports only the
standard library, so it runs before `make setup` too (with the system's python3).

| module | what |
|---|---|
| `report` | `Check`, `verdict`, `report`: what a check found and the closing line |
| `machine` | Python, disk, state folder, kernel, embedding model, ports |
| `hub` | Node.js, npm, configurable-http-proxy |
| `sizing` | a room's memory and cores (`--learners N`): WORKSHOP.md's table |
| `cli` | `checks`, `main`: all of them, in order |
"""

from course.doctor.cli import checks, main
from course.doctor.hub import check_node, check_npm, check_proxy, hub_checks
from course.doctor.machine import (
    PORTS,
    check_disk,
    check_kernel,
    check_model,
    check_port,
    check_python,
    check_state,
)
from course.doctor.report import Check, report, verdict
from course.doctor.sizing import check_room, room

__all__ = ["PORTS", "Check", "check_disk", "check_kernel", "check_model", "check_node", "check_npm", "check_port",
           "check_proxy", "check_python", "check_room", "check_state", "checks", "hub_checks", "main", "report",
           "room", "verdict"]
