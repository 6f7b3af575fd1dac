"""What the exercise tests check the same way for every lesson: a candidate solution through its check
(tests/test_exercises_lN.py, each lesson's own right and wrong solutions), and the lesson's exercises against
its notebook, the reference solutions as they stand, the notebook with every solution pasted in
(tests/test_exercises_lessons.py, parametrized over the lessons)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from course.exercises import check_source, exercise_cells, load_all
from course.paths import ROOT

TRIES = 5  # the checks draw their cases from a seed: a wrong solution must fail on every one of these
SEEDS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 2**31 + 7)  # fixed: a failing test replays as it ran


def solution(id: str) -> str:
    return (ROOT / "solutions" / f"{id}.py").read_text()


def passes(id: str, source: str, tries: int = TRIES) -> None:
    for seed in SEEDS[:tries]:
        verdict = check_source(id, textwrap.dedent(source), seed=seed)
        assert verdict.passed, f"seed {seed}: {verdict}"


def fails_with(id: str, source: str, hint: str, tries: int = TRIES) -> None:
    for seed in SEEDS[:tries]:
        verdict = check_source(id, textwrap.dedent(source), seed=seed)
        assert not verdict.passed and hint in verdict.message, f"seed {seed}: {verdict}"


# -- values that lie: equal to anything, so a check that trusts `==` or `in` passes whatever holds one --------
LIARS = """
class _Lie:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __contains__(self, item):
        return True


class _Any(_Lie, str):
    __hash__ = str.__hash__


class _AnyInt(_Lie, int):
    __hash__ = int.__hash__


class _AnyFloat(_Lie, float):
    __hash__ = float.__hash__


class _AnyDict(_Lie, dict):
    pass


class _Liar(_Lie):  # of no built-in type at all
    __hash__ = object.__hash__
"""


def lying(id: str, old: str, new: str, extra: str = "") -> str:
    """Exercise `id`'s reference solution with `old` replaced by `new`, which uses a liar (LIARS, then `extra`)."""
    source = solution(id)
    assert old in source, f"solutions/{id}.py has no {old!r}"
    return LIARS + textwrap.dedent(extra) + source.replace(old, new)


# -- one source: the order, the imports a check assumes, solutions that run as they stand ----------
def assert_in_the_order_the_lesson_builds_them(notebook: Path, ids: list[str]) -> None:
    assert list(exercise_cells(str(notebook))) == ids


def assert_registered_for_lesson(lesson: int, ids: list[str]) -> None:
    assert sorted(i for i, ex in load_all().items() if ex.lesson == lesson) == sorted(ids)


def imports(source: str) -> set[str]:
    # Notebook cells may `await` at the top level; parsing them must not fail on it.
    tree = compile(source, "<cells>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            module = getattr(node, "module", None)
            found |= {f"{module or ''}:{a.name} as {a.asname or a.name}" for a in node.names}
    return found


def code_before(notebook: Path, id: str) -> str:
    """The notebook's code cells above exercise `id`, other exercises left out."""
    before = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.source.startswith(f"# EXERCISE {id}"):
            break
        if cell.cell_type == "code" and not cell.source.startswith("# EXERCISE"):
            before.append(cell.source)
    return "\n".join(before)


def task(notebook: Path, id: str) -> str:
    """The markdown cell that sets exercise `id`."""
    cells = nbformat.read(notebook, as_version=4).cells
    return next(c.source for c in cells if c.cell_type == "markdown" and f"### Exercise {id}\n" in c.source + "\n")


def assert_given_imports_what_the_notebook_imported_before(notebook: Path, id: str) -> None:
    assert imports(load_all()[id].given) == imports(code_before(notebook, id))


def from_imports(source: str) -> set[tuple[str, str]]:
    """(module, name) for every top-level `from module import name` in the source."""
    return {(node.module or "", alias.name) for node in ast.parse(source).body if isinstance(node, ast.ImportFrom)
            for alias in node.names}


def assert_given_imports_ran_by_the_exercise_cell(notebook: Path, id: str) -> None:
    """Weaker than the check above: what the check assumes was imported by then, not necessarily only that."""
    code = [c.source for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "code"]
    upto = next(i for i, s in enumerate(code) if s.startswith(f"# EXERCISE {id}"))
    ran = set().union(*(from_imports(s) for s in code[:upto + 1]))
    assert from_imports(load_all()[id].given) <= ran


# Each solution as `python solution.py` would run it (as __main__, in a namespace of its own, no notebook around it),
# a lesson's in one interpreter: a name the file uses but does not import still fails, and the interpreter starts
# once per lesson, not once per solution.
AS_SCRIPTS = """\
import runpy, sys, traceback
failed = []
for path in sys.argv[1:]:
    try:
        runpy.run_path(path, run_name="__main__")
    except BaseException:
        failed.append(path)
        traceback.print_exc()
sys.exit(f"these solutions failed as scripts: {failed}" if failed else 0)
"""


def run_solutions_as_scripts(ids: list[str], tmp_path: Path) -> None:
    paths = []
    for id in ids:
        paths.append(tmp_path / f"{id}.py")
        paths[-1].write_text(solution(id))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", AS_SCRIPTS, *map(str, paths)], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr


# -- the notebook as a learner who solved everything would run it ---------------------------------
def assert_every_check_passes_with_the_solutions_pasted(notebook: Path, ids: list[str], timeout: int = 60,
                                                        twice: bool = False):
    """Run the notebook with every exercise's reference solution in its cell; returns the executed notebook.
    `twice`: each code cell runs twice in a row, as when a learner runs a cell again; the second run must not fail
    either (a CellExecutionError names the cell), and the verdicts read are the second run's."""
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        first = cell.source.splitlines()[0] if cell.source else ""
        if cell.cell_type == "code" and first.startswith("# EXERCISE ") and first.split()[2] in ids:
            cell.source = solution(first.split()[2])
    client = NotebookClient(nb, timeout=timeout, kernel_name="course",
                            resources={"metadata": {"path": str(notebook.parent)}})
    if not twice:
        client.execute()
    else:
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                for _ in range(2):  # a markdown cell: nbclient leaves it as it is
                    client.execute_cell(cell, index)
    lesson = ids[0].split("-")[0]
    checks = [c for c in nb.cells if c.cell_type == "code" and f'check("{lesson}-' in c.source]
    # A check prints its verdict; a stray warning on stderr is not one.
    verdicts = ["".join(o["text"] for o in c.outputs if o.get("name") == "stdout") for c in checks]
    passed = all(v.startswith("✅") and "❌" not in v for v in verdicts)
    assert len(verdicts) == len(ids) and passed, [o for c in checks for o in c.outputs]
    return nb


def reviewed(id: str, source: str) -> None:
    """A cell whose answer lies (a dunder method no solution of the lesson defines, or a class on a built-in type
    whose own methods answer what a check asks) is sent to "review" by the grader's vocabulary rule, each lie
    named with its line: the rule, not a `plain()` in every check, keeps it from counting as a pass (issue 20)."""
    from course.grading.vocabulary import BUILTIN_TYPES, PLAIN_DUNDERS, review

    source = textwrap.dedent(source)
    tree = ast.parse(source)
    lies = {f"`{n.name}`" for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
            and n.name.startswith("__") and n.name not in PLAIN_DUNDERS}
    lies |= {f"`{t.id}`" for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
             if isinstance(t, ast.Name) and t.id.startswith("__")}
    lies |= {f"built-in `{b.id}`" for n in ast.walk(tree) if isinstance(n, ast.ClassDef) for b in n.bases
             if isinstance(b, ast.Name) and b.id in BUILTIN_TYPES}
    assert lies, "the source tells no lie"
    reasons = review(source, load_all()[id].lesson)
    for lie in lies:
        assert any(lie in r for r in reasons), f"{lie} not reviewed: {reasons}"
