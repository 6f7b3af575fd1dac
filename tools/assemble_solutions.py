"""Write solutions/lN-assemble.py for every assemble step (`python -m tools.assemble_solutions`): the
notebook's assemble cell, then the reference solutions of the pieces it uses. Run it after changing a
piece's reference solution; tests/test_assemble.py fails until the files match."""

from __future__ import annotations

from course.exercises import exercise_cells, load_all
from course.exercises.assembly import STEPS
from course.exercises.assembly.pieces import solution_source
from course.paths import ROOT


def main() -> None:
    registry = load_all()
    for id in STEPS:
        (notebook,) = (ROOT / "notebooks").glob(f"{registry[id].lesson:02d}_*.ipynb")
        path = ROOT / "solutions" / f"{id}.py"
        path.write_text(solution_source(id, exercise_cells(notebook)[id]), encoding="utf-8")
        print(f"{path.relative_to(ROOT)} from {notebook.name}")


if __name__ == "__main__":
    main()
