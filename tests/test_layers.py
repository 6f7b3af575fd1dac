"""The layer contract `make lint` runs (import-linter, [tool.importlinter] in pyproject.toml) holds for the course
as it is, and fails on a copy of it with an import planted that goes up a layer, around in a cycle, or into a
part of the package the contract does not place."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course.paths import ROOT

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"  # the venv's, beside its python


def lint_imports(tree: Path) -> subprocess.CompletedProcess:
    # PYTHONPATH first: the copy's `course`, not the one the venv has installed.
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--config", str(tree / "pyproject.toml")], cwd=tree,
                          env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True, timeout=120)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "course", tmp_path / "course", ignore=shutil.ignore_patterns("__pycache__", "*.json"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def plant(tree: Path, module: str, source: str) -> None:
    path = tree / (module.replace(".", "/") + ".py")
    path.write_text(f'"""Planted by tests/test_layers.py."""\n\n{source}')


def test_the_course_as_it_is_keeps_every_contract(tree):
    done = lint_imports(tree)
    assert done.returncode == 0 and "0 broken" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("module, source, named", [
    ("course.scripted.upward", "from course.agent import run_agent  # noqa\n",
     "course.scripted is not allowed to import course.agent"),
    # A top-level module the contract does not place, whatever it imports.
    ("course.tools_upward", "import course.host  # noqa\n", "course.tools_upward"),
    ("course.errors_helper", "from course import tools  # noqa\n", "course.errors_helper"),
    ("course.search.upward", "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import course.store\n",
     "course.search is not allowed to import course.store"),  # a type-only import counts too
], ids=["lesson 1 imports lesson 2", "a new module without a layer", "another without one", "a type-only import"])
def test_an_import_that_goes_up_a_layer_fails_the_gate_and_is_named(tree, module, source, named):
    plant(tree, module, source)
    done = lint_imports(tree)
    assert done.returncode != 0 and named in done.stdout, done.stdout + done.stderr


def test_two_modules_of_one_package_that_import_each_other_fail_the_gate(tree):
    plant(tree, "course.host.planted_a", "from course.host import planted_b  # noqa\n")
    plant(tree, "course.host.planted_b", "from course.host import planted_a  # noqa\n")
    done = lint_imports(tree)
    assert done.returncode != 0 and "No cycles are allowed in course.host" in done.stdout, done.stdout
