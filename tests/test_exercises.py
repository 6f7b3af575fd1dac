"""Every exercise check fails on the notebook's stub with a hint, and the registry and grading handle the odd cell
(tests/test_exercises_lessons.py runs the reference solutions through their checks)."""

from pathlib import Path

import pytest

from course.exercises import check_source, exercise_cells, load_all, run_check

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
STUBS = {id: (nb, src) for nb in NOTEBOOKS for id, src in exercise_cells(str(nb)).items()}
EXERCISES = load_all()


def test_every_lesson_notebook_has_at_least_two_exercises():
    for nb in NOTEBOOKS:
        assert len(exercise_cells(str(nb))) >= 2, f"{nb.name} has fewer than two exercises"


def test_every_exercise_cell_has_a_registered_check_and_a_solution():
    for id, (nb, _) in STUBS.items():
        assert id in EXERCISES, f"{nb.name}: exercise {id} has no check in course/exercises"
        assert (ROOT / "solutions" / f"{id}.py").exists(), f"solutions/{id}.py is missing"
        assert f'check("{id}")' in nb.read_text().replace('\\"', '"'), f"{nb.name}: no check cell for {id}"


@pytest.mark.parametrize("id", sorted(STUBS))
def test_check_fails_on_the_notebook_stub_with_a_hint(id):
    verdict = check_source(id, STUBS[id][1])
    assert not verdict.passed and len(verdict.message) > 20, str(verdict)


def test_a_missing_name_gets_a_hint_instead_of_an_error():
    verdict = run_check("l1-round-trip", {})
    assert not verdict.passed and "define `ask`" in verdict.message


def test_a_crash_in_learner_code_becomes_a_verdict():
    verdict = check_source("l1-round-trip", "def ask(*a):\n    return 1 / 0\n")
    assert not verdict.passed and "ZeroDivisionError" in verdict.message


# A function that uses a name only another notebook cell defines: wherever a check reports what learner code raised.
USES_A_NAME_FROM_ANOTHER_CELL = {
    "l1-round-trip": "def ask(*a):\n    return HELPER(*a)\n",  # the check lets it through to judge
    "l1-bad-calls": "def execute(tools, name, arguments):\n    return HELPER(name)\n",
    "l4-policy": "def decide(name, arguments, risks, allowlist=None, rules=()):\n    return HELPER\n",
    "l4-guard": "def guard(execute, policy, approver):\n    async def run(name, arguments_json):\n"
                "        return HELPER(name)\n\n    return run\n",
    "l8-injection-rule": "def customer_orders_only(question):\n    return lambda tool, arguments: HELPER(tool)\n",
}


@pytest.mark.parametrize("id", sorted(USES_A_NAME_FROM_ANOTHER_CELL))
def test_a_function_that_uses_a_name_from_another_cell_is_told_to_define_it_in_the_exercise_cell(id):
    verdict = check_source(id, USES_A_NAME_FROM_ANOTHER_CELL[id])
    assert not verdict.passed
    assert verdict.message.startswith("your code uses `HELPER`, which the exercise cell does not define"), verdict
    assert "Keep the exercise cell self-contained: define `HELPER` in it" in verdict.message


def test_a_local_used_before_it_is_set_is_reported_as_the_bug_it_is():
    verdict = check_source("l1-round-trip", "def ask(*a):\n    answer += 1\n    return answer\n")
    assert not verdict.passed and verdict.message.startswith("your code raised UnboundLocalError")


def test_an_exercise_cell_may_show_its_own_source_as_it_does_in_the_notebook():
    source = (ROOT / "solutions" / "l4-policy.py").read_text()
    shown = source + ("\nshow.source(decide)\n"
                      "assert 'rule(name, arguments)' in __import__('inspect').getsource(decide)\n")
    verdict = check_source("l4-policy", shown)
    assert verdict.passed, str(verdict)


def test_an_exercise_cell_that_shows_a_class_is_told_to_move_that_call_into_a_cell_of_its_own():
    source = (ROOT / "solutions" / "l1-refund-params.py").read_text() + "\nshow.source(RefundRequest)\n"
    verdict = check_source("l1-refund-params", source)
    assert not verdict.passed
    assert verdict.message.startswith("inspect cannot read a source the cell asks for when the cell is checked on "
                                      "its own, outside the notebook (TypeError).")
    assert verdict.message.endswith("Move the show.source(...) or inspect.getsource(...) call into a cell of its own.")


def test_an_unknown_exercise_id_is_named_in_the_verdict():
    verdict = run_check("l9-nope", {})
    assert not verdict.passed and "no exercise 'l9-nope'" in verdict.message


def test_grading_counts_a_deleted_exercise_cell_as_not_passed(tmp_path, capsys):
    import nbformat

    from course.grading.cli import main

    nb = nbformat.read(ROOT / "notebooks/01_tool_calling.ipynb", as_version=4)
    nb.cells = [c for c in nb.cells if not c.source.startswith("# EXERCISE l1-round-trip")]
    path = tmp_path / "learner copy.ipynb"
    nbformat.write(nb, path)
    assert main([str(path), "--out", str(tmp_path / "reports")]) == 1
    out = capsys.readouterr().out
    line = next(line.strip() for line in out.splitlines() if line.strip().startswith("learner copy: "))
    assert line.startswith("learner copy: 0/5") and "❌ l1-round-trip" in line
    assert "0 of 5 exercises passed" in out
    report = (tmp_path / "reports" / "learner copy.json").read_text()
    assert "no cell starting with `# EXERCISE l1-round-trip`" in report


def test_registering_a_second_check_under_a_taken_id_is_refused():
    from course.exercises import DuplicateExercise, exercise

    with pytest.raises(DuplicateExercise, match="'l1-round-trip' is already registered by course.exercises.lesson1"):
        @exercise("l1-round-trip", lesson=1)
        def another_check(ask):
            pass
    assert EXERCISES["l1-round-trip"].check.__module__ == "course.exercises.lesson1.round_trip"
