"""Values a call reads at once (red team round 19): Python evaluates a call's arguments, then
calls it, so a builtin or method that consumes a program value (`any(log(0))`,
`sorted(log(3), key=abs)`, `','.join(w('a'))`, `log(1).index(1)`) or an f-string field
(`f'{log(1)}{log(2)}'`) reads it before any call written after it runs. Where the consuming call
holds no later call of its assert, the value's snapshot at its own call is what Python read.

Two kinds, by what the consumer keeps of the value:

- now: a result holding nothing of it (a bool, a number, a string): the snapshot decides alone;
- items: a result holding its items (`sorted`, `min`, `dict.fromkeys`): the snapshot decides only
  where those items are immutable (the harness checks the encoded snapshot); a later call could
  change a mutable item Python reads after it, so such a value stays one that must not change.

Lazy consumers (`reversed`, `zip`, `map`, `iter`, a dict view) read later and are neither.
Round 21: `callable(f())`, `isinstance(f(), C)` and `not f()` read at once too, so the harness
frees the value before the later call, as Python does (`code_harness`)."""

from __future__ import annotations

import ast
from collections.abc import Collection

from stages.verifiers.code_reads_copies import copied_at_once

_NOW = frozenset({"any", "all", "len", "bool", "str", "repr", "ascii", "format",
                  "callable", "isinstance", "issubclass"})  # fmt: skip
_ITEMS = frozenset({"sorted", "min", "max", "sum", "list", "tuple", "set", "frozenset", "dict"})
_NOW_METHODS = frozenset({"index", "count"})  # of the value: an int
_TEXT_METHODS = frozenset({"join", "format"})  # of a constant string, the value an argument
_HOLDERS = (ast.List, ast.Tuple, ast.Set, ast.Dict)


def _builtin(func: ast.expr, bound: Collection[str]) -> str | None:
    """The trusted builtin `func` names (`dict.fromkeys` too), or None (a name the tests'
    imports bind is theirs, not the builtin)."""
    if isinstance(func, ast.Name) and func.id not in bound:
        return func.id
    if (isinstance(func, ast.Attribute) and func.attr == "fromkeys"
            and isinstance(func.value, ast.Name) and func.value.id == "dict"
            and "dict" not in bound):  # fmt: skip
        return "dict.fromkeys"
    return None


def _consumer(node: ast.expr, parents: dict[int, ast.AST], bound: Collection[str]
              ) -> tuple[ast.AST, str] | None:  # fmt: skip
    """The call (or f-string field) that reads `node` at once, and its kind."""
    op = parents.get(id(node))
    if isinstance(op, ast.FormattedValue) and op.value is node:
        return op, "now"
    if isinstance(op, ast.UnaryOp) and isinstance(op.op, ast.Not):  # its truth, at once
        return op, "now"
    copied = copied_at_once(node, parents)  # `.copy()`, `[:]`, `+ []`, `'%s' %` (round 20)
    if copied is not None:
        return copied
    if isinstance(op, ast.Attribute) and op.attr in _NOW_METHODS:
        call = parents.get(id(op))
        return (call, "now") if isinstance(call, ast.Call) and call.func is op else None
    if not isinstance(op, ast.Call) or node is op.func:
        return None
    name = _builtin(op.func, bound)
    if name in _NOW:
        return op, "now"
    func = op.func
    if (isinstance(func, ast.Attribute) and func.attr in _TEXT_METHODS
            and isinstance(func.value, ast.Constant) and type(func.value.value) is str):  # fmt: skip
        return op, "now"
    first = op.args[:1] == [node]
    if name in ("min", "max") and len(op.args) != 1:  # min(a, b) returns a or b itself
        return None
    if first and (name in _ITEMS or name == "dict.fromkeys"):
        return op, "items"
    return None


def read_at_call(node: ast.expr, parents: dict[int, ast.AST], bound: Collection[str]
                 ) -> tuple[ast.AST, str] | None:  # fmt: skip
    """Where a call reads the program value `node` (a placeholder) at once: (that call, "now" or
    "items"); None where Python may read it later. A display around the value (`any([f()])`)
    is read with it by a "now" consumer; an "items" one would keep the value itself."""
    found = _consumer(node, parents, bound)
    if found is not None:
        return found
    held = node
    while isinstance(parents.get(id(held)), _HOLDERS):
        held = parents[id(held)]  # type: ignore[assignment]
    found = _consumer(held, parents, bound) if held is not node else None
    return found if found is not None and found[1] == "now" else None
