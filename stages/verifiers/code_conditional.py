"""Program calls Python makes only on a condition that depends on the program.

Every program call of an assert is made in the sandbox, ahead of the comparison, so a call Python
would skip must not be in the plan: it could raise (failing a right program) or change state a
later call reads (paying a wrong one, red team round 17). `code_inputs.ShortCircuit` already drops
what a condition that uses nothing of the program skips; what is left behind a condition that
depends on the program (`valid(s) or parse(s)`, `a() if ok() else b()`, `lo() < mid() < hi()`
outside an assert's own truth) makes the tests unverifiable. One exception holds by construction:
where the assert needs every operand true (`assert f(1) == 2 and f(2) == 3`, a chain `assert
0 < f() < 9`), Python skips the rest only when the assert fails anyway."""

from __future__ import annotations

import ast
from collections.abc import Callable

from stages.verifiers.code_trusted import UnsupportedTests


class ConditionalCall(Exception):  # noqa: N818 - a reason the tests are unverifiable
    pass


def check_unconditional(
    test: ast.expr, program_call: Callable[[ast.AST], bool], independent: Callable[[ast.AST], bool]
) -> None:
    """Raise UnsupportedTests where `test` (an assert's) holds a program call Python makes only
    depending on a program value."""
    try:
        _visit(test, program_call, independent, needed_true=True)
    except ConditionalCall as e:
        line = getattr(test, "lineno", "?")
        raise UnsupportedTests(f"line {line}: {e}, which Python may never make") from e


def _calls(node: ast.AST, program_call: Callable[[ast.AST], bool]) -> bool:
    return any(program_call(n) for n in ast.walk(node))


def _visit(node: ast.AST, calls: Callable[[ast.AST], bool], independent: Callable[[ast.AST], bool],
           needed_true: bool) -> None:  # fmt: skip
    if isinstance(node, ast.BoolOp):
        conjunction = needed_true and isinstance(node.op, ast.And)
        for k, value in enumerate(node.values):
            before = node.values[:k]
            if not conjunction and _calls(value, calls) and not all(map(independent, before)):
                raise ConditionalCall(f"a program call behind `{ast.unparse(before[-1])}`")
            _visit(value, calls, independent, conjunction)
        return
    if isinstance(node, ast.IfExp):
        branches = _calls(node.body, calls) or _calls(node.orelse, calls)
        if branches and not independent(node.test):
            raise ConditionalCall(f"a program call behind the test `{ast.unparse(node.test)}`")
    chain = isinstance(node, ast.Compare) and len(node.ops) > 1 and not needed_true
    if chain and any(_calls(c, calls) for c in node.comparators[1:]):  # type: ignore[attr-defined]
        raise ConditionalCall("a program call later in a comparison chain")
    for child in ast.iter_child_nodes(node):
        _visit(child, calls, independent, False)
