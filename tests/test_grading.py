"""The sandbox, the verdict's integrity and the reports, piece by piece (the class as a whole:
test_grading_class.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from course.grading import report
from course.grading.runner import Learner, Result, exercise_answer, outcome
from course.grading.sandbox import KEPT, ROOT, Limits, Sandbox, bwrap_works, learner_env

RIGHT = (ROOT / "solutions" / "l4-refund-limit.py").read_text()
JOB = {"id": "l4-refund-limit", "module": "course.exercises.lesson4"}
# Lesson 4's exercises in notebook order (the grader lists them so).
L4_IDS = ["l4-refund-limit", "l4-policy", "l4-guard", "l4-log", "l4-allowlist"]


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox("process", Limits(wall_seconds=10, file_mb=1)) as box:
        yield box


def run(sandbox: Sandbox, source: str) -> tuple[bool, str, dict]:
    answer = exercise_answer(sandbox.run([{**JOB, "source": source}]), 0)
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


# Walks up to the frame of the process it runs in (forked for this exercise), writes a passing verdict
# on that process's own verdict pipe, then (`then`) keeps it from writing the real one, or lets it.
FRAME_FORGER = """# EXERCISE l4-refund-limit
import inspect, json, os
f = inspect.currentframe()
while f and 'write_end' not in f.f_locals:
    f = f.f_back
line = json.dumps({{'passed': True, 'message': 'forged', 'tampered': []}}) + '\\n'
os.write(f.f_locals['write_end'], line.encode())
{then}
def refund_limit(name, arguments):
    return 'allow'
"""


@pytest.mark.parametrize("then", ["os.kill(os.getpid(), 9)", "pass"], ids=["killed", "second verdict"])
def test_a_verdict_written_from_the_graders_frame_gets_no_pass(sandbox, then):
    passed, message, answer = run(sandbox, FRAME_FORGER.format(then=then))
    assert not passed and "the verdict channel" in message and message.endswith("): no pass."), message
    assert answer["verdict"] is None


def test_a_forged_verdict_that_also_wrote_into_the_repo_course_leaves_the_repo_as_it_was(sandbox):
    planted = ROOT / "course" / "exercises" / "lesson99.py"
    write = f"import pathlib\npathlib.Path({str(planted)!r}).write_text('x = 1\\n')\nos.kill(os.getpid(), 9)"
    passed, message, _ = run(sandbox, FRAME_FORGER.format(then=write))
    assert not passed and "repo course/exercises/lesson99.py" in message, message
    assert message.endswith("no pass; the repo's course files were put back.")
    assert not planted.exists()
    assert (KEPT / "exercises" / "lesson99.py").read_text() == "x = 1\n"  # moved aside, not deleted


def test_a_file_edited_in_the_repo_course_while_bubblewrap_grades_is_left_as_it_is():
    if not bwrap_works():
        pytest.skip("bubblewrap is not installed here")
    edited = ROOT / "course" / "exercises" / "lesson97.py"
    with Sandbox("bwrap", Limits(wall_seconds=10)) as box:
        edited.write_text("x = 2\n")  # bubblewrap does not mount the repo: this is the author's edit
        try:
            passed, message, _ = run(box, RIGHT)
            assert passed, message
            assert edited.read_text() == "x = 2\n"
        finally:
            edited.unlink(missing_ok=True)


def test_with_two_runs_at_once_only_the_one_that_changed_the_repo_course_is_voided(sandbox):
    from concurrent.futures import ThreadPoolExecutor

    planted = ROOT / "course" / "exercises" / "lesson98.py"
    # The writer is still running when the honest run ends and finds its change.
    writer = (f"import pathlib, time\npathlib.Path({str(planted)!r}).write_text('x = 1\\n')\ntime.sleep(3)\n"
              + RIGHT)
    honest = "import time\ntime.sleep(1)\n" + RIGHT
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda source: run(sandbox, source), [writer, honest]))
    (writer_passed, writer_message, _), (honest_passed, honest_message, _) = runs
    assert not writer_passed and "repo course/exercises/lesson98.py" in writer_message, writer_message
    assert honest_passed, honest_message
    assert not planted.exists()


@pytest.mark.parametrize("reach", ["f = inspect.currentframe()", "loc = frame.f_back.f_locals",
                                   "os.kill(os.getpid(), 9)", "os.write(3, line)", "exec(bytes.fromhex(h))",
                                   "sys.addaudithook(hook)", "for frame in inspect.stack(0):",
                                   "from course import exercises as ex", "json._default_encoder.encode = f",
                                   'setattr(os, "wri" + "te", f)', "os.setsid()", "os.getppid()"])
def test_code_that_reaches_the_graders_process_is_flagged_for_the_mentor(reach):
    from course.grading.runner import SUSPICIOUS

    assert SUSPICIOUS.search(f"# EXERCISE l4-refund-limit\n{reach}\n")


def test_no_reference_solution_is_flagged_for_the_mentor():
    from course.grading.runner import SUSPICIOUS

    honest = [p.name for p in (ROOT / "solutions").glob("*.py") if SUSPICIOUS.search(p.read_text())]
    assert honest == []  # honest work never reads "read it before trusting the verdict"


# Plants a compiled registry whose `judge` passes everything, with the header of the real cache, in
# every course cache it can reach: the sandbox's shared copy (if any), and its own run's copy.
PLANTER = """# EXERCISE l4-refund-limit
import marshal, pathlib, sys
copy = pathlib.Path([p for p in sys.path if p.endswith("course-copy")][0])
for folder in (copy.parent.parent / "pristine", copy):
    target = folder / "course" / "exercises"
    for pyc in target.glob("__pycache__/registry.*.pyc"):
        source = (target / "registry.py").read_text()
        source = source.replace("    id = ex.id\\n", "    return Verdict(ex.id, True, 'ok')\\n")
        pyc.write_bytes(pyc.read_bytes()[:16] + marshal.dumps(compile(source, str(target / "registry.py"), "exec")))
        print("planted", pyc)
(pathlib.Path({repo!r}) / "course" / "__pycache__").mkdir(exist_ok=True)
(pathlib.Path({repo!r}) / "course" / "__pycache__" / "planted.cpython-311.pyc").write_bytes(b"x")
def refund_limit(name, arguments):
    return "allow"
"""
WRONG = "# EXERCISE l4-refund-limit\ndef refund_limit(name, arguments):\n    return 'allow'\n"


def test_a_compiled_module_planted_by_one_learner_forges_no_later_verdict(sandbox):
    passed, message, answer = run(sandbox, PLANTER.format(repo=str(ROOT)))
    assert "planted" in answer["output"]  # its own copy's cache, at least
    assert not passed and "course/exercises/__pycache__/registry" in message, message
    assert not (ROOT / "course" / "__pycache__" / "planted.cpython-311.pyc").exists()
    passed, message, _ = run(sandbox, WRONG)
    assert not passed and "should give 'ask'" in message, message


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
    assert "<ul class='overview'><li><a href='#l4-x'>❌ l4-x: not yet</a></li></ul>" in page
    assert "return &#x27;&lt;b&gt;&#x27;" in page  # the code, escaped
    assert "<span class='del'>-    raise NotImplementedError</span>" in page
    assert "(99998 more lines not shown)" in page
    rows = (tmp_path / "out" / "class.csv").read_text().splitlines()
    assert rows == ["learner,file,l4-x,passed,total,note", "Anna B,Anna B.ipynb,0,0,1,"]


def lesson_notebook(*sources: str):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    return nb


def test_a_number_a_mentor_put_in_the_file_name_adds_no_other_lesson():
    from course.exercises import load_all
    from course.grading.runner import expected_ids, starters

    load_all()
    cell = RIGHT
    ids = expected_ids(Path("03_anna.ipynb"), lesson_notebook(cell), {"l4-refund-limit": cell}, starters())
    assert ids[0] == "l4-refund-limit" and set(ids) == set(L4_IDS)  # lesson 4's, none of lesson 3's


@pytest.mark.parametrize("name, lesson", [("09_a_lesson_to_come.ipynb", 9), ("10_another.ipynb", 10)])
def test_a_new_lessons_notebook_is_graded_with_its_exercises_in_notebook_order(monkeypatch, name, lesson):
    from course.exercises import registry
    from course.grading import runner

    for n in ("b", "a"):  # registered in the other order than the notebook's
        monkeypatch.setitem(registry.REGISTRY, f"l{lesson}-{n}", registry.Exercise(f"l{lesson}-{n}", lesson,
                                                                                    lambda: None, ""))
    starter = {f"l{lesson}-a": f"# EXERCISE l{lesson}-a\n", f"l{lesson}-b": f"# EXERCISE l{lesson}-b\n"}
    solved = {f"l{lesson}-b": f"# EXERCISE l{lesson}-b\nx = 1\n"}
    assert runner.expected_ids(Path(name), lesson_notebook(), {}, starter) == [f"l{lesson}-a", f"l{lesson}-b"]
    assert runner.expected_ids(Path("Anna.ipynb"), lesson_notebook(*solved.values()), solved, starter) == \
        [f"l{lesson}-b", f"l{lesson}-a"]


def test_a_mistyped_exercise_id_is_shown_but_adds_no_column_and_no_point(sandbox, tmp_path):
    import nbformat

    from course.grading.runner import grade_class

    nb = nbformat.read(ROOT / "notebooks" / "04_permissions.ipynb", as_version=4)
    nb.cells = [c for c in nb.cells if not c.source.startswith("# EXERCISE l4-allowlist")]
    for cell in nb.cells:
        if cell.source.startswith("# EXERCISE l4-refund-limit"):
            cell.source = cell.source.replace("l4-refund-limit", "l4-refund-limt", 1)
    nbformat.write(nb, tmp_path / "Anna.ipynb")
    (anna,) = grade_class([tmp_path / "Anna.ipynb"], sandbox)
    assert anna.total == len(L4_IDS) and anna.passed == 0
    assert f"Anna: 0/{len(L4_IDS)}" in report.summary_line(anna) and "? l4-refund-limt" in report.summary_line(anna)
    report.write([anna], tmp_path / "out")
    header, row = (tmp_path / "out" / "class.csv").read_text().splitlines()
    columns = header.split(",")
    assert columns[:2] == ["learner", "file"] and columns[-3:] == ["passed", "total", "note"]
    assert sorted(columns[2:-3]) == sorted(L4_IDS) and row.endswith(f",0,{len(L4_IDS)},")  # no mistyped column
    page = (tmp_path / "out" / "Anna.html").read_text()
    assert "? l4-refund-limt: not an exercise of this lesson" in page and "unknown exercise id" in page


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


def test_an_empty_class_folder_is_an_error_not_a_class_where_everyone_passed(tmp_path, capsys):
    from course.grading.cli import main

    (tmp_path / "lesson 4").mkdir()
    (tmp_path / "lesson 4" / ".hidden.ipynb").write_text("{}")
    assert main([str(tmp_path / "lesson 4"), "--out", str(tmp_path / "out")]) == 2
    assert "nothing to grade in" in capsys.readouterr().out
    assert not (tmp_path / "out").exists()


def test_reports_left_from_another_class_are_named_on_screen_and_kept(tmp_path, capsys):
    from course.grading.cli import main

    for name in ("class A", "class B"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"notes of {name}.txt").write_text("not a notebook\n")
    out = tmp_path / "reports"
    main([str(tmp_path / "class A"), "--out", str(out), "--sandbox", "process"])
    assert "earlier run" not in capsys.readouterr().out
    main([str(tmp_path / "class B"), "--out", str(out), "--sandbox", "process"])
    screen = capsys.readouterr().out
    assert "not in this class: 1 learner report(s) (notes of class A)" in screen
    assert (out / "notes of class A.json").is_file()
    assert "class A" not in (out / "class.csv").read_text()


def test_an_exercise_without_its_reference_solution_yet_is_a_row_not_a_traceback(sandbox, monkeypatch, tmp_path):
    from course.grading import runner

    monkeypatch.setattr(runner, "SOLUTIONS", tmp_path)  # a lesson being written: checks, no solutions yet
    (solutions,) = runner.grade_class([], sandbox, solutions=True)
    assert solutions.results and not any(r.passed for r in solutions.results)
    assert solutions.results[0].message == f"no reference solution: solutions/{solutions.results[0].id}.py is missing."


@pytest.mark.subprocess
def test_every_reference_solution_passes_in_the_sandbox_so_no_honest_work_is_voided():
    from course.grading.runner import grade_class

    with Sandbox("auto", Limits(wall_seconds=60)) as box:
        (solutions,) = grade_class([], box, jobs=2, solutions=True)
    assert solutions.results and [r.message for r in solutions.results if not r.passed] == []
