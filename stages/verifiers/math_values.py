"""Values of parsed answers: which trees are literal numbers, and the exact rational value of a tree
when it has one (bounded work: no huge powers)."""

from __future__ import annotations

from fractions import Fraction

from stages.verifiers.math_parse import Node


def is_plain_number(node: Node) -> bool:
    """A literal number: 85, -3, 0.5, 1.5e3, 50%, 3/4, \\frac{3}{4}, 1.5 \\times 10^{3}, 10^6."""
    tag = node[0]
    if tag == "num":
        return True
    if tag == "neg":  # "--36" is an operator applied twice, not a literal
        return node[1][0] != "neg" and is_plain_number(node[1])
    if tag == "pct":
        return node[1][0] == "num"
    if tag == "div":
        return node[1][0] == "num" and node[2][0] == "num" and "." not in node[1][2] + node[2][2]
    if tag == "mul" and len(node[1]) == 2:
        a, b = node[1]
        return a[0] == "num" and _power_of_ten(b)
    return _power_of_ten(node)  # "10^6", "10^{-3}": scientific notation without its mantissa


def _power_of_ten(node: Node) -> bool:
    return (
        node[0] == "pow"
        and node[1] == ("num", Fraction(10), "10")
        and (node[2][0] == "num" or (node[2][0] == "neg" and node[2][1][0] == "num"))
        and "." not in (node[2][2] if node[2][0] == "num" else node[2][1][2])
    )


MAX_POW_BITS = 4096


def eval_rational(node: Node) -> Fraction | None:
    """Exact value when the tree is rational and small; None otherwise (symbols, roots, huge powers).
    Bounded work: powers whose result would exceed MAX_POW_BITS are left to the sandboxed worker."""
    tag = node[0]
    if tag == "num":
        return node[1]
    if tag == "neg":
        v = eval_rational(node[1])
        return None if v is None else -v
    if tag == "pct":
        v = eval_rational(node[1])
        return None if v is None else v / 100
    if tag in ("add", "mul"):
        values = [eval_rational(x) for x in node[1]]
        if any(v is None for v in values):
            return None
        total = Fraction(0) if tag == "add" else Fraction(1)
        for v in values:
            total = total + v if tag == "add" else total * v  # type: ignore[operator]
        return total
    if tag == "div":
        a, b = eval_rational(node[1]), eval_rational(node[2])
        return None if a is None or b is None or b == 0 else a / b
    if tag == "pow":
        base, exp = eval_rational(node[1]), eval_rational(node[2])
        if base is None or exp is None or exp.denominator != 1:
            return None
        size = max(base.numerator.bit_length(), base.denominator.bit_length(), 1)
        if abs(exp.numerator) * size > MAX_POW_BITS or (base == 0 and exp < 0):
            return None
        return base ** int(exp)
    return None


def _pure_number(node: Node) -> bool:
    """Only literal numbers and arithmetic on them (no symbols, constants or functions)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n[0] == "num":
            continue
        if n[0] not in ("neg", "pct", "add", "mul", "div", "pow"):
            return False
        for part in n[1:]:
            if isinstance(part, tuple):
                stack.append(part)
            elif isinstance(part, list):
                stack.extend(part)
    return True


MAX_SUM_POWER = 24


def too_large(node: Node) -> bool:
    """A literal power too large to compute (9^{9^{9}} has 370 million digits) or a sum raised past
    MAX_SUM_POWER: deciding it would hang sympy, and no reference the grammar reads is equal to it
    unless written the same way (which is decided before this is asked)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n[0] == "pow" and n[1][0] == "add" and _pure_number(n[2]):
            exp = eval_rational(n[2])  # (x+1)^{1000}: an expansion sympy would not finish
            if exp is None or abs(exp) > MAX_SUM_POWER:
                return True
        if n[0] == "pow" and _pure_number(n[1]) and _pure_number(n[2]):
            base, exp = eval_rational(n[1]), eval_rational(n[2])
            if exp is None:
                return True
            if base is not None and abs(base) not in (0, 1) and exp.denominator == 1:
                bits = max(base.numerator.bit_length(), base.denominator.bit_length())
                if abs(exp.numerator) * bits > MAX_POW_BITS:
                    return True
        for part in n[1:]:
            if isinstance(part, tuple):
                stack.append(part)
            elif isinstance(part, list):
                stack.extend(p for p in part if isinstance(p, tuple))
    return False
