"""Assemble steps: after a lesson's exercises, the lesson's story run with the learner's own pieces where they
pass their checks and the course's where they don't, compared with the course's version (issue 22).

An assemble step is an exercise like the others (`lN-assemble`, `@exercise`, a reference solution in
solutions/): its check passes when every piece is the learner's and the result is the course's.

| module | holds |
|---|---|
| `pieces` | which piece is whose, the table, the verdict |
| `lesson2` | `l2-assemble`: the loop, repeats and finish on the lesson's three runs |
| `lesson3` | `l3-assemble`: sections, ranking, search and its scores on the shop's documents |
| `lesson4` | `l4-assemble`: the rules, the policy and the guard on section 6's two requests |
| `lesson5` | `l5-assemble`: the four servers behind one host, for one customer who needs them all |
| `lesson6` | `l6-assemble`: the client pieces answer the lesson's refund request through MCP |
| `lesson7` | `l7-assemble`: the model half's pieces through both APIs, streamed, and scored on held-out questions |
| `lesson8` | `l8-assemble`: the whole assistant (lessons 2, 4, 5, 6, 8) answering a refund through MCP |
"""

from __future__ import annotations

import importlib
import sys

from course.exercises.assembly.pieces import Assembly, Piece

# {id: the module of its step}, imported when its step runs: a grading sandbox for lesson 4 need not import
# lesson 7's (the MCP SDK, a third of a second at every sandbox's start).
STEPS = {f"l{n}-assemble": f"{__name__}.lesson{n}" for n in range(2, 9)}


def assemble(id: str, namespace: dict | None = None) -> Assembly:
    """Run lesson `id`'s assemble step with the caller's pieces (the notebook's globals); print() it."""
    if namespace is None:
        namespace = sys._getframe(1).f_globals  # the notebook's globals, as check() reads them
    return importlib.import_module(STEPS[id]).assemble(namespace)


__all__ = ["STEPS", "Assembly", "Piece", "assemble"]
