"""One learner's exercises are checked one after another in one sandboxed worker; whatever one
exercise does (crash, loop, tamper, forge) is pinned on it alone (course/grading/runner.py)."""

from __future__ import annotations

import pytest

from course.exercises import REGISTRY, load_all
from course.grading.runner import Result, check_all
from course.grading.sandbox import ROOT, Limits, Sandbox

IDS = ["l4-refund-limit", "l4-policy", "l4-guard"]
RIGHT = {id: (ROOT / "solutions" / f"{id}.py").read_text() for id in IDS}

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
    assert sandbox.runs == [IDS, ["l4-guard"]]


def test_a_cell_that_exits_costs_the_other_exercises_nothing(sandbox):
    refund, policy, guard = check(sandbox, {**RIGHT, "l4-policy": "import os\nos._exit(1)\n"})
    assert refund.passed and guard.passed, (refund.message, guard.message)
    assert not policy.passed and "stopped without a verdict (exit code 1)" in policy.message


def test_an_endless_loop_times_out_its_own_exercise_once():
    with Counting(wall_seconds=2) as box:
        refund, policy, guard = check(box, {**RIGHT, "l4-policy": "while True:\n    pass\n"})
        assert refund.passed and guard.passed, (refund.message, guard.message)
        assert not policy.passed and "no verdict after 2 s" in policy.message
        assert box.runs == [IDS, ["l4-refund-limit"], ["l4-guard"]]  # the loop is not run a second time


# Leaves a thread that, once this cell's check is over, keeps making lesson 4's guard check pass.
LINGERS = """import threading, time
import course.exercises.lesson4_guard as checks
def keep_patching():
    time.sleep(1)
    while True:
        checks.check_guard.__code__ = (lambda guard: "forged").__code__
        time.sleep(0.01)
threading.Thread(target=keep_patching, daemon=True).start()
""" + RIGHT["l4-refund-limit"]


def test_a_thread_one_cell_leaves_running_does_not_reach_the_next_exercises(sandbox):
    sandbox.runs.clear()
    refund, policy, guard = check(sandbox, {"l4-refund-limit": LINGERS, "l4-policy": "import time\ntime.sleep(2)\n"
                                            + RIGHT["l4-policy"], "l4-guard": WRONG["l4-guard"]})
    assert refund.passed and policy.passed, (refund.message, policy.message)
    assert not guard.passed and "forged" not in guard.message, guard.message
    assert sandbox.runs == [IDS, ["l4-policy", "l4-guard"]]  # the cells after it ran in a fresh worker


# Writes passing verdicts for this exercise and the ones after it, with their indices, on the channel.
AHEAD = """import inspect, json
f = inspect.currentframe()
while f and 'nonce' not in f.f_locals:
    f = f.f_back
for index in range({count}):
    f.f_locals['write'](json.dumps({{'nonce': f.f_locals['nonce'], 'index': index, 'passed': True,
                                    'message': 'forged', 'tampered': [], 'stop': False}}) + '\\n')
f.f_locals['channel'].flush()
def refund_limit(name, arguments):
    return 'allow'
"""


def test_verdicts_forged_ahead_for_later_exercises_give_no_pass(sandbox):
    results = check(sandbox, {"l4-refund-limit": AHEAD.format(count=len(IDS)), **WRONG})
    assert [r.passed for r in results] == [False, False, False], [r.message for r in results]
    assert "the verdict channel" in results[0].message
