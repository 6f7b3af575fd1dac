"""What an assemble step runs with: each of the learner's pieces where it passes its own check, the course's
reference solution (solutions/<id>.py) where it does not, and a short table that says which is which.

A piece is judged with the registry's own `run_check`, so "yours" means exactly what `check(id)` says. A name
that holds one of the course's functions (an import after the exercise cell replaced the learner's) is the
course's, not the learner's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from course.errors import NotYet
from course.exercises import seeds
from course.exercises.registry import REGISTRY, load_all, run_cell, run_check
from course.paths import ROOT

SOLUTIONS = ROOT / "solutions"


@dataclass(frozen=True)
class Piece:
    id: str  # the exercise that builds it
    name: str  # the name it has in the notebook
    value: Any  # what the assembled assistant runs
    mine: bool  # the learner's (passes its check), else the course's
    why: str = ""  # why the course's is used
    where: str = ""  # the learner's, from another notebook: which one (lesson 8's earlier pieces)


@dataclass
class Assembly:
    """The pieces an assemble step used, what it gave, and what the course's version gives."""
    id: str
    pieces: list[Piece]
    got: Any = None
    want: Any = None
    lines: list[str] = field(default_factory=list)  # the story as it ran, for the notebook

    @property
    def all_mine(self) -> bool:
        return all(p.mine for p in self.pieces)

    @property
    def same(self) -> bool:
        return self.got == self.want

    def table(self) -> str:
        rows = [f"  {p.id:<22} {p.name:<22} " + (("yours" + (f", from {p.where}" if p.where else "")) if p.mine
                                                  else f"the course's ({p.why})")
                for p in self.pieces]
        return "\n".join(["  exercise               piece                  used", *rows])

    def __str__(self) -> str:
        verdict = ("the same result as the course's version"
                   if self.same else f"NOT the course's result: got {self.got!r:.200}, the course's {self.want!r:.200}")
        mine = sum(p.mine for p in self.pieces)
        head = f"{self.id}: {mine} of {len(self.pieces)} pieces are yours"
        return "\n".join([head, self.table(), "", *self.lines, "", f"→ {verdict}."])


class LearnersPolicy:
    """What lesson 4's `guard` asks of a policy, answered by the learner's `decide`."""

    def __init__(self, decide, risks: dict[str, str], allowlist: set[str] | None, rules: list) -> None:
        self.decide_with, self.risks, self.allowlist, self.rules = decide, risks, allowlist, rules

    def decide(self, name: str, arguments: dict) -> str:
        return self.decide_with(name, arguments, self.risks, self.allowlist, self.rules)

    def risk(self, name: str) -> str:
        return self.risks.get(name, "write")


def reference(id: str, name: str) -> Any:
    """The course's piece: exercise `id`'s reference solution, run as a cell, and the `name` it defines."""
    ex = REGISTRY.get(id) or load_all()[id]
    namespace, failed = run_cell(ex, id, (SOLUTIONS / f"{id}.py").read_text(encoding="utf-8"))
    if failed is not None:  # the course's own solution: a test keeps it running
        raise RuntimeError(f"solutions/{id}.py does not run: {failed.message}")
    return namespace[name]


def gather(wanted: Mapping[str, str], namespace: Mapping[str, Any],
           course: Callable[[str, str], Any] = reference) -> list[Piece]:
    """{exercise id: name} → a Piece each: the learner's where its check passes, else the course's (`course(id,
    name)`: the reference solution)."""
    found = []
    for id, name in wanted.items():
        value = namespace.get(name)
        if value is None:
            why = f"`{name}` is not defined"
        elif str(getattr(value, "__module__", "")).startswith("course."):
            why = f"`{name}` holds the course's {value.__module__}.{name}: an import replaced yours"
        else:
            verdict = run_check(id, dict(namespace))
            why = "" if verdict.passed else f"check(\"{id}\"): not yet"
        found.append(Piece(id, name, value, True) if not why else Piece(id, name, course(id, name), False, why))
    seeds.start(0)  # the pieces' checks drew cases; the assemble step draws none, so its verdict says no seed
    return found


def judged(assembly: Assembly) -> str:
    """The assemble check's verdict: raises NotYet unless every piece is the learner's and the result the course's."""
    theirs = [p for p in assembly.pieces if not p.mine]
    if theirs:
        names = ", ".join(f"{p.name} ({p.id})" for p in theirs)
        raise NotYet(f"the assembled assistant ran with the course's {names}",
                     "make those exercises' checks pass (check(...) above each), then run the assemble cell again.")
    if not assembly.same:
        raise NotYet(f"your pieces pass their checks, but together they gave {assembly.got!r:.200} where the "
                     f"course's version gives {assembly.want!r:.200}",
                     "run the assemble cell and compare its lines with the course's run above it.")
    return f"your {len(assembly.pieces)} pieces run as the lesson's assistant, with the course's result."


def namespace_of(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


Step = Callable[[Mapping[str, Any]], Assembly]


def solution_source(id: str, cell: str) -> str:
    """solutions/<id>.py of an assemble step: its cell (comments), then the reference solutions of the pieces it
    uses, as the grader runs the cell after the learner's pieces; so that it runs on its own
    (tests/test_assemble.py keeps the file equal to this)."""
    parts = []
    for used in (REGISTRY.get(id) or load_all()[id]).uses:
        piece = (SOLUTIONS / f"{used}.py").read_text(encoding="utf-8").strip()
        parts.append(piece.replace(f"# EXERCISE {used}", f"# the reference piece of {used}", 1))
    noqa = "# ruff: noqa: E402, F811 - each piece is a cell, with its own imports"
    return "\n\n\n".join([cell.strip() + "\n" + noqa, *parts]) + "\n"


def definitions(to_openai, servers: Mapping[str, list]) -> tuple[list[dict], dict[str, tuple[str, str]]]:
    """The model's tool definitions and {name the model sees: (server, tool name)} from lesson 6's `to_openai`,
    in either of its shapes: every server's tools at once → (definitions, routes), or one tool → one definition."""
    try:
        out = to_openai(dict(servers))
        if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict):
            return list(out[0]), dict(out[1])
    except (AttributeError, TypeError, KeyError):  # the one-tool shape, handed a dict
        pass
    found, routes = [], {}
    for server, tools in servers.items():
        for tool in tools:
            found.append(to_openai(tool))
            routes[tool.name] = (server, tool.name)
    return found, routes
