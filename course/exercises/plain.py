"""What the learner's code returned, as Python's own data, so a check's comparisons run Python's code only.

In `value == want`, `value in options` or a dict lookup, Python lets the learner's value decide: a `str`
subclass whose `__eq__` always says True (or any object with such an `__eq__`) would pass every check
that compares. So a check passes a learner's value through `plain` before it looks at it: a subclass of a
built-in type becomes the built-in value it holds (read from its storage, not through its methods: a
`StrEnum` member becomes its text, a `namedtuple` a tuple, numpy numbers Python numbers), containers are
rebuilt with plain contents, and objects of any other class are left as they are. `same` and `among`
compare such a value with plain data the check made, and an object that is not plain data equals none of
it. `rebuilt` does the same for a dataclass the learner filled in (a `Hit`, a `LogEntry`), field by field.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable
from typing import Any, TypeVar

from course.errors import NotYet

T = TypeVar("T")

SCALARS = (type(None), bool, int, float, str, bytes)
CONTAINERS = (list, tuple, dict, set, frozenset)
DEEPEST = 100  # levels of nesting: deeper is a value that holds itself
PLAIN_TYPES = {"None", "bool", "int", "float", "str", "bytes", "list", "tuple", "dict", "set", "frozenset"}


def plain(value: Any) -> Any:
    """`value` made of Python's own types wherever it holds built-in values; other objects as they are."""
    return _plain(value, 0)


def _plain(value: Any, depth: int) -> Any:
    kind = type(value)
    if kind in SCALARS:
        return value
    if depth > DEEPEST:
        raise NotYet(f"a value your code returned nests more than {DEEPEST} levels deep, as a list that holds "
                     "itself does. Return plain data: text, numbers, lists and dicts.")
    inner = depth + 1
    # The base type's own method reads the value's storage: a subclass's methods are never called.
    if issubclass(kind, str):
        return str.__str__(value)
    if issubclass(kind, int):
        return int.__int__(value)
    if issubclass(kind, float):
        return float.__float__(value)
    if issubclass(kind, bytes):
        return bytes.__bytes__(value)
    if issubclass(kind, dict):
        return {_plain(k, inner): _plain(v, inner) for k, v in dict.items(value)}
    if issubclass(kind, list):
        return [_plain(v, inner) for v in list.__iter__(value)]
    if issubclass(kind, tuple):
        return tuple(_plain(v, inner) for v in tuple.__iter__(value))
    if issubclass(kind, frozenset):
        return frozenset(_plain(v, inner) for v in frozenset.__iter__(value))
    if issubclass(kind, set):
        return {_plain(v, inner) for v in set.__iter__(value)}
    numpy = sys.modules.get("numpy")  # a numpy value can only come from code that imported numpy
    if numpy is not None:
        if issubclass(kind, numpy.generic):
            return _plain(numpy.generic.item(value), inner)
        if issubclass(kind, numpy.ndarray):
            return _plain(numpy.ndarray.tolist(value), inner)
    return value


def is_plain(value: Any) -> bool:
    """Whether `value` is made of Python's own types only (after `plain`, nothing else can decide a comparison)."""
    kind = type(value)
    if kind in SCALARS:
        return True
    if kind is dict:
        return all(is_plain(k) and is_plain(v) for k, v in value.items())
    return kind in CONTAINERS and all(is_plain(v) for v in value)


def same(got: Any, want: Any) -> bool:
    """Whether the learner's `got` equals `want`, plain data the check made; an object of another class never does
    (nor does anything equal a `want` that is not plain data: that would let its own `__eq__` decide)."""
    mine = plain(got)
    return is_plain(mine) and is_plain(want) and bool(mine == want)


def among(got: Any, options: Iterable[Any]) -> bool:
    """`got in options`, decided by Python's own comparisons (see `same`)."""
    return any(same(got, option) for option in options)


def unchanged(now: Any, before: Any) -> bool:
    """Whether data the check handed to learner code (`now`) still equals `before`, the deepcopy taken first:
    built-in values by value (made plain), anything else by identity (deepcopy keeps a function as it is)."""
    return _alike(plain(now), before)


def _alike(a: Any, b: Any) -> bool:
    kind = type(a)
    if kind is not type(b):
        return False
    if kind in SCALARS:
        return a is b or a == b  # a NaN deepcopy kept is the same object
    if kind is dict:
        return len(a) == len(b) and all(type(k) in SCALARS and k in b and _alike(v, b[k]) for k, v in a.items())
    if kind in (list, tuple):
        return len(a) == len(b) and all(_alike(x, y) for x, y in zip(a, b, strict=True))
    if kind in (set, frozenset):
        return all(type(x) in SCALARS for x in a) and a == b
    return a is b


def rebuilt(obj: Any, cls: type[T], what: str, how: str) -> T:
    """A `cls` (a dataclass) made again from `obj`'s fields, each plain; a hint when a field declared as plain
    data (str, float, dict...) holds an object of another class."""
    values = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not field.init:
            continue
        value = plain(getattr(obj, field.name))
        annotation = field.type.__name__ if isinstance(field.type, type) else str(field.type)
        declared = {part.strip().split("[")[0] for part in annotation.split("|")}
        if declared <= PLAIN_TYPES and not is_plain(value):
            raise NotYet(f"{what}'s `{field.name}` is an object of class {type(value).__name__}, not plain data "
                         f"the check can compare. {how}")
        values[field.name] = value
    return cls(**values)
