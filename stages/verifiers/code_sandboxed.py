"""Expressions over the program's values that go into the sandbox whole, or that tell the sandbox
how much of a value to draw: there only does Python read them as it would.

- a call of what a program call returned (`make_adder(2)(3)`): its inputs only;
- `isinstance(make_point(1, 2), Point)` against the program's own class (a stand-in out here);
- arithmetic over program calls alone (`vec(1, 2) + vec(3, 4)`, `-vec(1, 2)`): the program's
  classes' own operators;
- a constant key or index of a program call's value (`tally('aab')['z']`, `make(400000)[-1]`):
  a dict subclass's `__missing__` answers it there, as in Python, and only the item comes back
  (never a whole list past the report's size);
- `islice(gen(), 5)`: the program's generator is drawn five times, not ten thousand (an infinite
  generator of growing values would not end; one counting its draws would count too many); so is
  `zip(range(5), gen())`, where every other argument's length is a constant.
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
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return operator_of_calls(node, program_call)
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
        if isinstance(key, ast.UnaryOp) and isinstance(key.op, ast.USub):
            key = key.operand  # make(n)[-1]
        constant = isinstance(key, ast.Constant) and type(key.value) in (str, bytes, int)
        return constant and program_call(node.value)
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


def _known_length(node: ast.expr, is_candidate: Callable[[str], bool]) -> int | None:
    """How many items a zip argument written as a constant yields: a list or tuple display, a
    text, `range` of constant ints; None otherwise."""
    if isinstance(node, (ast.List, ast.Tuple)) and not any(
        isinstance(e, ast.Starred) for e in node.elts
    ):
        return len(node.elts)
    if isinstance(node, ast.Constant) and type(node.value) in (str, bytes):
        return len(node.value)
    plain_range = (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        and node.func.id == "range" and not is_candidate("range") and not node.keywords
        and 1 <= len(node.args) <= 3
        and all(isinstance(a, ast.Constant) and type(a.value) is int for a in node.args)
    )  # fmt: skip
    if plain_range:
        try:
            return len(range(*(a.value for a in node.args)))  # type: ignore[attr-defined,union-attr]
        except (ValueError, OverflowError):
            return None
    return None


def zip_draws(node: ast.Call, program_call: Predicate,
              is_candidate: Callable[[str], bool]) -> dict[int, int]:  # fmt: skip
    """`zip(range(2), gen())`: argument position -> how many items the builtin zip draws from the
    one program call among its arguments, where every other argument's length is a constant: as
    many as the shortest (one more where the shortest comes after it, since zip draws in order)."""
    func = node.func
    if not (isinstance(func, ast.Name) and func.id == "zip" and not is_candidate("zip")):
        return {}
    calls = [k for k, a in enumerate(node.args) if program_call(a)]
    if node.keywords or len(calls) != 1 or len(node.args) < 2:
        return {}
    at = calls[0]
    lengths = [_known_length(a, is_candidate) for k, a in enumerate(node.args) if k != at]
    if any(n is None for n in lengths):
        return {}
    shortest = min(lengths)  # type: ignore[type-var]
    before = any(n == shortest for n in lengths[:at])
    return {at: shortest if before else shortest + 1}  # type: ignore[operator]


def iterator_draws(node: ast.Call, args: list[ast.expr], bound: dict[str, Any],
                   program_call: Predicate, is_candidate: Callable[[str], bool]) -> dict[int, int]:  # fmt: skip
    """Call index -> how many items `node` (islice or zip) draws from the program call there,
    where that is known (`args`: its arguments split, a call's value a placeholder `_v<i>`)."""
    draws = islice_draws(node, bound)
    drawn = zip_draws(node, program_call, is_candidate) | ({} if draws is None else {0: draws})
    return {int(args[k].id[2:]): n for k, n in drawn.items()
            if isinstance(args[k], ast.Name) and args[k].id.startswith("_v")}  # type: ignore[attr-defined]  # fmt: skip


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


def operator_of_calls(node: ast.expr, program_call: Callable[[ast.AST], bool]) -> bool:
    """`vec(1, 2) + vec(3, 4)`, `-vec(1, 2)`: arithmetic over program calls alone runs in the
    sandbox, by the program's own classes (their `__add__`, round 17); no expected value goes in."""
    if isinstance(node, ast.UnaryOp):
        return not isinstance(node.op, ast.Not) and operator_of_calls(node.operand, program_call)
    if isinstance(node, ast.BinOp):
        return operator_of_calls(node.left, program_call) and operator_of_calls(
            node.right, program_call
        )
    return program_call(node)
