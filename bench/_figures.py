"""What a benchmark returns (not a benchmark itself): figures, each with its goal if it has one."""

from __future__ import annotations

import operator
from dataclasses import dataclass

_COMPARE = {"<=": operator.le, ">=": operator.ge, ">": operator.gt}


@dataclass(frozen=True)
class Goal:
    op: str  # "<=", ">=" or ">"
    limit: float

    def met(self, value: float) -> bool:
        return _COMPARE[self.op](value, self.limit)

    def __str__(self) -> str:
        return f"{self.op} {self.limit:g}"


def at_most(limit: float) -> Goal:
    return Goal("<=", limit)


def at_least(limit: float) -> Goal:
    return Goal(">=", limit)


def above(limit: float) -> Goal:
    return Goal(">", limit)


@dataclass(frozen=True)
class Figure:
    name: str
    value: float
    unit: str = ""
    goal: Goal | None = None  # None: a figure to read, not to pass
    error: str | None = None  # the measurement itself failed (e.g. a notebook failed under nbval)

    @property
    def missed(self) -> bool:
        return self.error is not None or (self.goal is not None and not self.goal.met(self.value))

    def verdict(self) -> str:
        if self.error:
            return f"FAILED: {self.error}"
        if self.goal is None:
            return "no goal"
        return f"goal {self.goal} {self.unit}".rstrip() + (": MISSED" if self.missed else ": ok")

    def shown(self) -> str:
        number = f"{self.value:.3g}" if abs(self.value) < 10 else f"{self.value:.1f}"
        return f"{number} {self.unit}".rstrip()

    def as_json(self) -> dict:
        goal = {"op": self.goal.op, "limit": self.goal.limit} if self.goal else None
        return {"name": self.name, "value": self.value, "unit": self.unit, "goal": goal, "error": self.error}

    @classmethod
    def from_json(cls, data: dict) -> Figure:
        goal = Goal(**data["goal"]) if data["goal"] else None
        return cls(data["name"], data["value"], data["unit"], goal, data["error"])
