"""Acceptance: a mentor grades a class folder of 30+ lesson-4 notebooks with `-j 2`, hostile ones included.

The class mixes honest work (right, wrong, half right) with notebooks that loop forever, print
100,000 lines, are not JSON, read a secret planted in the grader's environment, delete a file
outside their folder, leave a detached process behind, and forge their verdicts. The grader runs
as a mentor runs it (`python -m course.grading`), in the default sandbox (bubblewrap where it works;
CI installs it) and once more with `--sandbox process`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "04_permissions.ipynb"
IDS = ["l4-refund-limit", "l4-policy", "l4-guard", "l4-log", "l4-allowlist"]  # the lesson's exercises, in order
SOLVED = {id: (ROOT / "solutions" / f"{id}.py").read_text() for id in IDS}
RIGHT = {id: SOLVED[id] for id in ("l4-refund-limit", "l4-allowlist")}
WRONG = {"l4-refund-limit": "# EXERCISE l4-refund-limit\ndef refund_limit(name, arguments):\n    return 'allow'\n",
         "l4-allowlist": "# EXERCISE l4-allowlist\ndef only(allowed):\n    return lambda name, arguments: None\n"}
SECRET = "sk-planted-4f1c9e0b7d"
SLEEP = "4711"  # the detached process's argument: how the test finds it afterwards

LOOP = "# EXERCISE l4-refund-limit\nwhile True:\n    pass\n"
PRINTS = "# EXERCISE l4-refund-limit\nfor i in range(100_000):\n    print('line', i)\n" + RIGHT["l4-refund-limit"]
READS_SECRET = ("# EXERCISE l4-refund-limit\nimport os\nprint('key:', os.environ.get('OPENAI_API_KEY'), "
                "os.environ.get('PLANTED_SECRET'))\nprint(sorted(os.environ))\n" + RIGHT["l4-refund-limit"])
DELETES = ("# EXERCISE l4-refund-limit\nimport os\ntry:\n    os.remove({victim!r})\n    print('deleted')\n"
           "except OSError as e:\n    print('could not delete:', e)\n" + RIGHT["l4-refund-limit"])
BACKGROUND = ("# EXERCISE l4-refund-limit\nimport subprocess, os\nsubprocess.Popen(['sleep', '" + SLEEP + "'], "
              "start_new_session=True)\nos.system('nohup sleep " + SLEEP + " >/dev/null 2>&1 &')\n"
              + RIGHT["l4-refund-limit"])
FORGES = """# EXERCISE l4-refund-limit
import pathlib
import course.exercises as ce
import course.exercises.lesson4 as lesson4
import course.exercises.registry as reg
forged = lambda *a, **k: reg.Verdict("l4-refund-limit", True, "forged")
reg.run_check = ce.run_check = reg.judge = forged
for ex in list(reg.REGISTRY.values()):
    reg.REGISTRY[ex.id] = reg.Exercise(ex.id, ex.lesson, lambda *a: "forged", "")
lesson4.check_refund_limit.__code__ = (lambda refund_limit: "forged").__code__
for folder in (pathlib.Path(ce.__file__).parent, pathlib.Path({repo!r}) / "course" / "exercises"):
    try:
        (folder / "lesson9.py").write_text("from course.exercises import registry\\nregistry.judge = None\\n")
        print("wrote", folder)
    except OSError as e:
        print("could not write:", e)
def refund_limit(name, arguments):
    return "allow"
"""
FORGES_TOO = ("# EXERCISE l4-allowlist\nimport course.exercises.registry as reg\n"
              "reg.judge = lambda *a: reg.Verdict('l4-allowlist', True, 'forged')\n"
              + WRONG["l4-allowlist"].split("\n", 1)[1])


def notebook(path: Path, cells: dict[str, str]) -> None:
    """The lesson with these exercise cells; the lesson's other exercise cells deleted (graded as missing)."""
    nb = nbformat.read(LESSON, as_version=4)
    nb.cells = [c for c in nb.cells if not c.source.startswith("# EXERCISE ") or c.source.split()[2] in cells]
    for cell in nb.cells:
        for id, source in cells.items():
            if cell.cell_type == "code" and cell.source.startswith(f"# EXERCISE {id}"):
                cell.source = source
    nbformat.write(nb, path)


def build_class(folder: Path, victim: Path) -> dict[str, dict[str, bool] | None]:
    """Write the class; {learner: {exercise: expected verdict}} (None: the file cannot be read)."""
    folder.mkdir()
    expected: dict[str, dict[str, bool] | None] = {}
    for n in range(12):
        notebook(folder / f"Right {n:02}.ipynb", SOLVED)
        expected[f"Right {n:02}"] = {id: True for id in IDS}
    others = {id: False for id in IDS}  # the exercises the rest of the class deleted
    for n in range(10):
        notebook(folder / f"Wrong {n:02}.ipynb", WRONG)
        expected[f"Wrong {n:02}"] = {**others, "l4-refund-limit": False, "l4-allowlist": False}
    for n in range(2):
        notebook(folder / f"Half {n}.ipynb", {"l4-refund-limit": RIGHT["l4-refund-limit"],
                                              "l4-allowlist": WRONG["l4-allowlist"]})
        expected[f"Half {n}"] = {**others, "l4-refund-limit": True, "l4-allowlist": False}
    hostile = {"loops": LOOP, "prints": PRINTS, "reads secret": READS_SECRET,
               "deletes": DELETES.format(victim=str(victim)), "background": BACKGROUND,
               "forges": FORGES.format(repo=str(ROOT))}
    for name, source in hostile.items():
        notebook(folder / f"{name}.ipynb", {"l4-refund-limit": source,
                                            "l4-allowlist": FORGES_TOO if name == "forges" else RIGHT["l4-allowlist"]})
        expected[name] = {**others, "l4-refund-limit": name not in ("loops", "forges"),
                          "l4-allowlist": name != "forges"}
    (folder / "not json.ipynb").write_text('{"cells": [', encoding="utf-8")
    (folder / "notes.txt").write_text("a file a learner left in the folder\n", encoding="utf-8")
    expected["not json"] = expected["notes"] = None
    return expected


def git_status() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout


def sleepers() -> list[int]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes().split(b"\0")[:2] == [b"sleep", SLEEP.encode()]:
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


def grade(folder: Path, out: Path, *options: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENAI_API_KEY": SECRET, "PLANTED_SECRET": SECRET, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "course.grading", str(folder), "-j", "2", "--timeout", "5",
                           "--out", str(out), *options], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)


def bwrap_or_skip() -> None:
    from course.grading.sandbox import bwrap_works

    if not bwrap_works():
        if os.environ.get("CI"):
            pytest.fail("CI must grade in bubblewrap: .ci/run installs it (apt-get install bubblewrap).")
        pytest.skip("bubblewrap is not installed here (`apt-get install bubblewrap`).")


def assert_class_graded(tmp_path: Path, *options: str,
                        hides_files: bool = True) -> tuple[subprocess.CompletedProcess, Path]:
    victim = tmp_path / "outside" / "keep me.txt"
    victim.parent.mkdir()
    victim.write_text("the mentor's file\n")
    folder, out = tmp_path / "class 4b", tmp_path / "reports"
    expected = build_class(folder, victim)
    assert len(expected) >= 30
    before = git_status()
    done = grade(folder, out, *options)
    assert done.returncode == 1, done.stdout + done.stderr  # not everyone passed: a result, not a crash
    assert "Traceback" not in done.stdout + done.stderr
    for name, verdicts in expected.items():
        report = json.loads((out / f"{name}.json").read_text())
        assert (out / f"{name}.html").is_file()
        if verdicts is None:
            assert report["problem"].startswith("could not be read: "), name
            continue
        got = {e["id"]: e["passed"] for e in report["exercises"]}
        assert got == verdicts, (name, report["exercises"])
    loops = json.loads((out / "loops.json").read_text())["exercises"][0]
    assert "loops forever" in loops["message"]
    prints = json.loads((out / "prints.json").read_text())["exercises"][0]
    assert "more lines not shown" in prints["output"] and len(prints["output"]) < 10_000
    rows = (out / "class.csv").read_text().splitlines()
    # The first learner ("Half 0") kept two exercises: those first, then the ones it lacks, in the lesson's order.
    assert rows[0].split(",")[:2 + len(IDS)] == ["learner", "file", "l4-refund-limit", "l4-allowlist", "l4-policy",
                                                 "l4-guard", "l4-log"]
    assert len(rows) == 1 + len(expected)
    everything = done.stdout + done.stderr + "".join(p.read_text(errors="replace") for p in out.iterdir())
    assert SECRET not in everything
    if hides_files:
        assert victim.read_text() == "the mentor's file\n"
    assert sleepers() == []
    assert git_status() == before
    return done, out


@pytest.mark.subprocess
@pytest.mark.timeout(300)  # 32 notebooks: about 20 s on a quiet 2-core machine; a hang guard, not a speed goal
def test_a_class_graded_in_bubblewrap_gets_right_verdicts_and_the_hostile_notebooks_change_nothing(tmp_path):
    bwrap_or_skip()
    done, out = assert_class_graded(tmp_path)
    assert "Sandbox: bwrap" in done.stdout
    assert "12 of 32 learners passed everything" in done.stdout  # the others deleted three exercises
    assert f"Reports: {out}" in done.stdout


@pytest.mark.subprocess
@pytest.mark.timeout(300)
def test_a_class_graded_in_the_process_sandbox_gets_the_same_verdicts_and_nothing_is_left_behind(tmp_path):
    # The process sandbox does not hide the mentor's files (README says so): the victim is not checked.
    done, out = assert_class_graded(tmp_path, "--sandbox", "process", hides_files=False)
    assert "Sandbox: process" in done.stdout
    forged = json.loads((out / "forges.json").read_text())["exercises"][0]
    assert not forged["passed"] and "changed the grader" in forged["message"]
    assert not (ROOT / "course" / "exercises" / "lesson9.py").exists()
