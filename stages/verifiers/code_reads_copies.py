"""Copies Python makes of a program value at once (red team round 20), read at their call as
round 19's consumers (`code_reads`) are: `log(1).copy()`, `log(1)[:]` (any slice), `log(1) + []`
(any binary operator: its result is made when both operands are), `'%s' % w('a')` (a constant
format string: the text is made then). Each holds the value's items but for `%`, which holds
text: "items" and "now" as in `code_reads`.

Python (3.11+) compiles `'%s %s' % (w('a'), w('b'))` as an f-string: each item is formatted right
after it is evaluated, before the next item's call runs (`['a'] ['a', 'b']`), so each is read at
its own call; whether it does is asked of the interpreter's own compiler, never guessed."""

from __future__ import annotations

import ast
import dis
import functools


def copied_at_once(node: ast.AST, parents: dict[int, ast.AST]) -> tuple[ast.AST, str] | None:
    """The expression that copies `node` as soon as its own operands are evaluated, and its kind;
    the caller checks that it holds no later call of the assert."""
    op = parents.get(id(node))
    if isinstance(op, ast.Tuple) and _formats_each_item(op, parents):
        return node, "now"  # formatted before the tuple's next item is evaluated
    if isinstance(op, ast.Attribute) and op.attr == "copy" and op.value is node:
        call = parents.get(id(op))
        if isinstance(call, ast.Call) and call.func is op and not call.args and not call.keywords:
            return call, "items"
        return None
    if isinstance(op, ast.Subscript) and op.value is node and isinstance(op.slice, ast.Slice):
        return op, "items"
    if isinstance(op, ast.BinOp) and node in (op.left, op.right):
        text = isinstance(op.left, ast.Constant) and type(op.left.value) is str
        if isinstance(op.op, ast.Mod) and text and op.right is node:
            return op, "now"
        return op, "items"
    return None


def _formats_each_item(items: ast.Tuple, parents: dict[int, ast.AST]) -> bool:
    """Whether `items` is the tuple of a constant `%` format the compiler turns into an
    f-string (only `%s`, `%r`, `%a` units, as many as items, none starred)."""
    op = parents.get(id(items))
    if not (isinstance(op, ast.BinOp) and isinstance(op.op, ast.Mod) and op.right is items):
        return False
    left = op.left
    if not (isinstance(left, ast.Constant) and type(left.value) is str):
        return False
    if any(isinstance(e, ast.Starred) for e in items.elts) or len(left.value) > 10_000:
        return False
    return _compiles_to_fstring(left.value, len(items.elts))


@functools.lru_cache(maxsize=256)
def _compiles_to_fstring(text: str, count: int) -> bool:
    names = ", ".join(f"_a{k}" for k in range(count))
    code = compile(f"{text!r} % ({names},)", "<format>", "eval")
    return not any(i.opname in ("BINARY_OP", "BINARY_MODULO") for i in dis.get_instructions(code))
