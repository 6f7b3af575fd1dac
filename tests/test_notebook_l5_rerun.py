"""Lesson 5's notebook survives what learners do: running a cell again."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from course.paths import ROOT

NOTEBOOK = ROOT / "notebooks" / "05_mcp_server.ipynb"


@pytest.mark.timeout(240)
def test_every_cell_of_lesson_5_can_run_twice_in_a_row():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(nb, timeout=60, kernel_name="course",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    failed = []
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            for attempt in ("first", "second"):
                try:
                    client.execute_cell(cell, index)
                except CellExecutionError as e:
                    failed.append(f"cell {index} ({cell.source.splitlines()[0]}), {attempt} run: "
                                  f"{e.ename}: {e.evalue}")
                    break
    assert failed == []
