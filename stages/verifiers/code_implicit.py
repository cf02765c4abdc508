"""Names MBPP's tests use without importing them (its imports live in a separate field), read on
the trusted side: a module used as `math.isclose(...)`, a helper wrapped around the program's
call (`isclose(mean(xs), 2.0)`). Never the program's names, so a program defining
`class math: isclose = lambda *a, **k: True` changes nothing (red team round 4)."""

from __future__ import annotations

import ast
from typing import Any

from stages.verifiers.code_trusted import trusted_module

# Modules and helpers MBPP's tests use without importing them (its imports live in another field):
# read on the trusted side, never as the program's names, so `class math: isclose = ...` in a
# program changes nothing (red team round 4).
_IMPLICIT_MODULES = {"math": "math", "cmath": "cmath", "operator": "operator", "hmac": "hmac",
                     "re": "re", "string": "string", "fractions": "fractions",
                     "decimal": "decimal", "collections": "collections", "itertools": "itertools",
                     "functools": "functools", "statistics": "statistics", "heapq": "heapq",
                     "json": "json", "np": "numpy", "numpy": "numpy"}  # fmt: skip
_IMPLICIT_HELPERS = {"isclose": "math", "compare_digest": "hmac", "fullmatch": "re",
                     "Counter": "collections", "OrderedDict": "collections",
                     "defaultdict": "collections", "deque": "collections",
                     "Fraction": "fractions", "Decimal": "decimal"}  # fmt: skip


def _wraps_another_name(call: ast.Call, name: str, free: set[str]) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in free - {name}
        for arg in (*call.args, *(k.value for k in call.keywords)) for n in ast.walk(arg)
    )  # fmt: skip


def implicit_imports(module: ast.Module, free: set[str]) -> dict[str, Any]:
    """Trusted objects for names the tests use unimported: a module's name used only as
    `math.isclose(...)`, and a helper (`isclose`, `Counter`, ...) used only around a call of
    another of the program's names (`isclose(mean(xs), 2.0)`); a helper called on plain inputs
    is the entry point (`assert isclose(1.0, 1.0)` tests the program's `isclose`)."""
    parents = {id(c): n for n in ast.walk(module) for c in ast.iter_child_nodes(n)}
    uses: dict[str, list[ast.AST]] = {}
    for n in ast.walk(module):
        if isinstance(n, ast.Name) and n.id in free:
            uses.setdefault(n.id, []).append(parents.get(id(n), n))
    found: dict[str, Any] = {}
    for name, parents_of in uses.items():
        if name in _IMPLICIT_MODULES and all(isinstance(u, ast.Attribute) for u in parents_of):
            target = trusted_module(_IMPLICIT_MODULES[name])
        elif name in _IMPLICIT_HELPERS and all(
            isinstance(u, ast.Call) and isinstance(u.func, ast.Name) and u.func.id == name
            and _wraps_another_name(u, name, free) for u in parents_of
        ):  # fmt: skip
            target = getattr(trusted_module(_IMPLICIT_HELPERS[name]), name, None)
        else:
            continue
        if target is not None:
            found[name] = target
    return found
