"""Each lesson's assemble step (course/exercises/assembly/): with the reference solutions every piece is the
learner's and the result is the course's; with the notebook's stubs the course's pieces are used, by name, and
Run All still gets a result; a look-alike piece that passes nothing is reported as not used."""

from __future__ import annotations

import sys
import types

import pytest

from course.exercises import check_source, exercise_cells, load_all, run_cell
from course.exercises.assembly import STEPS, lesson8
from course.exercises.assembly import assemble as step
from course.exercises.assembly.pieces import solution_source
from course.paths import ROOT

NOTEBOOKS = {"l2-assemble": "02_agent_loop.ipynb", "l3-assemble": "03_document_search.ipynb",
             "l4-assemble": "04_permissions.ipynb",
             "l5-assemble": "05_mcp_server.ipynb",
             "l6-assemble": "06_mcp_client.ipynb",
             "l7-assemble": "07_model_adapters.ipynb",
             "l8-assemble": "08_architecture_and_security.ipynb"}
REGISTRY = load_all()


def namespace(id: str, sources: dict[str, str]) -> dict:
    """A notebook's namespace: the assemble step's imports, then each piece's cell, in order."""
    module = types.ModuleType(f"learner_{id.replace('-', '_')}")
    sys.modules[module.__name__] = module
    ex = REGISTRY[id]
    exec(compile(ex.given, "<given>", "exec"), module.__dict__)
    for used in ex.uses:
        _, failed = run_cell(REGISTRY[used], used, sources[used], module.__dict__)
        assert failed is None, failed
    return module.__dict__


def solutions(id: str) -> dict[str, str]:
    earlier = list(lesson8.EARLIER) if id == "l8-assemble" else []
    return {used: (ROOT / "solutions" / f"{used}.py").read_text() for used in [*REGISTRY[id].uses, *earlier]}


def stubs(id: str) -> dict[str, str]:
    cells = exercise_cells(ROOT / "notebooks" / NOTEBOOKS[id])
    if id == "l8-assemble":  # the earlier lessons' pieces: the course's notebooks as they are stored
        for notebook in ("02_agent_loop", "04_permissions", "05_mcp_server", "06_mcp_client"):
            cells.update(exercise_cells(ROOT / "notebooks" / f"{notebook}.ipynb"))
    return cells


def assemble(id: str, namespace: dict, sources: dict[str, str]):
    """The step, its earlier lessons' pieces (lesson 8) from `sources` instead of saved notebooks."""
    if id == "l8-assemble":
        return lesson8.assemble(namespace, sources={k: sources[k] for k in lesson8.EARLIER})
    return step(id, namespace)


@pytest.mark.parametrize("id", sorted(STEPS))
def test_with_the_reference_solutions_every_piece_is_the_learners_and_the_result_is_the_courses(id):
    done = assemble(id, namespace(id, solutions(id)), solutions(id))
    assert done.all_mine and done.same and done.got, str(done)
    assert "the same result as the course's version" in str(done)
    assert f"{len(done.pieces)} of {len(done.pieces)} pieces are yours" in str(done)


@pytest.mark.parametrize("id", sorted(STEPS))
def test_with_the_stubs_the_courses_pieces_are_used_named_and_the_result_is_still_the_courses(id):
    done = assemble(id, namespace(id, stubs(id)), stubs(id))
    assert not any(p.mine for p in done.pieces) and done.same, str(done)
    for piece in done.pieces:
        why = f'check("{piece.id}"): not yet' if piece.id in REGISTRY[id].uses else "not yet in the given source"
        assert f"{piece.id:<22} {piece.name:<22} the course's ({why})" in str(done)
    verdict = check_source(id, stubs(id)[id])
    assert not verdict.passed


@pytest.mark.parametrize("id", sorted(STEPS))
def test_the_assemble_check_passes_with_the_reference_solutions_and_not_with_the_stubs(id):
    cell = stubs(id)[id]
    assert check_source(id, solution_source(id, cell), seed=0).passed
    verdict = check_source(id, "\n\n".join([*(stubs(id)[u] for u in REGISTRY[id].uses), cell]), seed=0)
    assert not verdict.passed and "ran with the course's" in verdict.message, verdict


@pytest.mark.parametrize("id", sorted(STEPS))
def test_the_reference_solution_of_an_assemble_step_is_its_cell_with_the_reference_pieces(id):
    assert (ROOT / "solutions" / f"{id}.py").read_text() == solution_source(id, stubs(id)[id]), \
        "a piece's reference solution changed: run `python -m tools.assemble_solutions`"


LOOK_ALIKES = {  # named like the piece, shaped like it, passes nothing
    "l2-assemble": ("l2-agent-loop", "def run_loop(client, model, messages, tools, execute, limits):\n"
                                     "    return 'Your latest order A1001 is shipped.', 'done', 0\n"),
    "l3-assemble": ("l3-rank", "def rank(query, vectors, k):\n    return list(range(k))\n"),
    "l4-assemble": ("l4-allowlist", "def only(allowed):\n    return lambda name, arguments: None\n"),
    "l5-assemble": ("l5-trim", "def trim(raw, n):\n    return {'results': raw['results'][:n]}\n"),
    "l6-assemble": ("l6-to-openai", "def to_openai(tool):\n    return {'type': 'function', 'function': {"
                                    "'name': tool.name, 'description': '', "
                                    "'parameters': {'type': 'object', 'properties': {}}}}\n"),
    # the audit's false accept of l7-stream: the whole answer handed to on_text once, at the end
    "l7-assemble": ("l7-stream", "def collect(chunks, on_text):\n"
                                 "    text = ''.join(c.choices[0].delta.content or '' for c in chunks if c.choices)\n"
                                 "    on_text(text)\n"
                                 "    return text\n"),
    "l8-assemble": ("l8-changed-tool", "def changed_tools(pinned, listed):\n"
                                       "    return {t.name for t in listed if t.name not in pinned}\n"),
}


@pytest.mark.parametrize("id", sorted(LOOK_ALIKES))
def test_a_look_alike_piece_that_passes_nothing_is_reported_as_not_used(id):
    piece, source = LOOK_ALIKES[id]
    sources = {**solutions(id), piece: f"# EXERCISE {piece}\n" + source}
    done = assemble(id, namespace(id, sources), sources)
    (fake,) = [p for p in done.pieces if p.id == piece]
    assert not fake.mine and fake.why == f'check("{piece}"): not yet' and done.same, str(done)
    assert all(p.mine for p in done.pieces if p.id != piece)
    verdict = check_source(id, "\n\n".join([*sources.values(), stubs(id)[id]]), seed=0)
    assert not verdict.passed and f"the course's {fake.name} ({piece})" in verdict.message, verdict


@pytest.mark.subprocess
def test_the_grader_grades_an_assemble_cell_after_the_learners_pieces_so_a_solved_notebook_passes_it(tmp_path):
    import nbformat

    from tests.test_grading import require_bwrap
    from tests.test_grading_class import grade, statuses

    require_bwrap()
    id = "l2-assemble"
    nb = nbformat.read(ROOT / "notebooks" / NOTEBOOKS[id], as_version=4)
    wrong = "# EXERCISE l2-finish\ndef final_answer(client, model, messages, tools, why):\n    return 'Sorry.'\n"
    for name, finish in (("solved", solutions(id)["l2-finish"]), ("one wrong piece", wrong)):
        for cell in nb.cells:  # the learner's pieces: the reference ones; the assemble cell: as the course gives it
            first = cell.source.split("\n", 1)[0]
            if cell.cell_type == "code" and first.startswith("# EXERCISE ") and first.split()[2] in REGISTRY[id].uses:
                cell.source = finish if first.split()[2] == "l2-finish" else solutions(id)[first.split()[2]]
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
    done = grade(tmp_path, tmp_path / "out")
    assert statuses(tmp_path / "out", "solved")[id] == "pass", done.stdout
    assert statuses(tmp_path / "out", "one wrong piece")[id] == "not yet", done.stdout


def test_lesson_8_takes_the_earlier_pieces_from_the_learners_saved_notebooks_and_says_which_came_from_where(
        tmp_path):
    import nbformat

    for stored, solved in (("02_agent_loop", {"l2-agent-loop"}), ("04_permissions", {"l4-policy"})):
        nb = nbformat.read(ROOT / "notebooks" / f"{stored}.ipynb", as_version=4)
        for cell in nb.cells:  # the reference pieces where `solved` says, the stubs as the course gives them elsewhere
            first = cell.source.split("\n", 1)[0]
            if cell.cell_type == "code" and first.startswith("# EXERCISE ") and first.split()[2] in solved:
                cell.source = solutions("l8-assemble")[first.split()[2]]
        nbformat.write(nb, tmp_path / f"{stored}.ipynb")
    done = lesson8.assemble(namespace("l8-assemble", solutions("l8-assemble")), folder=tmp_path)
    rows = {p.id: p for p in done.pieces}
    assert rows["l2-agent-loop"].mine and rows["l2-agent-loop"].where == "02_agent_loop.ipynb", str(done)
    assert rows["l4-policy"].mine and "l4-policy              decide                 yours, from 04_permissions.ipynb" \
        in str(done)
    assert not rows["l4-guard"].mine and rows["l4-guard"].why == "not yet in 04_permissions.ipynb"
    assert not rows["l6-execute"].mine and rows["l6-execute"].why == "not found in no 06_*.ipynb here"
    assert rows["l8-changed-tool"].mine and not rows["l8-changed-tool"].where and done.same, str(done)


def test_lesson_8_reads_the_notebook_named_as_the_course_names_it_not_a_copy_that_sorts_first(tmp_path):
    # JupyterLab's "Duplicate" makes 02_agent_loop-Copy1.ipynb, which sorts before 02_agent_loop.ipynb: the learner's
    # solved notebook is the course-named one, and the grader picks the same (course.paths.lesson_notebook).
    import shutil

    import nbformat

    from course.paths import lesson_notebook

    nb = nbformat.read(ROOT / "notebooks" / "02_agent_loop.ipynb", as_version=4)
    for cell in nb.cells:
        first = cell.source.split("\n", 1)[0]
        if cell.cell_type == "code" and first.startswith("# EXERCISE l2-agent-loop"):
            cell.source = solutions("l8-assemble")["l2-agent-loop"]
    nbformat.write(nb, tmp_path / "02_agent_loop.ipynb")
    shutil.copy(ROOT / "notebooks" / "02_agent_loop.ipynb", tmp_path / "02_agent_loop-Copy1.ipynb")  # the stubs
    assert lesson_notebook(tmp_path, 2) == tmp_path / "02_agent_loop.ipynb"
    done = lesson8.assemble(namespace("l8-assemble", solutions("l8-assemble")), folder=tmp_path)
    row = next(p for p in done.pieces if p.id == "l2-agent-loop")
    assert row.mine and row.where == "02_agent_loop.ipynb", str(done)


def test_lesson_7s_held_out_questions_are_the_held_out_files_own_word_for_word():
    # The sandbox has no tests/ folder, so lesson 7's assemble step carries six of the questions; they must stay the
    # file's (a question reworded in one place only would score the learner against questions nobody wrote down).
    from course.evaluation.agent import load_questions
    from course.exercises.assembly import lesson7

    held_out = load_questions(ROOT / "tests" / "search_questions_heldout.json")
    assert len(lesson7.QUESTIONS) == 6 and all(q in held_out for q in lesson7.QUESTIONS)
