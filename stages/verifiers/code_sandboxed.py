"""Expressions over the program's values that go into the sandbox whole, or that tell the sandbox
how much of a value to draw: there only does Python read them as it would.

- a call of what a program call returned (`make_adder(2)(3)`): its inputs only;
- `isinstance(make_point(1, 2), Point)` against the program's own class (a stand-in out here);
- a constant text key of a program call's value (`tally('aab')['z']`): a dict subclass's
  `__missing__` answers it there, as in Python;
- `islice(gen(), 5)`: the program's generator is drawn five times, not ten thousand (an infinite
  generator of growing values would not end; one counting its draws would count too many).
A constant key or count is an input of the read, never an expected value. So is a reader builtin
over a program call (`str(Point(1, 2))`, `round(sqrt2(), 40)`): Python reads the program's own
object through its own protocol."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from stages.verifiers.code_trusted import TRUSTED_MODULES

Predicate = Callable[[ast.AST], bool]


def whole_in_sandbox(node: ast.expr, mentions: Predicate, program_call: Predicate,
                     is_candidate: Callable[[str], bool]) -> bool:  # fmt: skip
    """Whether `node` goes into the sandbox as one call (see the module's list)."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Call) and mentions(func):
            return True
        return (
            isinstance(func, ast.Name) and func.id in ("isinstance", "issubclass")
            and not is_candidate(func.id) and len(node.args) == 2 and not node.keywords
            and all(mentions(a) for a in node.args)
        )  # fmt: skip
    if isinstance(node, ast.Subscript):
        key = node.slice
        text = isinstance(key, ast.Constant) and type(key.value) in (str, bytes)
        return text and program_call(node.value)
    return False


def islice_draws(node: ast.Call, bound: dict[str, Any]) -> int | None:
    """How many items `islice(P, stop)` or `islice(P, start, stop[, step])` draws from P at most
    (itertools' own: it stops at `stop`), for the trusted `itertools.islice` and constant ints;
    None otherwise."""
    itertools = TRUSTED_MODULES["itertools"]
    func = node.func
    named = isinstance(func, ast.Name) and bound.get(func.id) is itertools.islice
    dotted = (isinstance(func, ast.Attribute) and func.attr == "islice"
              and isinstance(func.value, ast.Name) and bound.get(func.value.id) is itertools)  # fmt: skip
    if not (named or dotted) or node.keywords or len(node.args) not in (2, 3, 4):
        return None
    stop = node.args[1] if len(node.args) == 2 else node.args[2]
    if isinstance(stop, ast.Constant) and type(stop.value) is int and stop.value >= 0:
        return stop.value
    return None


# Builtins that read an object through its own protocol (`__str__`, `__len__`, `__iter__`, ...):
# applied to a program call alone, they run in the sandbox (as they were before the program ran),
# so a correct program returning its own class's objects is read as Python reads it; only inputs
# go in with them, never an expected value.
_READERS = frozenset(["str", "repr", "format", "int", "float", "complex", "bool", "bytes", "abs",
                      "round", "len", "list", "tuple", "set", "frozenset", "dict", "sorted",
                      "reversed", "iter", "next", "min", "max", "sum"])  # fmt: skip


def reads_program_object(node: ast.Call, is_candidate: Callable[[str], bool],
                         program_call: Predicate) -> bool:  # fmt: skip
    """`str(Point(1, 2))`, `sorted(Deck(3), reverse=True)`, `list(reversed(Seq(3)))`: a reader
    builtin over one program call (or over such a reader), with nothing but constants besides."""
    # round(d, 40) too: a Decimal rounds under the program's context, as in Python
    rounds = len(node.args) == 2 and isinstance(node.func, ast.Name) and node.func.id == "round"
    digits = rounds and isinstance(node.args[1], ast.Constant) and type(node.args[1].value) is int
    inner = node.args[0] if len(node.args) == 1 or digits else None
    return (
        isinstance(node.func, ast.Name) and node.func.id in _READERS
        and not is_candidate(node.func.id) and inner is not None
        and (program_call(inner)
             or (isinstance(inner, ast.Call) and reads_program_object(inner, is_candidate, program_call)))
        and all(k.arg == "reverse" and isinstance(k.value, ast.Constant) for k in node.keywords)
    )  # fmt: skip
