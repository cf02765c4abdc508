"""Identity (`is`, `is not`) between the program's values, decided from what the harness saw.

Decoded values are fresh objects, so `new_board() is not new_board()` would hold for a program
returning one shared board. The harness keeps alive the results that an identity check names
first (`keep`) and reports, for each later result, the earlier one (or the shared input) that
is the very same object (`code_harness`); the trusted side compares those reports
(`_is_same`), never its own copies. An identity it cannot decide that way (an element of one
value against another: `copy(grid)[0] is grid[0]`) makes the tests unsupported."""

from __future__ import annotations

import ast
from typing import Any

# `f(xs) is xs`, rewritten by code_tests as `_is_input(f(xs), 'xs')` (a test's own `_is_input` is
# the program's name, called in the sandbox): whether the call returned the very object passed in.
IS_INPUT = "_is_input"
# `f() is g()`, rewritten as `_is_same(f(), g(), i, j)`: whether calls i and j gave one object.
IS_SAME = "_is_same"


class UndecidableIdentity(Exception):
    """An identity between the program's values that the harness's reports cannot decide."""


def _index(node: ast.expr) -> int | None:
    """The call index of a bare placeholder `_v<i>`, or None."""
    if isinstance(node, ast.Name) and node.id.startswith("_v") and node.id[2:].isdigit():
        return int(node.id[2:])
    return None


def _uses_values(node: ast.expr) -> bool:
    return any(_index(n) is not None for n in ast.walk(node) if isinstance(n, ast.Name))


def _is_type_of(node: ast.expr) -> bool:
    """`type(x)`: a class, whose identity the decoded values keep (`type(f(x)) is type(g(y))`)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"


class SameIdentity(ast.NodeTransformer):
    """Over an assert's trusted part (placeholders in): `_v0 is _v1` becomes
    `_is_same(_v0, _v1, 0, 1)`, and the earlier call joins `keep`."""

    def __init__(self) -> None:
        self.keep: set[int] = set()

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        operands = [node.left, *node.comparators]
        for k, op in enumerate(node.ops):
            if not isinstance(op, (ast.Is, ast.IsNot)):
                continue
            left, right = operands[k], operands[k + 1]
            if not (_uses_values(left) and _uses_values(right)):
                continue  # against a constant, a class or a literal: the decoded values decide
            i, j = _index(left), _index(right)
            if len(node.ops) == 1 and i is not None and j is not None:
                self.keep.add(min(i, j))
                args = [left, right, ast.Constant(i), ast.Constant(j)]
                same = ast.Call(ast.Name(IS_SAME, ast.Load()), args, [])
                return same if isinstance(op, ast.Is) else ast.UnaryOp(ast.Not(), same)
            if not (_is_type_of(left) and _is_type_of(right)):
                raise UndecidableIdentity(ast.unparse(node)[:80])
        return node


def identity_functions(values: list[Any], returned: dict[int, str | int]) -> dict[str, Any]:
    """`_is_input` and `_is_same` over the harness's reports. `returned`: call index -> the shared
    input (a name) or the earlier kept call (an index) that the call gave back as the very object."""
    by_id = {id(values[i]): name for i, name in returned.items() if isinstance(name, str)}

    def is_input(value: Any, name: str) -> bool:  # a fresh container per value: ids are unique
        return type(value) in (list, dict, set) and by_id.get(id(value)) == name

    def key(i: int) -> tuple[str, Any]:
        seen = set()
        while isinstance(returned.get(i), int) and i not in seen:
            seen.add(i)
            i = returned[i]  # type: ignore[assignment]
        found = returned.get(i)
        return ("input", found) if isinstance(found, str) else ("call", i)

    def is_same(_a: Any, _b: Any, i: int, j: int) -> bool:
        return key(i) == key(j)

    return {IS_INPUT: is_input, IS_SAME: is_same}
