"""Hints in stages: a failed check shows what is wrong, `hint(id)` the next stage, the grader all of it."""

import json

import nbformat
import pytest

from course.exercises import check, check_source, exercise_cells, hint, hints, judge, load_all, run_cell
from course.paths import ROOT

LIMIT = "l2-limit-reached"
HEAD = "def limit_reached(limits, *, tool_steps, tokens, elapsed, next_cost):\n"
NEVER_STOPS = HEAD + "    return None\n"  # fails at the step limit
STEPS_ONLY = HEAD + "    return 'max_steps' if tool_steps >= limits.max_steps else None\n"  # fails at the budget
SOLVED = (ROOT / "solutions" / f"{LIMIT}.py").read_text()
STEP_LIMIT = ("when tool_steps has reached max_steps (as many tool steps done as allowed), return 'max_steps'.",
              "the run may not make another tool step.")
BUDGET_HOW = "the budget must keep room for the controlled finish."


@pytest.fixture(autouse=True)
def new_kernel(monkeypatch):
    """Each test is a kernel of its own: no hint shown yet."""
    monkeypatch.setattr(hints, "KERNEL", hints.Kernel())


def checked(source: str, capsys, id: str = LIMIT) -> str:
    namespace, _ = run_cell(load_all()[id], id, source)
    check(id, namespace)
    return capsys.readouterr().out


def hinted(capsys, id: str | None = LIMIT) -> str:
    hint(id)
    return capsys.readouterr().out


def test_a_failed_check_shows_what_is_wrong_and_keeps_how_to_go_about_it_for_later(capsys):
    out = checked(NEVER_STOPS, capsys)
    assert out.startswith(f"❌ {LIMIT}: not yet. {STEP_LIMIT[0]}\n")
    assert STEP_LIMIT[1] not in out and "solutions/" not in out


def test_hint_shows_how_to_go_about_it_then_the_solution_then_says_there_is_no_more(capsys):
    checked(NEVER_STOPS, capsys)
    assert hinted(capsys) == f"💡 {LIMIT}, hint 1 of 2: {STEP_LIMIT[1]}\n"
    third = hinted(capsys)
    assert third.startswith(f"💡 {LIMIT}, hint 2 of 2: the reference solution is solutions/{LIMIT}.py")
    assert (ROOT / "solutions" / f"{LIMIT}.py").exists()
    assert hinted(capsys).startswith(f"no more hints for {LIMIT}: that was the last of 2.")
    assert hinted(capsys).startswith("no more hints")  # asking again changes nothing


def test_hint_without_an_id_goes_on_with_the_exercise_that_failed_last(capsys):
    checked(NEVER_STOPS, capsys)
    assert STEP_LIMIT[1] in hinted(capsys, None)


def test_the_first_failure_in_a_kernel_says_once_how_to_get_the_next_hint(capsys):
    first = checked(NEVER_STOPS, capsys)
    assert f'hint("{LIMIT}") shows the next hint' in first
    assert "hint(" not in checked(STEPS_ONLY, capsys)


def test_a_different_failure_starts_again_at_the_first_stage(capsys):
    checked(NEVER_STOPS, capsys)
    hinted(capsys)
    hinted(capsys)
    out = checked(STEPS_ONLY, capsys)
    assert "return 'max_tokens'." in out and "💡" not in out and BUDGET_HOW not in out
    assert hinted(capsys) == f"💡 {LIMIT}, hint 1 of 2: {BUDGET_HOW}\n"


def test_the_same_failure_checked_again_keeps_the_hints_already_shown(capsys):
    checked(NEVER_STOPS, capsys)
    hinted(capsys)
    again = checked(NEVER_STOPS, capsys)  # the same fault (in other numbers, had the code changed)
    first, seed, *more = again.splitlines()
    assert [first, *more] == [f"❌ {LIMIT}: not yet. {STEP_LIMIT[0]}", f"💡 {LIMIT}, hint 1 of 2: {STEP_LIMIT[1]}"]
    assert seed.startswith("   (cases drawn from seed ") and f'check("{LIMIT}", seed=' in seed
    assert "hint 2 of 2" in hinted(capsys)


def test_a_pass_shows_no_hint_and_leaves_none_to_ask_for(capsys):
    checked(NEVER_STOPS, capsys)
    out = checked(SOLVED, capsys)
    assert out.startswith(f"✅ {LIMIT}: passed.") and "hint" not in out
    assert hinted(capsys).startswith(f'no hint for {LIMIT} yet: run check("{LIMIT}") first')


def test_hint_runs_none_of_the_learners_code(capsys):
    calls = []
    namespace, _ = run_cell(load_all()[LIMIT], LIMIT, NEVER_STOPS)
    inner = namespace["limit_reached"]
    namespace["limit_reached"] = lambda *a, **k: calls.append(1) or inner(*a, **k)
    check(LIMIT, namespace)
    ran = len(calls)
    hint(LIMIT)
    hint(LIMIT)
    assert ran > 0 and len(calls) == ran


def test_hint_before_any_check_says_to_run_the_check_first(capsys):
    assert hinted(capsys, None).startswith("no exercise has failed its check yet")
    assert hinted(capsys, "l1-round-trip").startswith('no hint for l1-round-trip yet: run check("l1-round-trip")')


def test_a_crash_gets_how_to_go_about_it_before_the_solution(capsys):
    out = checked("limit_reached = 1\n", capsys)  # calling it raises TypeError
    assert "❌" in out and "your code raised TypeError" in out
    first = hinted(capsys)
    assert first.startswith(f"💡 {LIMIT}, hint 1 of 2: the check tries inputs") and "solutions/" not in first
    assert "hint 2 of 2: the reference solution" in hinted(capsys)


CRASHES = [  # (the learner's function, what the verdict names, what the first hint says)
    ("def limit_reached(limits, **kw):\n    return kw.get('nothing').upper()\n",
     "`return kw.get('nothing').upper()`", "is None"),
    ("import json\ndef limit_reached(limits, **kw):\n    return json.loads('not json')\n", "JSONDecodeError",
     "is not JSON"),
    ("def limit_reached(limits, **kw):\n    return {}['steps']\n", "KeyError", ".get(key, default)"),
]


@pytest.mark.parametrize("source, named, how", CRASHES, ids=["attribute-of-none", "json", "key"])
def test_a_crash_names_the_line_it_crashed_on_and_hints_how_before_the_solution(source, named, how, capsys):
    out = checked(source, capsys)
    assert "❌" in out and named in out, out
    first = hinted(capsys)
    assert "hint 1 of 2" in first and how in first and "solutions/" not in first, first


def test_the_notebook_stub_gets_what_is_wrong_first_and_what_to_do_next(capsys):
    out = checked(HEAD + "    raise NotImplementedError\n", capsys)
    assert out.startswith(f"❌ {LIMIT}: not yet. your code still raises NotImplementedError.\n")
    assert "replace the stub in the exercise cell" in hinted(capsys)


# -- the grader and the tests read the verdict as before: the whole hint ---------------------------
def test_the_verdict_keeps_the_whole_hint_as_its_message_and_the_stages_beside_it():
    verdict = judge(load_all()[LIMIT], run_cell(load_all()[LIMIT], LIMIT, NEVER_STOPS)[0])
    assert verdict.message == f"{STEP_LIMIT[0][:-1]}: {STEP_LIMIT[1]}"
    assert str(verdict) == f"❌ {LIMIT}: not yet. {verdict.message}"
    assert verdict.stages == STEP_LIMIT
    assert verdict == hints_free(verdict)  # stages take no part in comparing verdicts


def hints_free(verdict):
    from course.exercises import Verdict

    return Verdict(verdict.id, verdict.passed, verdict.message)


def test_the_graders_report_holds_every_stage_of_the_hint(tmp_path, capsys):
    from course.grading.cli import main

    nb = nbformat.read(ROOT / "notebooks/02_agent_loop.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.source.startswith(f"# EXERCISE {LIMIT}"))
    cell.source = f"# EXERCISE {LIMIT}\n" + NEVER_STOPS
    nbformat.write(nb, tmp_path / "learner.ipynb")
    main([str(tmp_path / "learner.ipynb"), "--out", str(tmp_path / "reports")])
    report = (tmp_path / "reports" / "learner.json").read_text()
    assert STEP_LIMIT[0][:-1] in report and STEP_LIMIT[1] in report
    assert json.loads(report)  # still the report the grader writes


# -- hints as data: no parser between a check and the learner ---------------------------------------
def test_a_verdict_of_one_text_is_one_stage_as_written_and_hint_adds_the_general_advice():
    """Before, `hints.split` cut this text at its first colon; now a check that wants two stages says so."""
    from course.exercises import Verdict

    verdict = Verdict("l0-one", False, "got 'a: b'. Then: more, all the problem.")
    assert verdict.stages == ("got 'a: b'. Then: more, all the problem.",)
    assert hints.stages_of(verdict) == (*verdict.stages, hints.HOW)
    assert not hasattr(hints, "split")


def test_a_name_the_cell_does_not_define_is_a_problem_and_what_to_do_as_two_stages():
    verdict = judge(load_all()[LIMIT], {})
    assert verdict.stages == ("there is no `limit_reached` in this kernel yet.",
                              "define `limit_reached` in the exercise cell and run that cell first.")
    assert hints.stages_of(verdict)[1] == verdict.stages[1]  # not the general advice
    other_cell = check_source(LIMIT, HEAD + "    return HELPER\n")
    assert other_cell.stages[0].startswith("your code uses `HELPER`, which the exercise cell does not define")
    assert other_cell.stages[1].startswith("Keep the exercise cell self-contained: define `HELPER` in it")


def test_a_check_that_restates_the_task_shows_what_it_expected_and_what_it_got():
    """l2-finish on a model reply the learner's code changed: the verdict shows both texts, the hint how."""
    source = (ROOT / "solutions" / "l2-finish.py").read_text().replace(
        "answer = response.choices[0].message.content",
        "answer = 'Answer: ' + str(response.choices[0].message.content)")
    verdict = check_source("l2-finish", source, seed=0)
    assert not verdict.passed
    problem, how = verdict.stages
    assert "expected '" in problem and "got 'Answer: " in problem, problem
    assert "return it as it is" in how


def test_the_same_fault_in_other_numbers_is_the_same_failure_and_other_words_are_not():
    assert hints.skeleton("a refund of exactly 50.0 gave 'ask'") == hints.skeleton("a refund of exactly 50 gave 'x'")
    assert hints.skeleton("two calls differ (case), but get one key") != hints.skeleton("two calls repeat, but differ")


def test_the_stages_of_every_notebook_stubs_verdict_keep_every_word_of_its_message():
    for nb in sorted((ROOT / "notebooks").glob("0*.ipynb")):
        for id, stub in exercise_cells(str(nb)).items():
            verdict = check_source(id, stub)
            words = " ".join(verdict.stages).replace(".", "").replace(":", "").split()
            assert words == verdict.message.replace(".", "").replace(":", "").split(), verdict.stages


def test_a_type_error_on_none_and_an_api_400_get_their_own_advice():
    import httpx
    import openai

    try:
        len(None)
    except TypeError as e:
        problem, how = hints.crashed(e)
    assert "TypeError" in problem and "is None" in how
    request = httpx.Request("POST", "https://api.example.test/v1/chat/completions")
    refused = openai.BadRequestError("refused", response=httpx.Response(400, request=request),
                                     body={"message": "Invalid type for 'messages[2].content'"})
    problem, how = hints.crashed(refused)
    assert "BadRequestError" in problem and how.startswith("a tool message's content must be text")


def test_a_hint_given_as_data_is_shown_as_written_with_no_parser_in_between():
    from course.exercises import Exercise, NotYet

    def fussy(f):
        raise NotYet("got 'a: b'. Then: more words, still the problem.", "do this: then that.")

    verdict = judge(Exercise("l0-data", 0, fussy, ""), {"f": None})
    assert verdict.stages == ("got 'a: b'. Then: more words, still the problem.", "do this: then that.")
    assert verdict.message == "got 'a: b'. Then: more words, still the problem: do this: then that."


# -- issue 22 item 5: hints that keep helping -----------------------------------------------------------------
def test_a_crash_names_the_case_that_made_it_crash_and_hint_says_how_before_the_solution(capsys):
    """The newcomer's case: a tool with no annotations, and code that reads `tool.annotations.read_only_hint`
    (before, the verdict said only "on one of the check's cases")."""
    source = (ROOT / "solutions" / "l6-execute.py").read_text().replace(
        "tool.annotations is not None and tool.annotations.read_only_hint is True",
        "tool.annotations.read_only_hint is True")
    out = checked(source, capsys, "l6-execute")
    assert "on a call of a tool with no annotations (`tool.annotations` is None)" in out, out
    assert "AttributeError" in out and "in your line `read_only = tool.annotations.read_only_hint is True`" in out
    first = hinted(capsys, "l6-execute")
    assert "hint 1 of 2" in first and "Test `if value is None` first" in first and "solutions/" not in first, first
    assert "solutions/l6-execute.py" in hinted(capsys, "l6-execute")


def notyets(lesson: str):
    """(module, line, number of texts: 2, or 1 for anything else) of every NotYet a lesson's checks raise."""
    import ast

    for path in sorted((ROOT / "course" / "exercises" / lesson).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "NotYet":
                two = len(node.args) == 2 and not any(isinstance(a, ast.Starred) for a in node.args)
                yield path.name, node.lineno, 2 if two else 1


@pytest.mark.parametrize("lesson", [f"lesson{n}" for n in range(1, 10)] + ["."])
def test_every_failure_a_check_reports_is_a_problem_and_an_advice_as_data(lesson):
    """No parser between the check and the learner: each NotYet holds what is wrong and how to go about it, in
    every lesson and in the modules they share ("."). Before, lessons 1 to 5 held 97 NotYet of one text."""
    one_text = [f"{module}:{line}" for module, line, n in notyets(lesson) if n != 2]
    assert not one_text, f"NotYet with one text in {lesson}: {one_text}"


@pytest.mark.parametrize("id", sorted(load_all()))
def test_every_exercises_stub_and_a_one_text_failure_get_advice_before_the_solution(id, capsys):
    """Walks every exercise's hints: from the notebook's stub, check shows what is wrong, the first hint how to
    go about it, the second the solution; a verdict of one text (a failed assert) gets the general advice first."""
    stub = f"# EXERCISE {id}\n" + "".join(f"{name} = None\n" for name in load_all()[id].needs)
    verdict = check_source(id, stub)
    assert not verdict.passed
    stages = hints.stages_of(verdict)
    assert len(stages) >= 2 and "solutions/" not in " ".join(stages[:2]), stages
    one = hints.stages_of(type(verdict)(id, False, "the value is wrong (got 3)."))
    assert one[1] == hints.HOW and (len(one) == 2 or "solutions/" in one[2]), one
