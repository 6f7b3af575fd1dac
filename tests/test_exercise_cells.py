"""One reading of a notebook's exercise cells, for the checks' tests and for grading alike: the exercises in
notebook order, a copied cell counted once where its last copy is (that is the one a learner ran last), and a
cell that starts with a bare `# EXERCISE ` marker skipped, not an IndexError."""

from __future__ import annotations

import nbformat

from course.exercises import exercise_cells


def notebook(tmp_path, *sources: str) -> str:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    path = tmp_path / "learner.ipynb"
    nbformat.write(nb, path)
    return str(path)


def test_the_exercises_come_in_notebook_order_with_their_whole_cell(tmp_path):
    path = notebook(tmp_path, "# EXERCISE l1-b\nb = 1\n", "print('between')", "# EXERCISE l1-a\na = 2\n")
    assert list(exercise_cells(path).items()) == [("l1-b", "# EXERCISE l1-b\nb = 1\n"),
                                                  ("l1-a", "# EXERCISE l1-a\na = 2\n")]


def test_a_copied_exercise_cell_counts_once_where_its_last_copy_is(tmp_path):
    path = notebook(tmp_path, "# EXERCISE l1-a\nfirst = 1\n", "# EXERCISE l1-b\nb = 1\n", "# EXERCISE l1-a\nlast = 1\n")
    assert list(exercise_cells(path).items()) == [("l1-b", "# EXERCISE l1-b\nb = 1\n"),
                                                  ("l1-a", "# EXERCISE l1-a\nlast = 1\n")]


def test_a_bare_marker_is_no_exercise_and_no_error(tmp_path):
    for bare in ("# EXERCISE ", "# EXERCISE \nx = 1", "  # EXERCISE    \n"):
        assert exercise_cells(notebook(tmp_path, bare, "# EXERCISE l1-a\n")) == {"l1-a": "# EXERCISE l1-a\n"}
