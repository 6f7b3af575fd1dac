"""A pass stays inside the lesson's vocabulary: what the lesson's GIVEN imports and its reference solutions
use, checked on the cell's syntax tree (whose identifiers Python has NFKC-normalised: `_ｇｅｔｆｒａｍｅ` is
`_getframe`). A cell outside it is "review", with the reason and the line (README, "Grading a class",
lists what is outside); `python -m course.grading --vocabulary N` prints a lesson's vocabulary.
"""

from __future__ import annotations

import ast
import builtins
import sys
from dataclasses import dataclass, field
from functools import cache
from importlib.machinery import PathFinder
from pathlib import Path

from course.exercises import REGISTRY, load_all
from course.grading.changes import changes, own_attributes, root, shared_names, unbound

SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"
LONG_LINE = 200
BASE_MODULES = {"re", "json", "math", "string", "textwrap", "collections", "itertools", "functools", "dataclasses",
                "typing", "enum", "datetime", "decimal", "fractions", "statistics", "copy", "asyncio", "uuid"}
NEVER = ("course.exercises", "course.grading")
REACHING = {"exec", "eval", "compile", "getattr", "setattr", "delattr", "globals", "vars", "locals", "open",
            "breakpoint", "input", "memoryview", "help", "exit", "quit", "get_field", "get_type_hints", "attrgetter",
            "methodcaller", "singledispatch", "ForwardRef", "update_wrapper", "wraps", "CodeType"}  # code, namespaces,
# attributes by name (`functools.wraps(M)(math)` copies a class's namespace into a module)
# Of these, a lesson's vocabulary has only what its solutions import: the notebook's setup may bind `os` or
# `Path` in every cell's namespace, and a cell can use them without an import of its own.
SYSTEM = {"os", "sys", "pathlib", "tempfile", "shutil", "subprocess", "signal", "io", "ctypes", "gc", "inspect",
          "importlib", "builtins", "threading", "multiprocessing", "socket", "resource", "mmap", "fcntl", "posix"}
# `d = dataclasses; d.sys`: the system modules an allowed module imports (unless a solution uses the word)
ATTRIBUTE_REACH = SYSTEM - {"resource"} | {"modules", "types", "traceback", "weakref", "copyreg", "atexit", "linecache",
                                          "selectors", "select", "platform", "machinery"}
INTERNALS = {"f_back", "f_locals", "f_globals", "f_builtins", "f_code", "f_trace", "f_lasti", "gi_frame", "gi_code",
             "cr_frame", "cr_code", "ag_frame", "ag_code", "tb_frame", "tb_next", "co_code", "co_consts",
             "co_names", "gi_yieldfrom", "cr_await"}  # frame, generator, coroutine, traceback and code attributes
RUNS = {"create_subprocess_exec", "create_subprocess_shell", "subprocess", "system", "popen", "fork", "forkpty", "CDLL",
        "cdll", "pythonapi", "posix_spawn", "posix_spawnp", "dup2", "kill", "killpg",  # programs, C, the verdict pipe
        *(f"{p}{s}" for p in ("exec", "spawn") for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe"))}
PLAIN_DUNDERS = {"__init__", "__post_init__", "__repr__", "__str__", "__name__", "__call__"}
# A subclass of one of these can answer a check's `got.find(...)` or `got.get(...)` with its own methods, no
# dunder needed: what course/exercises/plain.py used to undo in every check.
BUILTIN_TYPES = {"str", "int", "float", "complex", "bytes", "bytearray", "list", "dict", "tuple", "set", "frozenset",
                 "bool", "UserString", "UserDict", "UserList", "defaultdict", "OrderedDict", "Counter"}


def subclassed(tree: ast.AST):
    """(line, built-in type) for each class the tree defines on a built-in type."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
                if name in BUILTIN_TYPES:
                    yield node.lineno, name


@dataclass
class Vocabulary:
    lesson: int
    modules: set[str] = field(default_factory=set)
    imported: set[tuple[str, str]] = field(default_factory=set)  # (course module, name)
    specials: set[str] = field(default_factory=set)  # dunder/private names, attributes, reaching builtins used
    setup_only: dict[str, str] = field(default_factory=dict)  # name the setup binds: its SYSTEM module
    given: dict[str, list[str]] = field(default_factory=dict)  # name the setup binds: the dotted path it stands for

    def describe(self) -> str:
        names = sorted(f"{m}.{n}" for m, n in self.imported)
        return (f"lesson {self.lesson}\nmodules: {', '.join(sorted(self.modules))}\nfrom course modules: "
                f"{', '.join(names)}\nspecial names: {', '.join(sorted(self.specials)) or '(none)'}\n"
                f"set up but not for passes: {', '.join(sorted(self.setup_only)) or '(none)'}")


def special(name: str) -> bool:
    name = name.removeprefix(".")
    return name.startswith("_") or name in REACHING or name in INTERNALS or name in RUNS


def walk_imports(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, None, alias.asname or alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                yield node, "." * node.level + (node.module or ""), alias.name, alias.asname or alias.name


def attributes(node: ast.AST) -> list[str]:
    """The attributes a node reads or writes: `x.name`, `case object(name=y)`, `getattr(x, "name")`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and \
            len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        return [node.args[1].value]
    return [node.attr] if isinstance(node, ast.Attribute) else node.kwd_attrs if isinstance(node, ast.MatchClass) \
        else []


def words(tree: ast.AST):
    """(line, name) of every identifier and dunder string the tree uses or defines; an attribute as `.name`
    (lesson 9's `re.compile` is not the builtin `compile`)."""
    for node in ast.walk(tree):
        yield from ((getattr(node, "lineno", 0), "." + a) for a in attributes(node))
        if isinstance(node, ast.Name):
            yield node.lineno, node.id
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.lineno, node.name
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("__"):
            yield node.lineno, node.value
        elif isinstance(node, ast.keyword) and node.arg:
            yield getattr(node, "lineno", 0), node.arg


@cache
def vocabulary(lesson: int) -> Vocabulary:
    load_all()
    vocab = Vocabulary(lesson, set(BASE_MODULES))
    ids = [i for i, ex in REGISTRY.items() if ex.lesson == lesson]
    solved = [p.read_text(encoding="utf-8") for i in ids if (p := SOLUTIONS / f"{i}.py").is_file()]
    used = {module.split(".")[0] for s in solved for _, module, _, _ in walk_imports(ast.parse(s))}
    for source in [REGISTRY[i].given for i in ids] + solved:
        tree = ast.parse(source)
        for _, module, name, local in walk_imports(tree):
            if module.split(".")[0] in SYSTEM and module.split(".")[0] not in used:
                vocab.setup_only[local] = module
            elif not module.startswith(NEVER):
                vocab.modules.add(module)
                if name is not None:
                    vocab.imported.add((module, name))
        if source not in solved:
            vocab.given |= bindings(tree)
        vocab.specials |= {w for _, w in words(tree) if special(w) or w.removeprefix(".") in ATTRIBUTE_REACH}
        vocab.specials |= {f"class on {name}" for _, name in subclassed(tree)}
    return vocab


def reached(node: ast.expr, bound: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """(the module path an import binds the chain's first name to, the attributes after it): `h.guards.X` after
    `import course.host as h` is (["course", "host"], ["guards", "X"]); ([], ...) when no import binds it."""
    chain: list[str] = []
    while isinstance(node, ast.Attribute):
        chain.insert(0, node.attr)
        node = node.value
    return (bound.get(node.id, []) if isinstance(node, ast.Name) else []), chain


def course_reach(node: ast.Attribute, bound: dict[str, list[str]], vocab: Vocabulary) -> list[str]:
    """`course.permissions.refund_limit` after `import course.permissions`: each step must be a module or a
    name the lesson imports (found without importing anything)."""
    path, chain = reached(node, bound)
    if path[:1] != ["course"] or ".".join(path) not in vocab.modules | {"course"}:
        return []  # not a course module: its attributes are the lesson's to use
    full = path + chain
    for k in range(len(path), len(full)):
        dotted = ".".join(full[:k + 1])
        if dotted.startswith(NEVER):
            return [f"line {node.lineno}: reaches the module `{dotted}` (the grader's own code)"]
        if (".".join(full[:k]), full[k]) in vocab.imported and dotted not in vocab.modules:
            return []  # a name the lesson imports; an imported module's own names are checked as `guards.X` is
        if dotted not in vocab.modules:
            return [f"line {node.lineno}: `{dotted}`: the lesson's code never imports it (the course's own answer?)"]
    return []


def bindings(tree: ast.AST) -> dict[str, list[str]]:
    """What each name an import binds stands for: a module's dotted path, or a module's path and a name in it."""
    return {local: f"{module}.{name}".split(".") if name else module.split(".")[:1]
            if local == module.split(".")[0] else module.split(".") for _, module, name, local in walk_imports(tree)}


def is_module(path: list[str]) -> bool:
    """Whether `a.b.c` is a module, found on the import path (or built in) without importing anything."""
    if path[0] in sys.builtin_module_names:
        return len(path) == 1
    locations = None
    for k in range(1, len(path) + 1):
        if k > 1 and locations is None:
            return False  # a plain module has no submodules (searching sys.path again found `copy.copy` one)
        spec = PathFinder.find_spec(".".join(path[:k]), locations)
        if spec is None:
            return False
        locations = spec.submodule_search_locations
    return True


def imports_outside(tree: ast.AST, vocab: Vocabulary) -> list[str]:
    """The imports a pass cannot rest on: the grader's own code, a name from `course` the lesson never imports (the
    course's own answer to the exercise), a module the lesson does not use."""
    found = []
    for node, module, name, _ in walk_imports(tree):
        if module.startswith(NEVER) or f"{module}.{name}".startswith(NEVER):
            found.append(f"line {node.lineno}: imports from `{module}` (the grader's own code)")
        elif module.split(".")[0] == "course" and name is not None and (module, name) not in vocab.imported:
            found.append(f"line {node.lineno}: `from {module} import {name}`: the lesson's code never imports it "
                         "(the course's own answer?)")
        elif module not in vocab.modules and module.split(".")[0] not in BASE_MODULES:
            found.append(f"line {node.lineno}: imports `{module}`, which this lesson does not use")
    return found


def review(source: str, lesson: int) -> list[str]:
    """Why a mentor should read this cell before its verdict counts ("line N: ..."); [] if none."""
    vocab, found = vocabulary(lesson), []
    for number, line in enumerate(source.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):  # Python's lines
        if len(line) > LONG_LINE:
            found.append(f"line {number}: {len(line)} characters long (more than {LONG_LINE}; the rest is hidden "
                         "off screen)")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return found  # the cell does not run: its verdict says so
    found += imports_outside(tree, vocab)
    own, roots = bindings(tree), set[int]()
    bound = {**vocab.given, **own}  # the setup's names count as imported
    mine, classes, methods = own_attributes(tree)
    shared = shared_names(tree, bound)
    found += unbound(tree, classes, methods) + changes(tree, shared, bound)
    literal = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call) and attributes(n)}  # getattr(x, "name")
    for number, word in words(tree):
        name = word.removeprefix(".")
        if not source.isascii() and name not in source:  # the tree's names are NFKC-normalised: spelt otherwise
            found.append(f"line {number}: a non-ASCII identifier (Python reads it as `{name}`)")
        if special(word) and word not in vocab.specials and name not in PLAIN_DUNDERS:
            kind = ("a builtin that reaches code or namespaces" if word in REACHING and hasattr(builtins, word)
                    else "a function that reaches attributes or code by name" if name in REACHING
                    else "a frame, code or traceback attribute" if name in INTERNALS
                    else "a way to start a program" if name in RUNS else "a dunder or private name")
            found.append(f"line {number}: `{name}`: {kind}, which this lesson's solutions do not use")
    for number, name in subclassed(tree):
        if f"class on {name}" not in vocab.specials:
            found.append(f"line {number}: a class on the built-in `{name}`, which no solution of this lesson "
                         "defines (its own methods can answer what a check asks of the value)")
    for node in ast.walk(tree):
        at: int = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name) and node.id in vocab.setup_only and node.id not in own:
            found.append(f"line {at}: `{node.id}` ({vocab.setup_only[node.id]}): the notebook's setup imports it, "
                         "but no solution of this lesson needs it")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "__" in node.value and \
                not node.value.startswith("__") and not {node.value} & vocab.specials:
            found.append(f"line {at}: the string `{node.value[:60]}` names a dunder (a format field or an "
                         "annotation reaches attributes by name)")
        elif isinstance(node, ast.Name) and node.id == "getattr" and id(node) not in literal:  # `map(getattr, ...)`
            found.append(f"line {at}: `getattr` with a computed name (only a plain literal attribute name is "
                         "inside the vocabulary)")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" and \
                len(node.args) == 3:
            found.append(f"line {at}: `type` with three arguments builds a class whose methods the rule cannot read")
        if isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            if root(node) in shared:
                found.append(f"line {at}: changes `{root(node)}`, which the setup or an import gives (the check uses "
                             "it too)")
            elif isinstance(node, ast.Attribute) and id(node) not in mine:
                found.append(f"line {at}: changes `{ast.unparse(node)}`, an attribute of something the cell did "
                             "not make (only `self.x = ...` in a method of the cell's own class is inside "
                             "the vocabulary)")
        for name in {a for a in attributes(node) if a in ATTRIBUTE_REACH and "." + a not in vocab.specials}:
            # `d = dataclasses; d.sys.modules[...]`: an alias the chain below cannot follow
            found.append(f"line {at}: `.{name}` reaches a system module through an attribute")
        if isinstance(node, ast.Attribute):
            found += course_reach(node, bound, vocab)
            roots.add(id(node.value))
    for node in ast.walk(tree):  # `q = p; q.refund_limit`, `m = math.x`, `m.isnan = ...`: out of the rules' sight
        if not isinstance(node, ast.Name | ast.Attribute) or id(node) in roots:
            continue
        path, chain = reached(node, bound)
        if path and is_module(path + chain):
            found.append(f"line {node.lineno}: passes the module `{'.'.join(path + chain)}` on (use its names)")
    return list(dict.fromkeys(found))
