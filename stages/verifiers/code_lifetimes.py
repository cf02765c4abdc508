"""What a program may observe of the harness's own objects, which no harness can hide (red team
round 21). The harness frees each value when Python would (`code_harness`), yet it runs its own
code between the calls: it allocates, so memory a freed object held goes to another object than
in Python, and its own references are counted beside the program's.

- An id reused: in Python a freed argument's id is often the next assert's new argument's
  (`count_keys({'a': 1})`, then `count_keys({'x': 1, ...})`), so a cache keyed on `id(d)` answers
  stale there and a wrong program fails; the sandbox's allocations in between hand out another
  id and would pay it. A program reading the builtin `id` that can keep anything from one call
  to the next (module state, a class, a default, a decorator, `global`) is unverifiable; one
  that takes ids only within a call (a local `seen` set) is verified.
- A count of references or allocations (`sys.getrefcount`, `gc.get_referrers`, `tracemalloc`,
  ...) sees the harness's: unverifiable wherever the program names one. (`gc.get_objects` of
  the program's own class sees what Python sees, now that lifetimes agree.)

`observes_lifetimes` tells the harness where the program could see when a value is freed (a
`__del__`, weak references, gc, a generator's `finally` or `with`): there a value an assert reads
at a time the verifier cannot place (`f() and g()`) is unverifiable rather than held to the
assert's end, which may be longer than Python holds it."""

from __future__ import annotations

import ast

from stages.verifiers.code_dynamic_globals import reads_globals_dynamically
from stages.verifiers.code_globals import function_global_reads
from stages.verifiers.code_inputs import program_names

_COUNTERS = frozenset({"getrefcount", "get_referrers", "get_referents", "getallocatedblocks",
                       "get_count", "get_stats", "get_freeze_count", "_debugmallocstats"})  # fmt: skip
_MODULES = ("sys", "gc")
_MEMORY = ("tracemalloc", "ctypes")  # allocation traces; raw memory (a refcount by id())
# module-level statements that keep nothing a later call could read
_STATELESS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.Pass)


def lifetime_unverifiable(program: str) -> str | None:
    """Why what `program` computes may rest on the harness's allocations (see the module), or
    None."""
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    counter = _counter_named(tree)
    if counter:
        return f"the program reads {counter}, which sees the harness's objects and allocations too"
    reads_id = "id" in function_global_reads(program) and "id" not in (program_names(program) or ())
    if reads_id and _keeps_state(tree):
        return ("the program takes id() of objects and keeps state between calls: which ids "
                "Python hands out again differs in the sandbox")  # fmt: skip
    return None


def _counter_named(tree: ast.Module) -> str | None:
    """The first counter of sys's or gc's the program names (`sys.getrefcount`, `from gc import
    get_referrers`, `getattr(sys, 'getrefcount')`), or tracemalloc or ctypes; a method of the
    program's own called get_count is none."""
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in _MEMORY:
                    return a.name
                if a.name in _MODULES:
                    modules.add(a.asname or a.name)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            found = [a.name for a in node.names if a.name in _COUNTERS or a.name == "*"]
            if node.module.split(".")[0] in _MEMORY or (node.module in _MODULES and found):
                return found[0] if found else node.module
    for node in ast.walk(tree):
        on_module = isinstance(node, ast.Attribute) and getattr(node.value, "id", None) in modules
        if on_module and node.attr in _COUNTERS:  # type: ignore[union-attr]
            return node.attr  # type: ignore[union-attr]
        spelled = isinstance(node, ast.Constant) and node.value in _COUNTERS
        if spelled and modules:
            return str(node.value)  # type: ignore[attr-defined]
    return None


_IMMUTABLE_MAKERS = frozenset({"int", "float", "complex", "str", "bytes", "bool", "tuple",
                               "frozenset", "range"})  # fmt: skip
_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property"})


def _immutable(node: ast.expr | None) -> bool:
    """An expression of constants alone that makes an immutable value: `10 ** 9 + 7`,
    `float('inf')`, `(1, 'a')`; None (no default) too."""
    if node is None or isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Tuple):
        return all(map(_immutable, node.elts))
    if isinstance(node, ast.UnaryOp):
        return _immutable(node.operand)
    if isinstance(node, ast.BinOp):
        return _immutable(node.left) and _immutable(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        return node.func.id in _IMMUTABLE_MAKERS and all(map(_immutable, node.args))
    return False


def _stateless_body(body: list[ast.stmt]) -> bool:
    """A module's or class's statements that bind nothing a call could change: definitions,
    imports, docstrings, immutable constants."""
    for stmt in body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a docstring
        if isinstance(stmt, ast.Assign) and _immutable(stmt.value):
            continue
        if (
            isinstance(stmt, ast.ClassDef)
            and not stmt.decorator_list
            and _stateless_body(stmt.body)
        ):
            continue
        if not isinstance(stmt, _STATELESS):
            return False
    return True


def _keeps_state(tree: ast.Module) -> bool:
    """Whether the program has anywhere to keep a value from one call to the next: a module-level
    or class-level binding of anything but an immutable constant, a decorator (`lru_cache`), a
    mutable default, a `global` or `nonlocal`, an attribute or `setattr` written anywhere, a
    dynamic route to a module's globals."""
    if not _stateless_body(tree.body) or reads_globals_dynamically(ast.unparse(tree)):
        return True  # `globals()`, `vars(sys)`, `sys.modules`: a store no symbol table shows
    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            defaults = [*node.args.defaults, *node.args.kw_defaults]
            decorators = [getattr(d, "id", None) for d in getattr(node, "decorator_list", [])]
            plain = all(d in _PLAIN_DECORATORS for d in decorators)
            if not plain or not all(map(_immutable, defaults)):
                return True
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.Name) and node.id == "setattr":
            return True
    return False


_WEAK = frozenset({"weakref", "gc", "WeakSet", "WeakValueDictionary", "WeakKeyDictionary",
                   "WeakMethod", "finalize", "__del__"})  # fmt: skip


def observes_lifetimes(program: str) -> bool:
    """Whether the program may see when one of its objects is freed: it defines `__del__`, names
    weak references or gc (a name, an attribute, an import or a string: `{'__del__': f}`), or has a generator with `finally`, `with` or an `except` (closing it
    runs them). Broad on purpose: too broad only makes a value read at an unplaced time
    unverifiable."""
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in ast.walk(tree):
        named = {getattr(node, k, None) for k in ("id", "attr", "name", "module", "value")}
        if isinstance(node, ast.alias):
            named.add(node.name.split(".")[0])
        if named & _WEAK:
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _closing_runs_code(node):
            return True
    return False


def _closing_runs_code(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    inside = list(ast.walk(fn))
    generator = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in inside)
    return generator and any(isinstance(n, (ast.Try, ast.With, ast.AsyncWith)) for n in inside)
