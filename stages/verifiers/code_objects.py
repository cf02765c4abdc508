"""The program's objects the tests bind at module level (`s = Stack()`, `obj = Solution()`).

LeetCode- and class-style tests build one object and then call its methods across statements
(`s.push(1)`, `assert s.pop() == 1`): its state lives between the calls. The object lives in the
sandbox, made by the program's own call (`Stack()`, inputs only) and kept by the harness under the
tests' name; each later call that names it receives it, as a call receives a shared input. Only
calls and their inputs go in; every value a call returns comes back and is compared out here.

Where the sandbox would draw an iterator while such an object is kept, the value is unverifiable
(`code_harness`): drawing ahead of Python could change what the object later answers."""

from __future__ import annotations

import ast
from typing import Any

from stages.verifiers.code_trusted import UnsupportedTests

BIND = "__bind_object__"  # marks `name = program_call(...)`: the result is kept in the sandbox


def binding(stmt: ast.Assign, known: set[str]) -> ast.Assert | None:
    """`s = Stack()` as a pseudo-assert `__bind_object__(Stack(), 's')`, or None where the value
    is no call (a literal, or anything else the caller refuses). A name bound twice, as an object
    and a literal or as two objects, is unsupported: which binding a read sees is not tracked."""
    value, name = stmt.value, stmt.targets[0].id  # type: ignore[attr-defined]
    if not isinstance(value, ast.Call) or literal(value):  # `s = set()` is a literal input
        return None
    if name in known:
        raise UnsupportedTests(f"line {stmt.lineno}: {name} is bound twice")
    return bind_assert(value, name, stmt)


def literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return False
    return True


def bind_assert(value: ast.expr, name: str, at: ast.stmt) -> ast.Assert:
    """The pseudo-assert that makes `value` (a program call) in the sandbox and keeps it as
    `name`, where `at` stands."""
    test = ast.Call(ast.Name(BIND, ast.Load()), [value, ast.Constant(name)], [])
    return ast.copy_location(ast.Assert(test=test, msg=None), at)


def split_binding(splitter: Any, node: ast.Call) -> ast.expr:
    """The split of `__bind_object__(call, name)`: the call goes in as any program call, and the
    harness keeps its result under `name` (its value is never encoded). Its assert holds unless
    the call raised, as the statement fails the tests in Python."""
    call, name = node.args[0], node.args[1].value  # type: ignore[attr-defined]
    if not splitter._program_call(call):
        raise UnsupportedTests(
            f"line {getattr(call, 'lineno', '?')}: {name} is bound to a call that is not the "
            "program's (not a literal)"
        )
    done = splitter._placeholder(call)
    splitter.bound_objects[int(done.id[2:])] = name
    # From here on the name is the program's object: its methods and readers run in there.
    splitter.candidate.add(name)
    splitter.objects.add(name)
    splitter.kept.add(name)
    return ast.Subscript(ast.Tuple([done, ast.Constant(True)], ast.Load()),
                         ast.Constant(1), ast.Load())  # fmt: skip
