"""A learner's folder (issue 22, item 1): `python -m course.grading submissions/`, a sub-folder per learner
holding their 0N_*.ipynb, grades lesson 8's `l8-assemble` as the whole assistant, with the earlier lessons'
cells sent into the sandbox as data and each read by its own lesson's vocabulary; a notebook on its own is
graded as before."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from course.exercises import check_source, load_all
from course.grading.runner import learners

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
LESSONS = ("02_agent_loop", "04_permissions", "05_mcp_server", "06_mcp_client", "08_architecture_and_security")
REGISTRY = load_all()


def solved(id: str) -> str:
    return (SOLUTIONS / f"{id}.py").read_text(encoding="utf-8")


def learner_folder(folder: Path, forged: dict[str, str] | None = None, lessons: tuple[str, ...] = LESSONS) -> None:
    """A learner's saved notebooks: the course's, every exercise solved (the assemble cells as handed out), the
    cells `forged` names replaced."""
    folder.mkdir(parents=True)
    for stem in lessons:
        nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
        for cell in nb.cells:
            first = cell.source.split("\n", 1)[0]
            if cell.cell_type == "code" and first.startswith("# EXERCISE "):
                id = first.split()[2]
                if id in (forged or {}):
                    cell.source = (forged or {})[id]
                elif (SOLUTIONS / f"{id}.py").is_file() and not REGISTRY[id].uses:
                    cell.source = solved(id)
        nbformat.write(nb, folder / f"{stem}.ipynb")


# Each a piece of an earlier lesson that passes its check, plus what its own lesson's vocabulary refuses.
FORGED = {
    # inside lesson 8's vocabulary (its setup imports logging), outside lesson 2's: the piece's own rule reads it
    "l2-agent-loop": solved("l2-agent-loop") + "import logging\nlogging.getLogger('x').info('hi')\n",
    "l4-guard": solved("l4-guard") + "import sys\nsys.modules['course.exercises.registry'].judge = print\n",
    # exits the assemble step's process with status 0 (the verdict) before the assistant runs
    "l5-constrained-tool": solved("l5-constrained-tool") + "from os import _exit\n_exit(0)\n",
    "l6-to-openai": "# EXERCISE l6-to-openai\nimport course.host\nto_openai = course.host.convert.to_openai_tool\n",
}
OWN_LESSON = {"l2-agent-loop": "02_agent_loop.ipynb", "l4-guard": "04_permissions.ipynb",
              "l5-constrained-tool": "05_mcp_server.ipynb", "l6-to-openai": "06_mcp_client.ipynb"}


def test_a_folder_with_a_course_notebook_is_one_learner_and_loose_notebooks_stay_one_learner_each(tmp_path):
    nb = nbformat.read(ROOT / "notebooks" / "08_architecture_and_security.ipynb", as_version=4)
    (tmp_path / "Anna").mkdir()
    (tmp_path / "group B").mkdir()  # a folder of loose notebooks, as a mentor sorts them: each file a learner
    (tmp_path / ".hidden").mkdir()
    for path in ("Anna/08_architecture_and_security.ipynb", "Anna/02_agent_loop.ipynb", "Dan.ipynb",
                 "group B/Eve.ipynb", "group B/Finn.ipynb", ".hidden/08_architecture_and_security.ipynb"):
        nbformat.write(nb, tmp_path / path)
    assert learners([tmp_path]) == [tmp_path / "Anna", tmp_path / "Dan.ipynb", tmp_path / "group B" / "Eve.ipynb",
                                    tmp_path / "group B" / "Finn.ipynb"]
    assert learners([tmp_path / "Anna"]) == [tmp_path / "Anna"]  # one learner's folder, named


def test_the_assemble_check_never_takes_the_earlier_cells_from_the_learners_own_namespace():
    # `sources` has a default: the grader's to give. A lesson-8 cell that defines it is graded as a notebook on its
    # own (this lesson's two pieces), not as the whole assistant with cells it chose.
    cells = "\n\n".join([solved("l8-injection-rule"), solved("l8-changed-tool"),
                         "sources = {'l2-agent-loop': 'def run_loop(*a):\\n    return \"refunded\", \"done\", []'}"])
    assert REGISTRY["l8-assemble"].needs == ["customer_orders_only", "changed_tools"]
    verdict = check_source("l8-assemble", cells, seed=0)
    assert verdict.passed and "Yours:" not in verdict.message and "your 2 pieces" in verdict.message, verdict


def test_given_the_earlier_cells_the_assemble_check_runs_the_whole_assistant_and_says_whose_each_piece_is():
    from course.exercises.assembly.lesson8 import EARLIER, check_assemble
    from course.exercises.registry import run_cell

    namespace, _ = run_cell(REGISTRY["l8-assemble"], "l8-assemble",
                            solved("l8-injection-rule") + "\n\n" + solved("l8-changed-tool"))
    pieces = (namespace["customer_orders_only"], namespace["changed_tools"])
    sources = {id: solved(id) for id in EARLIER}
    said = check_assemble(*pieces, sources=sources, notebooks={id: f"0{REGISTRY[id].lesson}_x.ipynb" for id in EARLIER})
    assert "run_loop (l2-agent-loop, 02_x.ipynb)" in said and "changed_tools (l8-changed-tool, this notebook)" in said
    wrong = {**sources, "l6-execute": "# EXERCISE l6-execute\ndef make_execute(*args):\n    return None\n"}
    with pytest.raises(Exception, match=r"make_execute \(l6-execute\): not yet in the given source"):
        check_assemble(*pieces, sources=wrong)
    with pytest.raises(Exception, match=r"run_loop \(l2-agent-loop\): not found in the given source"):
        check_assemble(*pieces, sources={k: v for k, v in sources.items() if k != "l2-agent-loop"})


def test_a_folder_grades_its_notebook_of_the_lesson_and_names_each_earlier_notebook_it_lacks(tmp_path):
    from course.grading.runner import Learner, choose, earlier, read_folder

    learner_folder(tmp_path / "Cleo", lessons=("04_permissions", "08_architecture_and_security"))
    copy = tmp_path / "Cleo" / "08_architecture_and_security-Copy1.ipynb"  # sorts first; the course's name wins
    copy.write_bytes((tmp_path / "Cleo" / "08_architecture_and_security.ipynb").read_bytes())
    cleo = Learner("Cleo", tmp_path / "Cleo")
    books = read_folder(cleo)
    assert cleo.lesson == 8 and cleo.folder == "Cleo" and not cleo.problem
    assert "l8-assemble" in choose(cleo, books, 8) and cleo.path.name == "08_architecture_and_security.ipynb"
    sources, notebooks, reasons = earlier(cleo.path.parent, books, REGISTRY["l8-assemble"].earlier)
    assert set(sources) == {"l4-policy", "l4-guard"} and sources["l4-guard"] == solved("l4-guard") and not reasons
    assert notebooks["l2-agent-loop"] == "no 02_*.ipynb in the folder", notebooks
    assert notebooks["l4-policy"] == "04_permissions.ipynb"
    (tmp_path / "Cleo" / "06_mcp_client.ipynb").write_text("{not json")  # nothing sent, and the mentor reads why
    sources, notebooks, _ = earlier(cleo.path.parent, read_folder(Learner("Cleo", tmp_path / "Cleo")),
                                    REGISTRY["l8-assemble"].earlier)
    assert notebooks["l6-execute"] == "06_mcp_client.ipynb (unreadable, or no course exercises in it)", notebooks
    assert "l6-execute" not in sources
    other = Learner("Cleo", tmp_path / "Cleo")
    assert choose(other, read_folder(other), 5) == {} and other.problem.startswith(
        "another lesson: the folder holds no notebook of lesson 5"), other.problem


@pytest.mark.subprocess
@pytest.mark.timeout(600)
def test_a_class_of_learner_folders_grades_the_whole_assistant_and_a_forged_earlier_piece_is_review(tmp_path):
    from course.exercises.assembly.lesson8 import EARLIER
    from tests.test_grading import require_bwrap
    from tests.test_grading_class import grade, statuses

    require_bwrap()
    class_ = tmp_path / "submissions"
    learner_folder(class_ / "Anna")
    learner_folder(class_ / "forged", FORGED)  # one learner, every earlier lesson's piece forged
    learner_folder(tmp_path / "loose")  # a notebook on its own, as before: lesson 8's two pieces
    (class_ / "Dan.ipynb").write_bytes((tmp_path / "loose" / "08_architecture_and_security.ipynb").read_bytes())
    done = grade(class_, tmp_path / "out")
    out = tmp_path / "out"
    report = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json") if p.stem != "feedback"}
    assert sorted(report) == ["Anna", "Dan", "forged"], done.stdout

    def step(name: str) -> dict:
        return {r["id"]: r for r in report[name]["results"]}["l8-assemble"]

    anna = step("Anna")
    assert anna["status"] == "pass" and report["Anna"]["folder"] == "Anna", done.stdout
    for id, name in EARLIER.items():
        assert f"{name} ({id}, 0{REGISTRY[id].lesson}_" in anna["message"], anna
    assert "(l8-changed-tool, this notebook)" in anna["message"] and set(anna["sources"]) == set(REGISTRY[
        "l8-assemble"].earlier)
    assert "Ran with l2-agent-loop, from 02_agent_loop.ipynb" in (out / "Anna.html").read_text()
    forged = step("forged")
    assert forged["status"] == "review", forged
    for id, notebook in OWN_LESSON.items():  # each forged piece flagged by its own lesson's rule, on its own line
        assert any(r.startswith(f"{notebook}, the cell of {id}: line ") for r in forged["reasons"]), (id, forged)
    others = [r for r in forged["reasons"] if not any(r.startswith(f"{notebook}, the cell of {id}")
                                                      for id, notebook in OWN_LESSON.items())]
    assert not others, others  # the honest pieces, each read by its own lesson's rule: nothing
    dan = step("Dan")
    assert dan["status"] == "pass" and dan["sources"] is None and "your 2 pieces" in dan["message"], dan
    assert statuses(out, "Dan") == statuses(out, "Anna"), done.stdout  # every lesson-8 exercise passes for both
