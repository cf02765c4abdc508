"""Objects Python shares between a test's inputs, which a literal written out for the sandbox would
make apart: a container reached twice (`[[0] * 2] * 2`, `[row, row]`), a nan (one object equals
itself in a container). Such an input goes in as written, or the test is unsupported."""

from __future__ import annotations

import ast
from typing import Any

from stages.verifiers.code_parts import mutable_literal
from stages.verifiers.code_trusted import UnsupportedTests


def identity_matters(value: Any) -> bool:
    """Whether a literal would lose objects Python shares: a container reached twice (`[[0] * 2]
    * 2` is one row twice; a literal makes two) or a nan (the same nan equals itself in a
    container, `math.nan` is one object). Such an input goes in as written."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (float, complex)) and item != item:
            return True
        if isinstance(item, (list, dict, set, bytearray)):
            if id(item) in seen:
                return True
            seen.add(id(item))
        if isinstance(item, dict):
            stack.extend([*item.keys(), *item.values()])
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return False


def one_object_twice(test: ast.expr, candidate: set[str], literals: dict[str, ast.expr]) -> None:
    """A list the tests bind once, read twice in one program call's input (`f([row, row])`):
    Python passes one object twice, inlining would make two, so the test is unsupported."""
    mutable = {k.split("#")[0] for k, v in literals.items() if mutable_literal(v)}
    for call in ast.walk(test):
        if not isinstance(call, ast.Call) or not any(
            isinstance(f, ast.Name) and f.id in candidate for f in ast.walk(call.func)
        ):
            continue
        read = [n.id.split("#")[0] for arg in (*call.args, *call.keywords) for n in ast.walk(arg)
                if isinstance(n, ast.Name) and n.id.split("#")[0] in mutable]  # fmt: skip
        if len(read) != len(set(read)):
            line = getattr(call, "lineno", "?")
            raise UnsupportedTests(f"line {line}: one list of the tests twice in one input")
