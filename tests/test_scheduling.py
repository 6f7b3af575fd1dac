"""How `make test` shares its items between xdist workers (conftest.py: GROUPS, FIRST, the scheduler): a group
is one unit of work, and the units start in FIRST's order, the longest first, whatever their item counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("xdist")

ROOT = Path(__file__).resolve().parents[1]

NODEIDS = [  # in the order conftest's collection hook leaves them
    "tests/test_browser.py::test_run_all", "tests/test_browser.py::test_reload",
    "tests/test_hub.py::test_two_learners",
    "tests/test_hub_rehearsal.py::test_one", "tests/test_hub_rehearsal.py::test_two",
    *[f"notebooks/03_document_search.ipynb::Cell {n}" for n in range(40)],
    "tests/test_tools.py::test_a", "tests/test_tools.py::test_b",
    *[f"notebooks/01_tool_calling.ipynb::Cell {n}" for n in range(30)],
]


class Worker:
    """An xdist worker as the scheduler sees it: it records each batch of items it is sent, in one shared log."""

    def __init__(self, name: str, log: list[list[str]]):
        self.gateway = type("Gateway", (), {"id": name})()
        self.log = log
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.log.append([NODEIDS[i] for i in indices])

    def shutdown(self) -> None:
        self.shutting_down = True


def scheduled(request: pytest.FixtureRequest) -> list[list[str]]:
    """The units of work in the order two workers are sent them by conftest's scheduler."""
    plugin: Any = request.config.pluginmanager.get_plugin(str(ROOT / "conftest.py"))  # the root conftest.py
    config = request.config
    saved = (config.option.numprocesses, config.option.tx, config.option.loadscopereorder)
    config.option.numprocesses, config.option.tx = 2, ["2*popen"]
    units: list[list[str]] = []
    try:
        scheduler = plugin.pytest_xdist_make_scheduler(config, None)
        workers = [Worker("gw0", units), Worker("gw1", units)]
        for worker in workers:
            scheduler.add_node(worker)
            scheduler.add_node_collection(worker, NODEIDS)
        scheduler.schedule()
        while scheduler.workqueue:  # as each worker finishes a unit it is sent the next: take turns
            for worker in workers:
                if scheduler.workqueue:
                    scheduler._assign_work_unit(worker)
    finally:
        config.option.numprocesses, config.option.tx, config.option.loadscopereorder = saved
    return units


def test_the_browser_and_hub_groups_start_before_the_notebooks_though_those_hold_more_items(request):
    firsts = [unit[0] for unit in scheduled(request)]
    assert firsts[:2] == ["tests/test_browser.py::test_run_all", "tests/test_hub.py::test_two_learners"]
    assert firsts[2] == "notebooks/03_document_search.ipynb::Cell 0"


def test_a_group_and_a_notebook_are_each_one_unit_in_order(request):
    units = scheduled(request)
    assert NODEIDS[:2] in units  # the browser's file
    assert NODEIDS[2:5] in units  # the hub's two files
    assert [f"notebooks/03_document_search.ipynb::Cell {n}" for n in range(40)] in units
    assert ["tests/test_tools.py::test_a"] in units and ["tests/test_tools.py::test_b"] in units
    assert sorted(nodeid for unit in units for nodeid in unit) == sorted(NODEIDS)
