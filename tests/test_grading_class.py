"""Acceptance: a mentor grades a class of lesson-4 notebooks and one of lesson 6 in bubblewrap
(the command line's `main`): every forgery of issue 20 is "review", never a pass; honest notebooks all
pass; the reports read back."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

import nbformat
import pytest

from course.grading.cli import main
from tests.test_grading import FLOOD, MEMORY, require_bwrap

ROOT = Path(__file__).resolve().parents[1]
SOLVED = {p.stem: p.read_text() for p in (ROOT / "solutions").glob("l[46]-*.py")}
SECRET = "sk-planted-4f1c9e0b7d"


def attacks(id: str) -> dict[str, str]:
    """Issue 20's list: ways to get a pass for a wrong answer to `id`."""
    return {
        "fullwidth frame walk": "import sys\nf = sys._ｇｅｔｆｒａｍｅ(1)\nwhile f:\n    f.f_locals.get('verdict')\n"
                                "    f = f.f_back\n",
        "sys .modules": "import sys\nreg = sys .modules['course.exercises.registry']\n"
                        "reg.judge = lambda ex, ns: reg.Verdict(ex.id, True, 'forged')\n",
        "REGI STRY": "import course.exercises.registry as r\nfor ex in getattr(r, 'REGI' 'STRY').values():\n"
                     "    pass\n",
        "object.__setattr__": f"from course.exercises import REGISTRY\nex = REGISTRY['{id}']\n"
                              "object.__setattr__(ex, 'check', lambda *a: 'forged')\n",
        "gc.get_objects": "import gc\nfor o in gc.get_objects():\n    if type(o).__name__ == 'Exercise':\n"
                          "        object.__setattr__(o, 'check', lambda *a: 'forged')\n",
        "settrace": "import sys\ndef t(frame, event, arg):\n    if 'verdict' in frame.f_locals:\n"
                    "        frame.f_locals['verdict'] = True\n    return t\nsys.settrace(t)\n",
        "perf_counter": "import time\ntime.perf_counter = lambda: 0.0\n",
        "after 3,000 spaces": "import math" + " " * 3000 + "; import os; os.write(3, b'(True, \"forged\", None)\\n'); "
                              "os._exit(0)\n",
        "os._exit and write": "from os import _exit, write\nwrite(3, repr((True, 'forged', None)).encode() + b'\\n')\n"
                              "_exit(0)\n",
        "base64 and python -c": "import base64, subprocess, sys\ncode = base64.b64decode(b'cHJpbnQoMSk=')\n"
                                "subprocess.run([sys.executable, '-c', code])\n",
        # seen passing in bubblewrap: os._exit through a match pattern, getattr never called by name
        "os._exit in a match pattern": "import uuid\nmatch uuid:\n    case object(os=o):\n        match o:\n"
                                       "            case object(_exit=e):\n                e(0)\n",
        "getattr passed to map": "u = '_' * 2\n(g,) = map(getattr, [lambda: 0], [u + 'globals' + u])\n"
                                 "m = g[u + 'builtins' + u][u + 'import' + u]('o' + 's')\n"
                                 "(e,) = map(getattr, [m], ['_' + 'exit'])\ne(0)\n",
        # From inside bubblewrap, with no trick in the code: the grader's memory, its pipes, its signals.
        "supervisor memory": MEMORY,
        "pipe flood": FLOOD,
        "duplicate id": "",  # this cell's wrong answer, and the right one in a hidden cell at the end (graded last)
    }


Forgers = dict[str, dict[str, tuple[str, str]]]  # learner: {exercise id: (the forgery's name, the cell)}


def forgers(wrong: dict[str, str], specific: dict[str, tuple[str, str]], more: dict[str, str] | None = None) -> Forgers:
    """Every forgery in as few notebooks as hold them, at most one per exercise in each: `specific` on their own
    exercise, the `attacks` (and `more`) each on the first exercise of `wrong` still free, after its wrong answer.
    The grader checks each cell in a child of its own, so one cell cannot help or hide another; every forger also
    has a solved exercise, which must still pass (a learner voided as a whole would not)."""
    learners: list[dict[str, tuple[str, str]]] = []
    more = more or {}

    def place(name: str, sources: dict[str, str]) -> None:
        for learner in learners:
            if free := [id for id in sources if id not in learner]:
                learner[free[0]] = (name, sources[free[0]])
                return
        learners.append({id: (name, source) for id, source in list(sources.items())[:1]})

    for name, (id, source) in specific.items():
        place(name, {id: source})
    for name in [*attacks(""), *more]:
        place(name, {id: answer + (attacks(id) | more)[name] for id, answer in wrong.items()})
    return {f"forger {n}": learner for n, learner in enumerate(learners, 1)}


WRONG4 = {"l4-refund-limit": "# EXERCISE l4-refund-limit\ndef refund_limit(name, arguments):\n    return 'allow'\n",
          "l4-allowlist": "# EXERCISE l4-allowlist\ndef only(allowed):\n    return lambda name, arguments: None\n",
          "l4-guard": "# EXERCISE l4-guard\ndef guard(execute, policy, approver):\n"
                      "    async def guarded_execute(name, arguments_json):\n"
                      "        return execute(name, arguments_json)\n    return guarded_execute\n",
          "l4-log": "# EXERCISE l4-log\ndef logged_guard(execute, policy, approver, log):\n"
                    "    async def guarded_execute(name, arguments_json):\n"
                    "        return execute(name, arguments_json)\n    return guarded_execute\n"}
# Rules that ask whenever the amount would have to be read, passed by changing what the check computes with.
ASK4 = ("# EXERCISE l4-refund-limit\ndef refund_limit(name, arguments):\n"
        "    return 'ask' if name == 'issue_refund' else None\n")
FOUR = forgers(WRONG4, {name: ("l4-refund-limit", source) for name, source in {
    "the check's answer": WRONG4["l4-refund-limit"] + "from course.exercises.lesson4.cases import *\n"
                                                      "from course.permissions import refund_limit\n",
    "a module's alias changed": ASK4 + "import math\nm = math\nm.isnan = lambda x: True\n",
    "a module reached through another, changed": ASK4 + "import statistics\nm = statistics.math\n"
                                                 "m.isnan = lambda x: True\n",
    "a module in a tuple changed": ASK4 + "import math\n(math,)[0].isnan = lambda x: True\n",
    "functools.wraps onto a module": ASK4 + "import math, functools\nclass M:\n"
                                     "    isnan = staticmethod(lambda x: True)\nfunctools.wraps(M)(math)\n",
    # seen passing in bubblewrap: a method that changes `self` called through its class, on a module
    "__init__ through the class": ASK4 + "import statistics\nclass R:\n    def __init__(self):\n"
                                  "        self.isnan = lambda x: True\nR.__init__(statistics.math)\n",
    "a method through the class": ASK4 + "import statistics\nclass R:\n    def add(self):\n"
                                  "        self.isnan = lambda x: True\nclass S(R):\n    pass\n"
                                  "S.add(statistics.math)\n",
}.items()})
WRONG6 = {"l6-to-openai": "# EXERCISE l6-to-openai\ndef to_openai(tool):\n    return {}\n",
          "l6-list-tools": "# EXERCISE l6-list-tools\nasync def list_tools(client, allow):\n    return []\n",
          "l6-agent": "# EXERCISE l6-agent\nasync def agent(llm, model, question, tools, execute, max_steps=6):\n"
                      "    return ''\n"}
SIX = forgers(WRONG6, {"the check's answer": ("l6-to-openai", WRONG6["l6-to-openai"] + (
    "from course.exercises.lesson6.cases import *\nimport course.host\n"
    "to_openai = course.host.convert.to_openai_tool\n"))},
    # lesson 6's setup binds os and Path in every cell's namespace: used without an import of their own
    more={"setup's os": "os.write(3, b'\\n(True, \"\", None)\\n')\nos._exit(0)\n",
          "setup's Path": "Path('/proc/self/fd/3').write_text('\\n(True, \"\", None)\\n')\n"})


def notebook(path: Path, lesson: str, cells: dict[str, str], extra: tuple[str, ...] = (), run: bool = True) -> None:
    nb = nbformat.read(ROOT / "notebooks" / lesson, as_version=4)
    for cell in nb.cells:
        for id, source in cells.items():
            if cell.cell_type == "code" and cell.source.startswith(f"# EXERCISE {id}"):
                cell.source = source
        if not run and cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.cells += [nbformat.v4.new_code_cell(source) for source in extra]
    nbformat.write(nb, path)


def grade(folder: Path, out: Path, *options: str) -> subprocess.CompletedProcess:
    """`python -m course.grading FOLDER -j 2 ...` with the mentor's key in the environment, as its `main` in this
    process: the interpreter's start and the registry's import (2-3 s) are paid once, not by every class. What
    only a new process shows (`python -m`, its exit status) is test_grading's command-line test."""
    argv = [str(folder), "-j", "2", "--timeout", "15", "--out", str(out), *options]
    stdout, stderr = io.StringIO(), io.StringIO()
    with mock.patch.dict(os.environ, {"OPENAI_API_KEY": SECRET}), redirect_stdout(stdout), redirect_stderr(stderr):
        code = main(argv)
    return subprocess.CompletedProcess(argv, code, stdout.getvalue(), stderr.getvalue())


def results(out: Path, name: str) -> dict[str, dict]:
    """{exercise id: its result} in learner `name`'s report."""
    stem = "".join(c if c.isalnum() or c in " -_." else "_" for c in name)  # as report.write names the files
    return {r["id"]: r for r in json.loads((out / f"{stem}.json").read_text())["results"]}


def statuses(out: Path, name: str) -> dict[str, str]:
    return {id: r["status"] for id, r in results(out, name).items()}


def forged_class(folder: Path, lesson: str, forged: Forgers, *solved: str) -> None:
    """An honest notebook, and one per forger: its forged cells, `solved` solved, the rest as handed out."""
    folder.mkdir()
    notebook(folder / "Right 0.ipynb", lesson, SOLVED)
    for learner, cells in forged.items():
        hidden = tuple(SOLVED[id] for id, (name, _) in cells.items() if name == "duplicate id")
        notebook(folder / f"{learner}.ipynb", lesson, {**{id: source for id, (_, source) in cells.items()},
                                                       **{s: SOLVED[s] for s in solved}}, extra=hidden)


def not_review(out: Path, forged: Forgers, witness: str) -> dict[str, str]:
    """{forgery (its exercise, its learner): status} for every forged cell not "review" by the vocabulary rule (a
    void verdict alone could stand in for a gap in the rule), and every forger's solved `witness` that did not pass."""
    got: dict[str, str] = {}
    for learner, cells in forged.items():
        graded = results(out, learner)
        for id, (name, _) in cells.items():
            ruled = [r for r in graded[id]["reasons"] if not r.startswith("no verdict")]
            if graded[id]["status"] != "review" or not ruled:
                got[f"{name} ({id}, {learner})"] = f"{graded[id]['status']}, {graded[id]['reasons']}"
        got |= {f"{witness} ({learner})": graded[witness]["status"]} if graded[witness]["status"] != "pass" else {}
    return got


def holding(forged: Forgers, forgery: str) -> str:
    return next(learner for learner, cells in forged.items() if forgery in [name for name, _ in cells.values()])


@pytest.mark.subprocess
@pytest.mark.timeout(600)
def test_every_forgery_is_review_and_honest_notebooks_pass_in_bubblewrap(tmp_path):
    require_bwrap()
    folder, out = tmp_path / "class 4b", tmp_path / "reports"
    forged_class(folder, "04_permissions.ipynb", FOUR, "l4-policy")
    notebook(folder / "never ran.ipynb", "04_permissions.ipynb", SOLVED, run=False)
    nbformat.write(nbformat.read(ROOT / "notebooks" / "06_mcp_client.ipynb", as_version=4), folder / "lesson six.ipynb")
    (folder / "not json.ipynb").write_text('{"cells": [')
    (tmp_path / "roster.txt").write_text("Right 0\nnever ran\n=cmd|' /C calc'!A0\nAbsent Anna\n")
    done = grade(folder, out, "--roster", str(tmp_path / "roster.txt"))
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert "Sandbox: bubblewrap sandbox" in done.stdout

    for name in ("Right 0", "never ran"):
        assert set(statuses(out, name).values()) == {"pass"}, name
    assert sum(map(len, FOUR.values())) == 7 + len(attacks("")) and len(FOUR) == 7  # each forgery, once
    assert not_review(out, FOUR, "l4-policy") == {}

    index = (out / "index.html").read_text()
    assert "characters long" in index and "Similar code" in index
    assert '<tr class="missing"><td>Absent Anna</td>' in index
    assert "never run" in (out / "never ran.html").read_text()
    six = json.loads((out / "lesson six.json").read_text())
    assert six["problem"].startswith("another lesson: this is lesson 6") and six["results"] == []
    with (out / "class.csv").open(newline="") as f:
        rows = {r["learner"]: r for r in csv.DictReader(f)}
    four = str(sum(id.startswith("l4-") for id in SOLVED))  # every lesson-4 exercise, its assemble step too
    assert rows["Right 0"]["points"] == four and rows["Right 0"]["max_points"] == four
    forger = holding(FOUR, "perf_counter")  # its forged cells "review", l4-policy its one pass
    assert [rows[forger][id] for id in FOUR[forger]] == ["review"] * len(FOUR[forger])
    assert rows[forger]["l4-policy"] == "pass" and rows[forger]["points"] == "1"
    assert rows["lesson six"]["status"] == "another lesson" and rows["lesson six"]["points"] == "0"
    assert rows["not json"]["status"] == "unreadable" and rows["never ran"]["status"] == "graded"
    assert rows["Absent Anna"]["status"] == "missing" and rows["'=cmd|' /C calc'!A0"]["status"] == "missing"
    everything = done.stdout + done.stderr + "".join(p.read_text(errors="replace") for p in out.iterdir())
    assert SECRET not in everything


@pytest.mark.subprocess
@pytest.mark.timeout(600)
def test_every_lesson_6_forgery_is_review_and_the_honest_notebook_passes(tmp_path):
    require_bwrap()
    forged_class(tmp_path / "class 6", "06_mcp_client.ipynb", SIX, "l6-result-text")
    done = grade(tmp_path / "class 6", tmp_path / "out", "--lesson", "6")
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert set(statuses(tmp_path / "out", "Right 0").values()) == {"pass"}
    assert sum(map(len, SIX.values())) == 1 + len(attacks("")) + 2 and len(SIX) == 6  # each forgery, once
    assert not_review(tmp_path / "out", SIX, "l6-result-text") == {}


@pytest.mark.subprocess
def test_every_reference_solution_passes_in_the_sandbox_so_no_honest_work_is_voided(tmp_path):
    require_bwrap()
    done = grade(tmp_path, tmp_path / "out", "--solutions")
    (solutions,) = [json.loads(p.read_text()) for p in (tmp_path / "out").glob("*.json")]
    bad = [(r["id"], r["status"], r["message"], r["reasons"]) for r in solutions["results"] if r["status"] != "pass"]
    assert bad == [] and done.returncode == 0, done.stdout
