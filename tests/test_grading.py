"""The sandbox, the verdict's integrity and the reports, piece by piece (the class as a whole:
test_grading_class.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from course.grading import report
from course.grading.runner import Learner, Result, outcome
from course.grading.sandbox import ROOT, Limits, Sandbox, bwrap_works, learner_env

RIGHT = (ROOT / "solutions" / "l4-refund-limit.py").read_text()
JOB = {"id": "l4-refund-limit", "module": "course.exercises.lesson4"}


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox("process", Limits(wall_seconds=10, file_mb=1)) as box:
        yield box


def run(sandbox: Sandbox, source: str) -> tuple[bool, str, dict]:
    answer = sandbox.run({**JOB, "source": source})
    return (*outcome(JOB["id"], answer, sandbox), answer)


def test_the_learner_environment_holds_only_allowlisted_variables(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-mentor")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-mentor")
    env = learner_env(tmp_path / "home", tmp_path / "course", "m")
    assert "OPENAI_API_KEY" not in env and "GITHUB_TOKEN" not in env
    assert env["HOME"] == str(tmp_path / "home") and env["COURSE_BACKEND"] == "scripted"
    assert "sk-mentor" not in "".join(env.values())


def test_a_right_solution_passes_in_the_sandbox_and_what_it_prints_is_kept(sandbox):
    passed, message, answer = run(sandbox, "print('hello from the cell')\n" + RIGHT)
    assert passed, message
    assert answer["output"] == "hello from the cell\n" and answer["output_lines"] == 1


def test_a_cell_that_patches_the_grader_in_memory_gets_no_pass(sandbox):
    forger = ("import course.exercises.registry as reg\n"
              "reg.judge = lambda ex, ns: reg.Verdict(ex.id, True, 'forged')\n"
              "def refund_limit(name, arguments):\n    return 'allow'\n")
    passed, message, _ = run(sandbox, forger)
    assert not passed and "changed the grader or the course" in message and "registry.judge" in message


def test_a_cell_that_shadows_a_builtin_for_the_checks_gets_no_pass(sandbox):
    forger = "import builtins\nbuiltins.isinstance = lambda *a: True\n" + RIGHT
    passed, message, _ = run(sandbox, forger)
    assert not passed and "builtins.isinstance" in message


def test_an_endless_loop_becomes_a_verdict_after_the_time_limit():
    with Sandbox("process", Limits(wall_seconds=1)) as box:
        passed, message, answer = run(box, "# EXERCISE l4-refund-limit\nwhile True:\n    pass\n")
    assert answer["timed_out"] and not passed and "no verdict after 1 s" in message


def test_writing_past_the_file_size_limit_fails_the_cell(sandbox):
    passed, message, _ = run(sandbox, "open('big.bin', 'wb').write(b'x' * (2 << 20))\n" + RIGHT)
    assert not passed and "File too large" in message


def test_a_cell_that_exits_gets_a_verdict_without_a_pass(sandbox):
    passed, message, _ = run(sandbox, "import os\nos._exit(0)\n")
    assert not passed and "stopped without a verdict" in message


def test_in_bubblewrap_the_network_and_the_repo_are_out_of_reach():
    if not bwrap_works():
        if os.environ.get("CI"):
            pytest.fail("CI must test the bubblewrap sandbox: .ci/run installs it.")
        pytest.skip("bubblewrap is not installed here (`apt-get install bubblewrap`).")
    probe = ("import socket, pathlib, os\n"
             "try:\n    socket.create_connection(('127.0.0.1', 22), timeout=2); print('net: open')\n"
             "except OSError as e:\n    print('net:', type(e).__name__)\n"
             f"print('repo:', pathlib.Path({str(ROOT / 'README.md')!r}).exists())\n"
             "print('home:', os.environ['HOME'].startswith('/tmp/'))\n" + RIGHT)
    with Sandbox("bwrap", Limits(wall_seconds=10)) as box:
        passed, message, answer = run(box, probe)
    assert passed, message
    assert "net: open" not in answer["output"] and "repo: False" in answer["output"]
    assert "home: True" in answer["output"]


def test_a_feedback_file_shows_verdict_code_diff_and_the_head_of_the_output(tmp_path):
    starter = "# EXERCISE l4-x\ndef f():\n    raise NotImplementedError"
    code = "# EXERCISE l4-x\ndef f():\n    return '<b>'"
    learner = Learner("Anna B", tmp_path / "Anna B.ipynb",
                      results=[Result("l4-x", False, "f() should return 1.", code, starter, "a\nb\n", 100_000)])
    written = report.write([learner], tmp_path / "out")
    page = written[str(learner.path)].read_text()
    assert "❌ l4-x: not yet" in page and "f() should return 1." in page
    assert "return &#x27;&lt;b&gt;&#x27;" in page  # the code, escaped
    assert "<span class='del'>-    raise NotImplementedError</span>" in page
    assert "(99998 more lines not shown)" in page
    rows = (tmp_path / "out" / "class.csv").read_text().splitlines()
    assert rows == ["learner,file,l4-x,passed,total,note", "Anna B,Anna B.ipynb,0,0,1,"]


def test_the_command_line_explains_every_option():
    done = subprocess.run([sys.executable, "-m", "course.grading", "--help"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0
    for option in ("-j N", "--out DIR", "--timeout SECONDS", "--sandbox", "--solutions", "exit status"):
        assert option in done.stdout


def test_a_missing_path_is_a_one_line_error_with_exit_status_2(tmp_path, capsys):
    from course.grading.cli import main

    assert main([str(tmp_path / "Anna lesson 4.ipynb")]) == 2
    assert "no such file or folder" in capsys.readouterr().out


@pytest.mark.subprocess
def test_every_reference_solution_passes_in_the_sandbox_so_no_honest_work_is_voided():
    from course.grading.runner import grade_class

    with Sandbox("auto", Limits(wall_seconds=60)) as box:
        (solutions,) = grade_class([], box, jobs=2, solutions=True)
    assert solutions.results and [r.message for r in solutions.results if not r.passed] == []
