"""Tests that expect a program call to raise, written with try/except (no pytest):

    try:                          try:
        inv(0)                        inv(0)
    except ValueError:                assert False
        pass                      except (ValueError, TypeError):
    else:                             pass
        assert False

The call goes in as a statement (its value is never read); where it raises, the harness reports
every builtin exception class the raised type is a subclass of, by the type's own MRO as Python's
`except` matches it (a program class named `ValueError` is no ValueError), never its name or
message. The handler's classes stay out here: the trusted side decides whether one of them was
raised. A handler naming a class the program or the tests' imports define, a handler with a body,
`finally`, or any other shape is unsupported (the task unverifiable)."""

from __future__ import annotations

import ast
import builtins
import copy
from typing import Any

from stages.verifiers.code_trusted import UnsupportedTests

RAISES = "__raises__"  # marks a try statement's call: __raises__(call, (names...), required)
_EXCEPTIONS = frozenset(
    n for n, c in vars(builtins).items() if isinstance(c, type) and issubclass(c, BaseException)
)


def _line(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def _fails(stmt: ast.stmt) -> bool:
    """`assert False[, msg]` or `raise AssertionError[(...)]`: the statement that fails the tests
    where the call did not raise."""
    if isinstance(stmt, ast.Assert):
        return isinstance(stmt.test, ast.Constant) and stmt.test.value is False
    if isinstance(stmt, ast.Raise) and stmt.cause is None and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return isinstance(exc, ast.Name) and exc.id == "AssertionError"
    return False


def _handled(handlers: list[ast.ExceptHandler]) -> tuple[str, ...]:
    names: list[str] = []
    for handler in handlers:
        if not all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr)
                   and isinstance(s.value, ast.Constant)) for s in handler.body):  # fmt: skip
            raise UnsupportedTests(f"{_line(handler)}: an except clause that does more than pass")
        kind = handler.type
        found = kind.elts if isinstance(kind, ast.Tuple) else [kind]
        if kind is None:
            names.append("BaseException")  # a bare except catches everything
        elif all(isinstance(n, ast.Name) and n.id in _EXCEPTIONS for n in found):
            names += [n.id for n in found]  # type: ignore[attr-defined]
        else:
            raise UnsupportedTests(f"{_line(handler)}: an except clause of no builtin exception")
    return tuple(names)


def raises_assert(stmt: ast.Try) -> ast.Assert:
    """The try statement as a pseudo-assert `__raises__(call, names, required)`, or
    UnsupportedTests for any shape but the two above (and the second without `assert False`:
    the call may raise one of those or nothing)."""
    body, orelse = stmt.body, stmt.orelse
    if stmt.finalbody or not body or not isinstance(body[0], ast.Expr):
        raise UnsupportedTests(f"{_line(stmt)}: a try statement of another shape")
    if not isinstance(body[0].value, ast.Call) or len(body) > 2 or len(orelse) > 1:
        raise UnsupportedTests(f"{_line(stmt)}: a try statement of another shape")
    tail = body[1:] + orelse
    if not all(_fails(s) for s in tail) or (body[1:] and orelse):
        raise UnsupportedTests(f"{_line(stmt)}: a try statement of another shape")
    names = _handled(stmt.handlers)
    test = ast.Call(ast.Name(RAISES, ast.Load()),
                    [body[0].value, ast.Constant(names), ast.Constant(bool(tail))], [])  # fmt: skip
    return ast.copy_location(ast.Assert(test=test, msg=None), stmt)


def split_raises(splitter: Any, node: ast.Call) -> ast.expr:
    """The split of `__raises__(call, names, required)`: the call goes in as a statement and the
    harness reports the classes it raised (`splitter.raising`); out here, whether one of `names`
    is among them (`required`: or it raised nothing)."""
    call, names, required = node.args[0], node.args[1].value, node.args[2].value  # type: ignore[attr-defined]
    if not splitter._program_call(call):
        raise UnsupportedTests(f"{_line(call)}: a try statement around no program call")
    taken = set(names) & (set(splitter.defines) | set(splitter.bound) | splitter.candidate)
    if taken:  # in one namespace the handler would name the program's (or an import's) class
        raise UnsupportedTests(f"{_line(call)}: {sorted(taken)[0]} is not the builtin exception")
    done = splitter._placeholder(call, keep_value=False)
    splitter.raising.add(int(done.id[2:]))
    caught = ast.UnaryOp(ast.Not(), ast.Call(
        ast.Attribute(ast.Call(ast.Name("frozenset", ast.Load()), [ast.Constant(names)], []),
                      "isdisjoint", ast.Load()), [done], []))  # fmt: skip
    if required:  # a call that raised nothing is None here: isdisjoint(None) fails the assert
        return caught
    none = ast.Compare(copy.deepcopy(done), [ast.Is()], [ast.Constant(None)])
    return ast.BoolOp(ast.Or(), [none, caught])
