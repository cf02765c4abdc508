"""The calls of one assert, as Python reads them: every call runs before the comparison, and a
value is read when the assert first operates on it, not when its call returns.

The sandbox encodes a value when its call returns (a snapshot), which is what Python reads only
where the assert uses the value before the next call. Red team round 18: a program returning its
live list (`record(1) != record(2)`), a dict view, or an iterator a later call feeds was compared
frozen, paying wrong programs and failing right ones. So each assert of two calls or more is a
group, and each of its values but the last is one of:

- late: the assert first operates on it after every later call (`[f(1), f(2)] == x`,
  `list(zip(it(), [add(3)]))`): the sandbox encodes it, or draws its iterator, once the group's
  last call has returned, as Python reads it;
- early: only a one-operator comparison that holds no later call reads it (`f() == x and g()`):
  the snapshot is what Python compared;
- read at its call (round 19, `code_reads`): a builtin, method or f-string field that holds no
  later call consumes it (`any(f()) and g()`): "now" ones are the snapshot, "items" ones too
  where the harness finds its items immutable;
- neither: the sandbox encodes it again after the last call; a value that changed, or an iterator
  it drew before a later call ran, makes the task unverifiable.

Two iterators drawn in one group are unverifiable too: Python may draw them in turn (`zip`)."""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Collection
from typing import Any

from stages.verifiers.code_reads import read_at_call

_PLACEHOLDER = re.compile(r"_v(\d+)")
_HOLDERS = (ast.List, ast.Tuple, ast.Set, ast.Dict)  # displays build only once all are evaluated


def _index(node: ast.AST) -> int | None:
    if isinstance(node, ast.Name):
        found = _PLACEHOLDER.fullmatch(node.id)
        return int(found.group(1)) if found else None
    return None


def _indices(node: ast.AST) -> set[int]:
    return {j for n in ast.walk(node) if (j := _index(n)) is not None}


def _operates_after_operands(op: ast.AST, child: ast.AST) -> bool:
    """Whether `op` evaluates all its operands before it operates on `child` (one of them)."""
    if isinstance(op, ast.Compare):
        return len(op.ops) == 1
    if isinstance(op, (ast.BinOp, ast.Subscript)):
        return True
    if isinstance(op, ast.Call):
        return child is not op.func
    return isinstance(op, ast.keyword)


def call_group(
    expr: ast.expr, first: int, end: int, bound: Collection[str] = ()
) -> list[Any] | None:
    """[first, last, late, early, now, items] for an assert whose calls are `first`..`end - 1`
    (`bound`: the names the tests' imports bind); None for one call or none (nothing runs between
    its call and its comparison)."""
    if end - first < 2:
        return None
    parents = {id(c): p for p in ast.walk(expr) for c in ast.iter_child_nodes(p)}
    seen = Counter(i for n in ast.walk(expr) if (i := _index(n)) is not None)
    late, early, read = [], [], {"now": [], "items": []}
    for node in ast.walk(expr):
        i = _index(node)
        if i is None or not first <= i < end - 1 or seen[i] != 1:
            continue
        later = set(range(i + 1, end))
        consumer = read_at_call(node, parents, bound)
        if consumer and not later & _indices(consumer[0]):  # read before any later call
            read[consumer[1]].append(i)
            continue
        while isinstance(parents.get(id(node)), _HOLDERS):
            node = parents[id(node)]
        op = parents.get(id(node))
        if isinstance(op, ast.keyword):
            node, op = op, parents.get(id(op))
        if op is None:
            continue
        inside = _indices(op)
        if later <= inside and _operates_after_operands(op, node):
            late.append(i)
        elif isinstance(op, ast.Compare) and len(op.ops) == 1 and not later & inside:
            early.append(i)
    return [first, end - 1, sorted(late), sorted(early), read["now"], read["items"]]


def unplaced(groups: list[list[Any]], calls: list[str], reads: Collection[str]) -> list[int]:
    """The calls whose value an assert holds, to a time the verifier cannot place, across a later
    call that runs the program's code (red team round 21): neither late, early nor read at its
    call (`f() and g()`, `f() < g() < 3`). Python may have freed such a value before that later
    call, the sandbox holds it to the assert's end: where the program sees lifetimes
    (`code_lifetimes.observes_lifetimes`) the harness makes it unverifiable. A read-back of a
    shared input (`reads`: its bare name) runs none of the program's code."""
    found = []
    for first, last, late, early, now, _items in groups:
        placed = set(late) | set(early) | set(now)
        for i in range(first, last):
            if i not in placed and any(calls[j] not in reads for j in range(i + 1, last + 1)):
                found.append(i)
    return found


def apply_fixes(tagged: list[Any]) -> list[Any]:
    """The values as the harness settled them at each group's end: a group's last answer carries
    `{"fix": [[[call, value], ...], answer]}` for its earlier calls (a late value, or why one is
    unverifiable). Only earlier calls of the run, or the answer's own, are replaced; a value that
    was the very input or earlier result (`ref`) keeps saying so."""
    out = list(tagged)
    for k, value in enumerate(tagged):
        if not (isinstance(value, dict) and set(value) == {"fix"}):
            continue
        fixes, answer = value["fix"]
        out[k] = answer
        for i, fixed in fixes:
            if type(i) is not int or not 0 <= i <= k:
                raise ValueError("a fix for a call that is not an earlier one")
            if isinstance(fixed, dict) and set(fixed) & {"ref", "fix"}:  # answer() alone wraps
                fixed = {"e": "the program forged a settled value"}
            held = out[i]
            if isinstance(held, dict) and set(held) == {"ref"} and isinstance(held["ref"], list):
                out[i] = {"ref": [held["ref"][0], fixed]}
            else:
                out[i] = fixed
    return out


_DISPLAYED = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}


def unpacked_display(node: ast.expr, is_candidate: Any) -> ast.expr | None:
    """`[*f(x)]`, `(*f(x),)`, `{*f(x)}`: one unpacked value alone in a display draws it whole,
    as `list(f(x))` (`tuple`, `set`) does, so it is read as that builtin (the program's own
    `list`, if it defines one, is never called for it: None)."""
    name = _DISPLAYED.get(type(node))
    elts = getattr(node, "elts", [])
    if name is None or is_candidate(name) or len(elts) != 1 or not isinstance(elts[0], ast.Starred):
        return None
    call = ast.Call(ast.Name(name, ast.Load()), [elts[0].value], [])
    return ast.copy_location(call, node)
