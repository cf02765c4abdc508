"""A chain of equalities after a label ("x = 2 + 3 = 5") answers with its last side only when every
side after the label is the same value: "x = 7 = 5" states a falsehood on the way to 5, and two
spaced equations ("x=4 \\quad x=5", read as the chain x = 4x = 5) are two answers, never the last.
Red team round 7 found both paid; this module decides them, exactly where it can and with sympy
(in the killable worker) where it cannot.

A chain opened by working ("x = 5+5+1 = 7 = 11", "z = 3+3 = 2": arithmetic before the values) is
read by its last side, as Math-Verify's suite labels such chains; the last side is then the answer
and a wrong one still fails."""

from __future__ import annotations

from stages.verifiers.math_parse import Node
from stages.verifiers.math_values import eval_rational

FALSE_STEP = "a chain of equalities with a false step"
Outcome = tuple[bool, str]


def _is_literal(node: Node) -> bool:
    if node[0] == "num":
        return True
    if node[0] in ("neg", "pct"):
        return _is_literal(node[1])
    if node[0] == "div":
        return node[1][0] == node[2][0] == "num"
    return node[0] == "tuple" and all(_is_literal(x) for x in node[1])


def shows_working(side: Node) -> bool:
    """Arithmetic on numbers ("5+5+1"), not a value written out or an expression in variables."""
    return not _is_literal(side) and eval_rational(side) is not None


def _same_value(a: Node, b: Node) -> bool | None:
    """True or False where exact arithmetic decides (numbers, tuples of numbers), else None."""
    if a[0] == b[0] == "tuple":
        if len(a[1]) != len(b[1]):
            return False
        pairs = [_same_value(x, y) for x, y in zip(a[1], b[1], strict=True)]
        if any(p is False for p in pairs):
            return False
        return None if None in pairs else True
    if (a[0] == "tuple") != (b[0] == "tuple"):
        return False
    va, vb = eval_rational(a), eval_rational(b)
    if va is None or vb is None:
        return None
    return va == vb


def chain_holds(sides: list[Node]) -> bool | None:
    """Whether every side of a chain is one value: False as soon as two differ exactly, None when
    some pair needs a symbolic check."""
    undecided = False
    for side in sides[1:]:
        same = _same_value(sides[0], side)
        if same is False:
            return False
        undecided = undecided or same is None
    return None if undecided else True


def symbolic_chain_holds(sides: list[Node], to_sympy) -> bool:  # noqa: ANN001 - math_symbolic's
    """Every side equal to the first, symbolically (call only inside the worker)."""
    import sympy

    first = to_sympy(sides[0])
    for side in sides[1:]:
        if _same_value(sides[0], side) is False:
            return False
        if sides[0][0] == "tuple":
            pairs = zip(sides[0][1], side[1], strict=True)
            if any(sympy.simplify(to_sympy(x) - to_sympy(y)) != 0 for x, y in pairs):
                return False
        elif sympy.simplify(first - to_sympy(side)) != 0:
            return False
    return True


def final_side(node: Node) -> Node:
    """`x = 3` and `37+48 = 85` answer with their last side; the reference may be an equation too."""
    return node[1][-1] if node[0] == "eq" else node


def only_symbols(node: Node) -> bool:
    if node[0] == "sym":
        return True
    if node[0] in ("mul", "tuple"):
        return all(only_symbols(x) for x in node[1])
    if node[0] == "div":
        return only_symbols(node[1]) and only_symbols(node[2])
    if node[0] == "func":
        return only_symbols(node[2])
    return False


def symbols_of(node: Node) -> set[str]:
    if node[0] == "sym":
        return {node[1]}
    found: set[str] = set()
    for part in node[1:]:
        for child in part if isinstance(part, list) else [part]:
            if isinstance(child, tuple) and child and isinstance(child[0], str):
                found |= symbols_of(child)
    return found


def is_assignment(node: Node) -> bool:
    """x = 5, (p, q) = (3, 2), f(x) = 1, V_1 : V_2 = 11 : 21: the left side names what is solved.
    A variable that appears again on the right ("x = x^2", "x = 2x + 1") is an equation to solve,
    not its solution."""
    if node[0] != "eq":
        return False
    label = node[1][0]
    if label[0] == "sym":
        return not any(label[1] in symbols_of(side) for side in node[1][1:])
    return only_symbols(label) or label[0] == "ratio"


def chain_outcome(answer: Node) -> Outcome | None:
    """An answer's own left side, and a false step in its chain ("x = 7 = 5"), fail; None when the
    chain holds or only sympy can tell (the symbolic check repeats it). A reference may name its
    answer by a function's value ("|AB| = 1"); an answer that does ("\\ln x = 5", "|x| = 5")
    claims something about x, never names the value asked for ("f(x)" reads as f times x)."""
    if answer[0] == "eq" and answer[1][0][0] == "func":
        return False, "the answer's left side is a function's value, not a name for the answer"
    if is_chain(answer) and chain_holds(answer[1][1:]) is False:
        return False, FALSE_STEP
    return None


def is_chain(node: Node) -> bool:
    """An assignment with more than one side after its label, not opened by working."""
    return (
        node[0] == "eq"
        and len(node[1]) > 2
        and is_assignment(node)
        and not shows_working(node[1][1])
    )


def curve_equations(answer: Node, ref: Node) -> bool:
    """`2x - y + 3 = 0` against `y = 2x + 3`: the reference names y by a formula in other letters (a
    line or curve, not a value), and the answer is one equation in y that is no assignment. Then
    both are compared as equations (the same solution set: one side's difference a nonzero
    constant times the other's), never by the reference's right side alone."""
    if not is_assignment(ref) or len(ref[1]) != 2 or ref[1][0][0] != "sym":
        return False
    if answer[0] != "eq" or len(answer[1]) != 2 or is_assignment(answer):
        return False
    label = ref[1][0][1]
    others = symbols_of(ref[1][1]) - {label}
    in_answer = set().union(*(symbols_of(side) for side in answer[1]))
    return bool(others) and label in in_answer
