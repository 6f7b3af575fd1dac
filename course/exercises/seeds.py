"""Where every random case a check makes up comes from: one seed per run of a check (course/exercises/registry.py).

A check draws its cases from `draws()`, never from `random.Random()` or the `random` module
(tests/test_exercises.py enforces it). Without a seed asked for, the seed is made from the learner's code, so the
same code gets the same cases and the same verdict on every run, in the notebook and in the grader; changed code
gets new cases, so a table of the cases one run showed does not pass the next. `check(id, seed=N)` replays a
failing verdict's cases.
"""

from __future__ import annotations

import hashlib
import random
import types
from typing import Any

_current: dict[str, Any] = {"seed": 0, "drawn": False}  # the run under way (a check runs one at a time)


def draws() -> random.Random:
    """The random source of the check that is running: the same cases for the same seed."""
    _current["drawn"] = True
    return random.Random(_current["seed"])


def start(seed: int) -> None:
    _current.update(seed=seed, drawn=False)


def drawn() -> bool:
    """Whether the running check made up cases (a verdict says its seed only then)."""
    return bool(_current["drawn"])


def of_code(values: list[Any]) -> int:
    """A seed from what the check takes from the learner's namespace: its code, not where or when it was run."""
    digest = hashlib.sha256()
    for value in values:
        digest.update(_shape(value, set()).encode("utf-8", "replace"))
    return int.from_bytes(digest.digest()[:4], "big")


def _shape(value: Any, seen: set[int]) -> str:
    if isinstance(value, str | int | float | bool | type(None)):
        return repr(value)
    if id(value) in seen:
        return "…"
    seen.add(id(value))
    if isinstance(value, types.FunctionType):
        code = value.__code__
        # Helpers the function calls from its own cell change the cases too.
        helpers = [_shape(value.__globals__[name], seen) for name in code.co_names
                   if isinstance(value.__globals__.get(name), types.FunctionType | type)
                   and getattr(value.__globals__[name], "__module__", None) == value.__module__]
        return f"def({_code(code)}; {', '.join(helpers)})"
    if isinstance(value, type):
        methods = [f"{k}={_shape(v, seen)}" for k, v in sorted(vars(value).items())
                   if isinstance(v, types.FunctionType)]
        return f"class {value.__qualname__}({', '.join(methods)})"
    return type(value).__qualname__  # other objects: their class (a repr may hold an address)


def _code(code: types.CodeType) -> str:
    consts = [_code(c) if isinstance(c, types.CodeType) else
              repr(sorted(map(repr, c))) if isinstance(c, frozenset) else repr(c) for c in code.co_consts]
    return repr((code.co_code.hex(), code.co_names, code.co_varnames, consts))
