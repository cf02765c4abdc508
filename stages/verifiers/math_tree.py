"""Walking parsed answers without recursion: the driver that runs the parser's generator rules on an
explicit stack, and the bound on a tree's depth that keeps the recursive walks after it (the
comparisons, sympy) far from the interpreter's recursion limit."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

Node = tuple[Any, ...]


class MathParseError(ValueError):
    """The text is not in the safe answer grammar."""


# A parsed tree deeper than this is refused (`check_depth`): parsing itself is iterative and takes any
# depth, but the comparisons and sympy walk trees recursively. Redundant brackets add no level.
MAX_DEPTH = 48

Step = Generator[Any, Node, Node]


def drive(start: Step) -> Node:
    """Run a parse iteratively: each rule is a generator that yields the sub-rule it needs and is
    sent that rule's node back, so nesting lives on this list, never on the interpreter's stack.
    Linear in the tokens whatever the depth; a MathParseError from any rule ends the parse."""
    stack: list[Step] = [start]
    value: Any = None
    while True:
        try:
            child = stack[-1].send(value)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value
            value = done.value
            continue
        stack.append(child)
        value = None


def _children(node: Node) -> list[Node]:
    out: list[Node] = []
    for part in node[1:]:
        if isinstance(part, tuple):
            out.append(part)
        elif isinstance(part, list):
            out.extend(x for x in part if isinstance(x, tuple))
    return out


def check_depth(node: Node) -> None:
    """Refuse a tree nested deeper than MAX_DEPTH (found iteratively): the comparisons and sympy
    walk trees recursively, and this bound keeps every walk far from the recursion limit."""
    stack = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise MathParseError(f"nested deeper than {MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in _children(current))


def has_text(node: Node) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current[0] == "text":
            return True
        stack.extend(_children(current))
    return False


def applied_function(name: str, arg: Node) -> Node:
    # exp(x) is written e^x as often: one tree for both, so "\\exp(2)" answers "e^2"
    return ("pow", ("sym", "e"), arg) if name == "exp" else ("func", name, arg)


def membership(node: Node) -> Node:
    """What follows `x \\in`: a parenthesised pair is the open interval, never the point (round
    27: x \\in (1, 2) was the pair (1, 2), answered by x = 1, y = 2 or the ratio 1:2); a union's
    parts likewise. A bracket of more items after \\in is no set of x."""
    if node[0] == "tuple":
        if len(node[1]) != 2:
            raise MathParseError("x \\in a bracket of other than two items is no interval")
        return ("interval", node[1][0], node[1][1], False, False)
    if node[0] == "union":
        return ("union", [membership(part) for part in node[1]])
    return node


def as_vector(node: Node, other: Node) -> Node:
    """A one-column or one-row matrix compared with a tuple is the vector of its entries:
    "(1, 2)" answers "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}" (round 21's m21-029). A matrix
    of more rows and columns, or against anything but a tuple, stays a matrix."""
    if node[0] != "matrix" or other[0] != "tuple":
        return node
    rows = node[1]
    if len(rows) >= 2 and all(len(row[1]) == 1 for row in rows):
        return ("tuple", [row[1][0] for row in rows])
    if len(rows) == 1 and len(rows[0][1]) >= 2:
        return ("tuple", list(rows[0][1]))
    return node
