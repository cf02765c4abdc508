"""Intervals, and the relations that are intervals of one variable, as (closed?, lo, hi, closed?)
tuples `math_compare` compares as sets: "2 <= x < 5" is [2, 5); |x| < 3 is (-3, 3) and 1 <= |x| <= 2
is [-2, -1] and [1, 2]. Only a bare symbol (or f(x), a function's value, as a range) is a variable:
another function or a product of one ("\\ln x < 1", "xy < 4", "|\\ln x| <= 2") is no interval of
what stands on its side, and is refused (round 24)."""

from __future__ import annotations

from fractions import Fraction

from stages.verifiers.math_tree import Node
from stages.verifiers.math_values import eval_rational

FLIP = {">": "<", ">=": "<=", "<": "<", "<=": "<=", "!=": "!="}


# "0 < f(x) < 1" is the range of f (Math-Verify pays (0, 1)); the parser reads f(x) as f times x,
# so a product of two letters is a function's value only where the first is a function's name
_FUNCTION_NAMES = frozenset("fgh")


def _is_variable(node: Node) -> bool:
    """A bare symbol, or f(x), g(t), h(x) of one: never a function or product of the variable."""
    if node[0] == "sym":
        return True
    factors = node[1] if node[0] == "mul" else []
    return (
        len(factors) == 2
        and all(f[0] == "sym" and len(f[1]) == 1 for f in factors)
        and factors[0][1] in _FUNCTION_NAMES
    )


def _flag(closed: bool) -> Node:
    return ("num", Fraction(int(closed)), str(int(closed)))


def _as_interval(node: Node) -> Node | None:
    """An interval as (lo, hi, closed flags); a relation on one symbol is the same set."""
    tag = node[0]
    if tag == "interval":
        return ("tuple", [_flag(node[3]), node[1], node[2], _flag(node[4])])
    if tag == "tuple" and len(node[1]) == 2:
        return ("tuple", [_flag(False), node[1][0], node[1][1], _flag(False)])
    if tag == "rel":
        sides, ops = node[1], node[2]
        if any(op not in FLIP for op in ops) or "!=" in ops:
            return None
        if ops[0] in (">", ">="):
            sides, ops = sides[::-1], [FLIP[op] for op in reversed(ops)]
        if any(op.startswith(">") for op in ops):
            return None
        # only a bare symbol (or f(x)) is the variable: "|x| < 3", "\\ln x < 1", "xy < 4" are no
        # interval of what stands on their side (`_abs_intervals` reads |x| exactly)
        oo = ("const", "oo")
        if len(sides) == 3 and _is_variable(sides[1]):
            return ("tuple", [_flag(ops[0] == "<="), sides[0], sides[2], _flag(ops[1] == "<=")])
        if len(sides) == 2 and _is_variable(sides[0]):  # x <= 3
            return ("tuple", [_flag(False), ("neg", oo), sides[1], _flag(ops[0] == "<=")])
        if len(sides) == 2 and _is_variable(sides[1]):  # 3 <= x
            return ("tuple", [_flag(ops[0] == "<="), sides[0], oo, _flag(False)])
    return None


def _is_abs_of_symbol(node: Node) -> bool:
    return node[0] == "func" and node[1] == "abs" and node[2][0] == "sym"


def _abs_intervals(node: Node) -> list[Node] | None:
    """|x| < b is (-b, b), |x| > b is (-oo, -b) and (b, oo), a <= |x| <= b (0 < a <= b) is [-b, -a]
    and [a, b], for a bare symbol x and positive rational bounds; None for any other relation
    (what is not read exactly is not rewritten: |\\ln x| < 1 is no interval of ln x)."""
    if node[0] != "rel" or any(op not in FLIP or op == "!=" for op in node[2]):
        return None
    sides, ops = node[1], node[2]
    if ops[0] in (">", ">="):
        sides, ops = sides[::-1], [FLIP[op] for op in reversed(ops)]
    if any(op.startswith(">") for op in ops):
        return None
    if len(sides) == 2:
        return _one_sided_abs(sides, ops[0])
    if len(sides) != 3 or not _is_abs_of_symbol(sides[1]):
        return None
    low, _, high = sides
    lo, hi = eval_rational(low), eval_rational(high)
    if lo is None or hi is None or not 0 < lo <= hi:
        return None
    left, right = _flag(ops[0] == "<="), _flag(ops[1] == "<=")
    return [
        ("tuple", [right, ("neg", high), ("neg", low), left]),
        ("tuple", [left, low, high, right]),
    ]


def _one_sided_abs(sides: list[Node], op: str) -> list[Node] | None:
    """|x| < b (or b > |x|) and b < |x| (or |x| > b), b a positive rational."""
    abs_left = _is_abs_of_symbol(sides[0])
    if not abs_left and not _is_abs_of_symbol(sides[1]):
        return None
    bound = sides[1] if abs_left else sides[0]
    value = eval_rational(bound)
    if value is None or value <= 0:
        return None
    closed, oo = _flag(op == "<="), ("const", "oo")
    if abs_left:  # |x| < b
        return [("tuple", [closed, ("neg", bound), bound, closed])]
    return [  # b < |x|
        ("tuple", [_flag(False), ("neg", oo), ("neg", bound), closed]),
        ("tuple", [closed, bound, oo, _flag(False)]),
    ]


def as_set_of_intervals(node: Node) -> Node | None:
    halves = _abs_intervals(node)
    if halves is not None:
        return ("set", halves)
    parts = node[1] if node[0] == "union" else [node]
    out = []
    for part in parts:
        interval = _as_interval(part)
        if interval is None and part[0] in ("rel", "interval", "union"):
            return None
        out.append(interval if interval is not None else part)
    return ("set", out)
