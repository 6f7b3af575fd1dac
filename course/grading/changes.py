"""What a cell changes, for the vocabulary rule (vocabulary.py): `self` in its own classes' methods is the cell's
to change; what the setup or an import gives is the check's too, changed by a store, a method call such as
`.append(...)`, a function such as `heapq.heappush` or a class decorator called on it.
"""

from __future__ import annotations

import ast

# Methods that change a value in place, functions that change their first argument, decorators that rewrite
# the class they are given: on what the setup or an import gives, the check would read the change.
MUTATING = {"append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault", "add",
            "discard", "sort", "reverse", "difference_update", "intersection_update", "symmetric_difference_update",
            "appendleft", "extendleft", "popleft", "rotate", "move_to_end", "subtract"}
ARG_MUTATORS = {"heappush", "heappop", "heapify", "heapreplace", "heappushpop", "insort", "insort_left",
                "insort_right", "shuffle", "setitem", "delitem"}
CLASS_MUTATORS = {"dataclass", "total_ordering", "final", "runtime_checkable", "no_type_check",
                  "update_abstractmethods", "global_enum"}
CONTAINERS = {"dict", "list", "set", "bytearray", "deque", "OrderedDict", "defaultdict", "Counter"}  # `dict.update(x)`


def own_attributes(tree: ast.AST) -> tuple[set[int], set[str], set[str]]:
    """The `self.x` a cell's methods set (node ids), the classes they are in and those methods' names. `self` is
    an object the class makes only when the method is reached through an instance (`unbound` flags the rest) and
    `self` is never bound to something else; a decorator other than property's or classmethod may change that."""
    ids, classes, methods = set[int](), set[str](), set[str]()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for fn in (f for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)):
            params = fn.args.posonlyargs + fn.args.args
            inside = list(ast.walk(fn))
            if params and all(isinstance(d, ast.Name) and d.id in ("property", "classmethod") or isinstance(
                    d, ast.Attribute) and d.attr in ("setter", "getter", "deleter") for d in fn.decorator_list) \
                    and not any(isinstance(n, ast.Name) and n.id == params[0].arg and isinstance(n.ctx, ast.Store)
                                or isinstance(n, ast.arg) and n is not params[0] and n.arg == params[0].arg
                                for n in inside):
                mine = {id(n) for n in inside if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                        and n.value.id == params[0].arg}
                if mine:
                    ids |= mine
                    classes.add(cls.name)
                    if not any(isinstance(d, ast.Name) and d.id == "classmethod" for d in fn.decorator_list):
                        methods.add(fn.name)  # a classmethod's first argument is always the class
                    else:
                        classes.add(params[0].arg)
    for _ in range(3):  # a subclass has its base's methods
        classes |= {c.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                    and any(isinstance(b, ast.Name) and b.id in classes for b in c.bases)}
    return ids, classes, methods


def unbound(tree: ast.AST, classes: set[str], methods: set[str]) -> list[str]:
    """A method that changes `self` reached through its class (`R.add(math)`: `self` is then any object, a
    module's too), or such a class (or `type(x)`) handed on as a value, which the same call can then use."""
    if not classes:
        return []
    parents = parents_of(tree)
    notes = {id(a) for n in ast.walk(tree) for a in [getattr(n, "annotation", None), getattr(n, "returns", None)]
             if a is not None for a in ast.walk(a)}
    found = []
    for node in ast.walk(tree):
        up, at = parents.get(id(node)), getattr(node, "lineno", 0)
        if isinstance(node, ast.Attribute) and node.attr in methods | {"mro"} and isinstance(node.value, ast.Name) \
                and node.value.id in classes:
            found.append(f"line {at}: `{ast.unparse(node)}`: a method that changes `self`, reached through its class "
                         "(then `self` can be any object, a module too): call it on an instance")
        elif isinstance(node, ast.Name) and node.id in classes and isinstance(node.ctx, ast.Load) and \
                id(node) not in notes and not harmless(node, up):
            found.append(f"line {at}: hands the class `{node.id}` on, whose methods change `self` (only "
                         f"`{node.id}(...)`, a base class, `isinstance` and annotations are inside the vocabulary)")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" and \
                len(node.args) == 1 and not isinstance(up, ast.Compare) and not (
                    isinstance(up, ast.Attribute) and up.attr not in methods | {"mro"}):
            found.append(f"line {at}: `{ast.unparse(node)}` as a value, in a cell whose class's methods change `self` "
                         "(a method reached through the class can change any object)")
    return found


def parents_of(tree: ast.AST) -> dict[int, ast.AST]:
    """{id(node): the node it sits in}, for the whole tree."""
    return {id(c): n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}


def called(node: ast.AST, parents: dict[int, ast.AST]) -> ast.Call | None:
    """The call whose function `node` is (`node(...)`), or None."""
    up = parents.get(id(node))
    return up if isinstance(up, ast.Call) and up.func is node else None


def harmless(name: ast.Name, up: ast.AST | None) -> bool:
    """Where a class's name gives nobody the class: `R(...)`, `R.x` (its methods: see above), `class S(R)`,
    `x is R`, `isinstance(x, R)`."""
    if isinstance(up, ast.Call):
        return up.func is name or isinstance(up.func, ast.Name) and up.func.id in ("isinstance", "issubclass") and \
            name in up.args[1:]
    return isinstance(up, ast.Attribute | ast.ClassDef | ast.Compare)


def root(node: ast.expr) -> str:
    """The name an attribute or subscript chain starts from (`guards.REQUESTS["x"]`: guards), or ""."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Starred | ast.NamedExpr):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def spread(value: ast.expr) -> list[ast.expr]:
    """The values a tuple, list, set or dict display (or `*` of one) holds; [value] for anything else."""
    value = value.value if isinstance(value, ast.Starred) else value
    return [v for v in value.values if v is not None] if isinstance(value, ast.Dict) else value.elts \
        if isinstance(value, ast.Tuple | ast.List | ast.Set) else [value]


def shared_names(tree: ast.AST, bound: dict[str, list[str]]) -> set[str]:
    """The names bound to what the setup or an import gives, and the cell's plain aliases of them (`r = x.y`,
    `for r in [x.y]`, `(r := x)`): changing one changes what the check reads too."""
    pairs = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            pairs += [(t, node.value) for t in node.targets]
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            pairs.append((node.target, node.value))
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            pairs.append((node.target, node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            pairs.append((node.optional_vars, node.context_expr))
    shared = set(bound)
    for _ in range(3):
        for target, value in pairs:
            if any(root(v) in shared for v in spread(value)):
                shared |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return shared


def changers(tree: ast.AST, bound: dict[str, list[str]]) -> dict[str, set[int | str]]:
    """{`f`, or `.m` for a method called on an instance: the positions and names of the arguments the cell's own
    function changes} (`def f(d): d.clear()`, `d[k] = v`, `f = lambda d: d.clear()`, `def g(d): f(d)` in turn)."""
    in_class = {id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for f in c.body}
    functions: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, int]] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):  # a method's first argument is its instance
            static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in n.decorator_list)
            functions.append(("." * (id(n) in in_class) + n.name, n, int(id(n) in in_class and not static)))
        elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda):
            functions += [(t.id, n.value, 0) for t in n.targets if isinstance(t, ast.Name)]
    found: dict[str, set[int | str]] = {}
    for _ in range(3):  # again only when a function was found to change an argument (`g` calling `f`)
        before = sum(map(len, found.values()))
        for key, fn, skip in functions:
            positional = fn.args.posonlyargs + fn.args.args
            params = positional[skip:] + fn.args.kwonlyargs
            stored = {root(n) for n in ast.walk(fn) if isinstance(n, ast.Attribute | ast.Subscript)
                      and isinstance(n.ctx, ast.Store | ast.Del)}
            if not params or not (stored & (every := shared_names(fn, {p.arg: [] for p in params}))
                                  or changes(fn, every, bound, found)):
                continue  # none of its arguments changes: the common case, read once
            for param in params:
                mine = shared_names(fn, {param.arg: []})
                if stored & mine or changes(fn, mine, bound, found):
                    found.setdefault(key, set()).update(
                        {param.arg, *(i - skip for i, p in enumerate(positional) if p is param)})
        if sum(map(len, found.values())) == before:
            break
    return found


def changes(tree: ast.AST, shared: set[str], bound: dict[str, list[str]],
            own: dict[str, set[int | str]] | None = None) -> list[str]:
    """Calls that change what the setup or an import gives: its methods that change a value in place
    (`REQUESTS.clear()`, `dict.update(REQUESTS, ...)`, `heapq.heappush(...)`), the cell's own functions that
    change an argument (`own`, from changers) and decorators called on it (`dataclass(Limits)`,
    `functools.total_ordering(Policy)` rewrite the class in place)."""
    own = changers(tree, bound) if own is None else own
    mine = {c.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef)}
    decorating = {id(d) for n in ast.walk(tree) if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  for d in n.decorator_list}
    parents = parents_of(tree)
    found = []
    for node in ast.walk(tree):
        at = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING:
            whose = root(node.func.value) if root(node.func.value) in shared else root(node.args[0]) \
                if node.args and root(node.func.value) in CONTAINERS else ""
            if whose in shared:
                found.append(f"line {at}: changes `{whose}` with `.{node.func.attr}(...)`: the setup or an import "
                             "gives it (the check uses it too)")
        function = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else \
            "." + node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else ""
        if isinstance(node, ast.Call) and function in own:
            given = [(i, a) for i, a in enumerate(node.args)] + [(k.arg, k.value) for k in node.keywords]
            if any((where in own[function] or isinstance(a, ast.Starred) or where is None) and  # *[x], **{k: x}
                   any(root(v) in shared for v in spread(a)) for where, a in given):
                found.append(f"line {at}: `{function.removeprefix('.')}` changes its argument, which the setup or an "
                             "import gives (the check uses it too)")
        name = node.attr if isinstance(node, ast.Attribute) else bound.get(node.id, [node.id])[-1] \
            if isinstance(node, ast.Name) else ""  # `from functools import total_ordering as t`: t
        if name in ARG_MUTATORS | CLASS_MUTATORS and isinstance(getattr(node, "ctx", None), ast.Load):
            call = called(node, parents)
            outer = called(call, parents) if call is not None else None
            args = (outer or call).args if call else []
            if id(node) in decorating or call is not None and id(call) in decorating:
                continue  # `@dataclass`, `@dataclass(frozen=True)`: on the cell's own class
            if name in CLASS_MUTATORS and not (args and isinstance(args[0], ast.Name) and args[0].id in mine):
                found.append(f"line {at}: `{name}` not as a decorator of the cell's own class (called on a class the "
                             "setup gives, it rewrites that class in place)")
            elif name in ARG_MUTATORS and (not args or root(args[0]) in shared):
                found.append(f"line {at}: `{name}` changes its first argument, which the setup or an import gives "
                             "(the check uses it too)")
    return found
