"""The notebooks import only the course's public API (CONTRIBUTING.md, "What may change"): from a package, a
name its `__init__` lists in `__all__` (or one of its modules); from a module that declares `__all__`, a name
it lists. Every module a notebook imports from declares its `__all__`: nothing counts as public by default."""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))

def imports_of(notebook: Path) -> list[tuple[str, str]]:
    """(module, name) for every `from course... import name` in the notebook's code cells."""
    found = []
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        try:
            tree = compile(source, notebook.name, "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        except SyntaxError:  # a stub a learner is to complete
            continue
        found += [(node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                  and node.module and node.module.split(".")[0] == "course" for alias in node.names]
    return found


def private(module_name: str, name: str) -> str | None:
    """Why `from module_name import name` reaches past the public API, or None when it does not."""
    module = importlib.import_module(module_name)
    if hasattr(module, "__path__") and importlib.util.find_spec(f"{module_name}.{name}") is not None:
        return None  # a module of the package: a room, public where its own names are
    declared = getattr(module, "__all__", None)
    if declared is None:
        return f"{module_name} declares no __all__"
    return None if name in declared else f"{name} is not in {module_name}.__all__"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_the_notebook_imports_only_public_names(notebook):
    reaching = {f"{module}:{name}": why for module, name in imports_of(notebook)
                if (why := private(module, name)) is not None}
    assert reaching == {}, reaching


def test_a_name_left_out_of_all_is_caught():
    assert private("course.agent", "run_agent") is None
    assert private("course.agent", "loop") is None  # a module of the package
    assert private("course.agent", "Path") == "Path is not in course.agent.__all__"  # imported there, not its API
    assert private("course.agent.loop", "run_agent") == "course.agent.loop declares no __all__"
