"""What a learner's cell could change to sway a check: the `course` modules, `json`, `inspect` and
builtins, fingerprinted by identity before the cell runs and compared after it (worker.py)."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
import types

# Third-party packages cache things in their modules and classes as they run: watching them would void
# honest work. A learner who patches pydantic or openai to fool a check is not caught here (README).
WATCHED = ("course", "json", "inspect")  # builtins: compared and restored on their own (worker.check_cell)
STRICT = ("course", "builtins")  # where even a new name counts (it could shadow a builtin for a check)
CACHES = ("__pydantic", "_abc_", "__signature__", "__parameters__")  # filled in lazily, legitimately


def watched(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in WATCHED)


def identity(value) -> tuple:
    if isinstance(value, types.FunctionType):
        return (id(value), id(value.__code__), id(value.__defaults__), id(value.__kwdefaults__))
    # A third-party class a course module imported is watched as a name only, like its package (filelock,
    # for one, resets its classes' lock registry in a forked child).
    if isinstance(value, type) and watched(getattr(value, "__module__", "") or ""):
        return (id(value), tuple((k, id(v), id(v.__code__) if isinstance(v, types.FunctionType) else 0)
                                 for k, v in list(vars(value).items()) if not k.startswith(CACHES)))
    return (id(value),)


def fingerprint() -> dict:
    seen = {}
    for name, module in list(sys.modules.items()):
        if watched(name) and isinstance(module, types.ModuleType):
            seen[name] = (id(module), {k: identity(v) for k, v in list(vars(module).items())})
    return seen


def changes(before: dict, course: str) -> list[str]:
    """What differs from `before`: a changed or removed name anywhere watched, a new non-module name in course."""
    found = []
    for name, module in list(sys.modules.items()):
        if not watched(name):
            continue
        if name not in before:
            where = getattr(module, "__file__", None) or ""
            if name.startswith("course") and not os.path.realpath(where).startswith(os.path.realpath(course)):
                found.append(f"module {name}")
            continue
        module_id, names = before[name]
        if id(module) != module_id:
            found.append(f"module {name}")
            continue
        now = vars(module)
        strict = any(name == p or name.startswith(p + ".") for p in STRICT)
        for key, value in list(now.items()):
            if key in names:
                if identity(value) != names[key]:
                    found.append(f"{name}.{key}")
            elif strict and not isinstance(value, types.ModuleType):
                found.append(f"{name}.{key}")
        found += [f"{name}.{key}" for key in names if key not in now]
    return found


def preimport(module) -> None:
    """Import the course modules a check uses before the learner's code runs, so none is loaded after it."""
    for name in set(re.findall(r"(?:from|import)\s+(course(?:\.\w+)*)", inspect.getsource(module))):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
