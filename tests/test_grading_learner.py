"""One learner's exercises are checked one after another in one sandboxed worker; whatever one
exercise does (crash, loop, tamper, forge) is pinned on it alone (course/grading/runner.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from course.exercises import REGISTRY, load_all
from course.grading.runner import Result, check_all
from course.grading.sandbox import ROOT, Limits, Sandbox, bwrap_works

IDS = ["l4-refund-limit", "l4-policy", "l4-guard"]
RIGHT = {id: (ROOT / "solutions" / f"{id}.py").read_text() for id in IDS}

WRONG_REFUND = "def refund_limit(name, arguments):\n    return 'allow'\n"
WRONG = {"l4-policy": "def decide(name, arguments, risks, allowlist=None, rules=()):\n    return 'allow'\n",
         "l4-guard": "def guard(execute, policy, approver):\n    return execute\n"}


class Counting(Sandbox):
    """The process sandbox, counting its runs (each run is a worker process started)."""

    def __init__(self, **limits):
        super().__init__("process", Limits(**limits))
        self.runs: list[list[str]] = []

    def run(self, exercises):
        self.runs.append([item["id"] for item in exercises])
        return super().run(exercises)


@pytest.fixture(scope="module")
def sandbox():
    with Counting(wall_seconds=10) as box:
        yield box


def check(sandbox: Sandbox, sources: dict[str, str]) -> list[Result]:
    load_all()
    results = [Result(id, False, "", source) for id, source in sources.items()]
    check_all(sandbox, [(r, {"id": r.id, "module": REGISTRY[r.id].check.__module__, "source": r.code})
                        for r in results])
    return results


def test_a_learners_honest_exercises_are_checked_in_one_worker(sandbox):
    sandbox.runs.clear()
    results = check(sandbox, {id: f"print('this is {id}')\n" + RIGHT[id] for id in IDS})
    assert [r.message for r in results if not r.passed] == []
    assert sandbox.runs == [IDS]
    assert [r.output for r in results] == [f"this is {id}\n" for id in IDS]  # each exercise's own output


def test_an_exercise_that_patches_the_grader_voids_its_own_verdict_only(sandbox):
    forger = ("import course.exercises.registry as reg\n"
              "reg.judge = lambda ex, ns: reg.Verdict(ex.id, True, 'forged')\n"
              "def decide(name, arguments, risks, allowlist=None, rules=()):\n    return 'allow'\n")
    sandbox.runs.clear()
    refund, policy, guard = check(sandbox, {**RIGHT, "l4-policy": forger, "l4-guard": WRONG["l4-guard"]})
    assert refund.passed, refund.message
    assert not policy.passed and "registry.judge" in policy.message
    # What came after the patch ran in a fresh worker, with the real check: the wrong guard fails.
    assert not guard.passed and "forged" not in guard.message
    assert sandbox.runs == [IDS]


def test_a_cell_that_exits_costs_the_other_exercises_nothing(sandbox):
    refund, policy, guard = check(sandbox, {**RIGHT, "l4-policy": "import os\nos._exit(1)\n"})
    assert refund.passed and guard.passed, (refund.message, guard.message)
    assert not policy.passed and "stopped without a verdict (exit code 1)" in policy.message


def test_an_endless_loop_times_out_its_own_exercise_once():
    with Counting(wall_seconds=2) as box:
        refund, policy, guard = check(box, {**RIGHT, "l4-policy": "while True:\n    pass\n"})
        assert refund.passed and guard.passed, (refund.message, guard.message)
        assert not policy.passed and "no verdict after 2 s" in policy.message
        assert box.runs == [IDS]  # the loop is not run a second time


# Leaves behind what could sway later checks in a shared process: a thread that keeps making lesson 4's
# guard check pass, an alarm, an audit hook, a patched library function and a replaced stdout.
LEAVES = """import copy, io, signal, sys, threading, time
import course.exercises.lesson4_guard as checks
def keep_patching():
    time.sleep(0.5)
    while True:
        checks.check_guard.__code__ = (lambda guard: "forged").__code__
        time.sleep(0.01)
threading.Thread(target=keep_patching, daemon=True).start()
signal.signal(signal.SIGALRM, lambda *a: sys.exit("alarm from exercise 1"))
signal.setitimer(signal.ITIMER_REAL, 0.7)
sys.addaudithook(lambda event, args: None)
copy.deepcopy = lambda x, memo=None: x
""" + RIGHT["l4-refund-limit"] + "sys.stdout = io.StringIO()\n"


def test_nothing_one_cell_leaves_behind_reaches_the_next_exercises(sandbox):
    sandbox.runs.clear()
    refund, policy, guard = check(sandbox, {"l4-refund-limit": LEAVES, "l4-policy": "import time\ntime.sleep(1)\n"
                                            "print('policy speaking')\n" + RIGHT["l4-policy"],
                                            "l4-guard": WRONG["l4-guard"]})
    assert refund.passed and policy.passed, (refund.message, policy.message)
    assert policy.output == "policy speaking\n"
    assert not guard.passed and "forged" not in guard.message, guard.message
    assert sandbox.runs == [IDS]


def test_a_cell_that_kills_the_worker_costs_the_other_exercises_nothing(sandbox):
    refund, policy, guard = check(sandbox, {**RIGHT, "l4-policy": "import os\nos.kill(os.getppid(), 9)\n"})
    assert refund.passed and guard.passed, (refund.message, guard.message)
    assert not policy.passed and "stopped without a verdict" in policy.message


# Finds the worker's channel and nonce in its frames and writes passing verdicts for every exercise,
# through the channel it inherited and through /proc.
AHEAD = """import inspect, json, os
f = inspect.currentframe()
while f and "nonce" not in f.f_locals:
    f = f.f_back
nonce, channel = f.f_locals["nonce"], f.f_locals["channel"]
forged = "".join(json.dumps({{"nonce": nonce, "index": i, "verdict": {{"passed": True, "message": "forged",
                 "tampered": []}}, "exit": 0, "timed_out": False, "forged": False}}) + "\\n" for i in range({count}))
for how in ("inherited", "proc"):
    try:
        fd = channel.fileno() if how == "inherited" else os.open(f"/proc/{{os.getppid()}}/fd/{{channel.fileno()}}",
                                                                  os.O_WRONLY)
        os.fstat(fd)
        print(how, "open")
        os.write(fd, forged.encode())
    except OSError as e:
        print(how, type(e).__name__)
def refund_limit(name, arguments):
    return "allow"
"""


@pytest.mark.parametrize("mode", ["process", "bwrap"])
def test_verdicts_forged_for_every_exercise_give_no_pass(mode):
    if mode == "bwrap" and not bwrap_works():
        pytest.skip("bubblewrap is not installed here")
    with Sandbox(mode, Limits(wall_seconds=10)) as box:
        results = check(box, {"l4-refund-limit": AHEAD.format(count=len(IDS)), **WRONG})
    assert [r.passed for r in results] == [False, False, False], [r.message for r in results]
    assert "inherited EBADF" in results[0].output or "inherited OSError" in results[0].output, results[0].output
    if mode == "bwrap":  # no capability left to open another process's files through /proc
        assert "proc PermissionError" in results[0].output, results[0].output


# Change what writes the verdict after the check: the json encoder's instance, or `os.write`.
REWRITES = {
    "json encoder": """import json
_e = json._default_encoder; _o = _e.encode
_e.encode = lambda o: _o({**o, "passed": True, "tampered": []} if isinstance(o, dict) and "passed" in o else o)
""",
    "os.write": """import os
_w = os.write
os.write = lambda fd, d: _w(fd, d.replace(b'"passed": false', b'"passed": true').replace(b"(False,", b"(True,"))
"""}


@pytest.mark.parametrize("rewrite", REWRITES.values(), ids=REWRITES.keys())
def test_a_cell_that_patches_what_writes_its_verdict_gets_no_pass(sandbox, rewrite):
    (refund,) = check(sandbox, {"l4-refund-limit": WRONG_REFUND + rewrite})
    assert not refund.passed and "should give 'ask'" in refund.message, refund.message


def test_a_cell_that_raises_system_exit_is_told_so(sandbox):
    (guard,) = check(sandbox, {"l4-guard": RIGHT["l4-guard"] + "raise SystemExit(0)\n"})
    assert not guard.passed and "raised SystemExit(0)" in guard.message, guard.message


# Kills the sandbox's supervisor, leaves its session and empties its environment: only the command line's
# own reaping can still find it.
ESCAPES = """import os, signal
supervisor = int(open(f"/proc/{os.getppid()}/stat").read().rsplit(")", 1)[1].split()[1])
if os.fork() == 0:
    os.setsid()
    os.kill(supervisor, signal.SIGKILL)
    os.execve("/bin/sleep", ["sleep", "4712"], {})
import time
time.sleep(1)  # the grader sees its supervisor die, and sweeps the sandbox, while this cell still runs
"""


def test_a_process_that_kills_its_supervisor_does_not_outlive_grading_nor_cost_the_other_exercises(tmp_path):
    import nbformat

    nb = nbformat.read(ROOT / "notebooks" / "04_permissions.ipynb", as_version=4)
    for cell in nb.cells:
        for id in IDS:
            if cell.source.startswith(f"# EXERCISE {id}"):
                cell.source = RIGHT[id] + (ESCAPES if id == "l4-refund-limit" else "")
    nbformat.write(nb, tmp_path / "escapes.ipynb")
    done = subprocess.run([sys.executable, "-m", "course.grading", str(tmp_path / "escapes.ipynb"), "--sandbox",
                           "process", "--timeout", "10", "--out", str(tmp_path / "out")], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert "❌ l4-refund-limit ⚠ read the code ✅ l4-policy ✅ l4-guard" in done.stdout, done.stdout + done.stderr
    left = [p for p in Path("/proc").glob("[0-9]*/cmdline") if p.read_bytes().split(b"\0")[:2] == [b"sleep", b"4712"]]
    assert left == []
