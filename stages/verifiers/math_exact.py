"""Exact values of the sides of an equation a response writes before or after its answer, for the
false-equation checks ("$\\sqrt{36} = \\boxed{7}$", "$4! = \\boxed{20}$" state two values, round
15). Wider than `eval_rational`, which decides answers: a root of a perfect power, an absolute
value, and (rewritten in the text before it is read, since the answer grammar has no such forms)
floor, ceiling, binomial and factorial of small exact arguments. Anything else stays None: an
uncomputable side proves nothing, so it never makes an equation false here."""

from __future__ import annotations

import math
import re
from fractions import Fraction

from stages.verifiers.math_parse import Node
from stages.verifiers.math_read import ReadError, read
from stages.verifiers.math_values import eval_rational

MAX_FACTORIAL = 100  # 100! has 158 digits: enough for any stated equation, cheap to compute
MAX_BINOM = 1000
MAX_ROOT_BITS = 512
MAX_REWRITES = 16  # nested forms ("\\lfloor \\sqrt{10} \\rfloor!") are rewritten innermost first
MAX_TEXT = 600  # one side of a stated equation; a longer text is left as written (bounded work)

# Innermost forms only: their argument holds no other form of the same kind. Each pattern opens
# with a literal, and its argument is a bounded run, so a long filler input costs linear time.
_FLOOR = re.compile(
    r"(?:\\left\s*)?\\l(?P<kind>floor|ceil)(?P<x>(?:(?!\\[lr](?:floor|ceil)).){1,200}?)"
    r"(?:\\right\s*)?\\r(?P=kind)"
)
_BINOM = re.compile(r"\\[dt]?binom\s*\{(?P<n>[^{}]{1,60})\}\s*\{(?P<k>[^{}]{1,60})\}")
_CHOOSE = re.compile(r"\{(?P<n>[^{}]{1,60})\\choose(?P<k>[^{}]{1,60})\}")
# "4!", "(2+3)!", "{5}!"; never "5!!" (a double factorial) or "!=" (not equal)
_FACTORIAL = re.compile(
    r"(?:(?<![\w.\\])(?P<d>\d{1,4})|\((?P<p>[^()]{1,200})\)|\{(?P<b>[^{}]{1,200})\})[ ]{0,3}!(?![!=])"
)

# a "!" after an answer across blanks and spacing commands: "$\\boxed{5}\\,!$" renders "5 !", 5!
_SPACED_BANG = re.compile(
    r"[ \t]*(?:(?:\\[,;:! >]|~|\\q?quad(?![a-zA-Z])|\\(?:thin|med|thick|en)space(?![a-zA-Z]))[ \t]*)+!"
)


def factorial_after(body: str, end: int, boxed: bool) -> bool:
    """Whether a "!" follows an answer ending at `end`: right after it, after blanks when it is a
    box ("\\boxed{5} !"), or after a spacing command ("\\boxed{5}\\,!", "5\\;!")."""
    if body.startswith("!", end) or _SPACED_BANG.match(body, end, end + 40):
        return True
    return boxed and body[end : end + 8].lstrip(" \t").startswith("!")


def side_value(text: str) -> Fraction | None:
    """The exact value of `text` as one side of an equation, or None where it has none here."""
    try:
        return exact_value(read(rewrite_forms(text)).node)
    except ReadError:
        return None


def rewrite_forms(text: str) -> str:
    """`text` with each floor, ceiling, binomial and factorial of an exact small argument replaced
    by its value in parentheses ("2\\lfloor 3.7 \\rfloor" is "2(3)", not "23"); forms it cannot
    compute are left as written."""
    if len(text) > MAX_TEXT:
        return text
    for _ in range(MAX_REWRITES):
        new = _FLOOR.sub(_floor, text)
        new = _BINOM.sub(_binom, new)
        new = _CHOOSE.sub(_binom, new)
        new = _FACTORIAL.sub(_factorial, new)
        if new == text:
            return text
        text = new
    return text


def _value(text: str) -> Fraction | None:
    try:
        return exact_value(read(text).node)
    except ReadError:
        return None


def _written(value: int | None, m: re.Match[str]) -> str:
    return m.group() if value is None else f"({value})"


def _floor(m: re.Match[str]) -> str:
    v = _value(m.group("x"))
    if v is None:
        return m.group()
    return _written(math.floor(v) if m.group("kind") == "floor" else math.ceil(v), m)


def _binom(m: re.Match[str]) -> str:
    n, k = _value(m.group("n")), _value(m.group("k"))
    if n is None or k is None or n.denominator != 1 or k.denominator != 1:
        return m.group()
    if not 0 <= n <= MAX_BINOM or k < 0:
        return m.group()
    return _written(math.comb(int(n), int(k)), m)


def _factorial(m: re.Match[str]) -> str:
    v = _value(m.group("d") or m.group("p") or m.group("b"))
    if v is None or v.denominator != 1 or not 0 <= v <= MAX_FACTORIAL:
        return m.group()
    return _written(math.factorial(int(v)), m)


def exact_value(node: Node) -> Fraction | None:
    """`eval_rational` with perfect-power roots ("\\sqrt{36}" is 6) and absolute values folded to
    numbers first, at any depth ("\\sqrt{16} + |{-2}|" is 6)."""
    return eval_rational(_fold(node))


def _fold(node: Node) -> Node:
    tag = node[0]
    if tag in ("root", "func"):
        parts = [_fold(p) if isinstance(p, tuple) else p for p in node[1:]]
        value = _root(parts) if tag == "root" else _abs(parts)
        return node if value is None else ("num", value, str(value))
    if tag in ("add", "mul"):
        return (tag, [_fold(p) for p in node[1]])
    if tag in ("neg", "pct", "div", "pow"):
        return (tag, *(_fold(p) for p in node[1:]))
    return node


def _abs(parts: list) -> Fraction | None:
    if parts[0] != "abs":
        return None
    v = eval_rational(parts[1])
    return None if v is None else abs(v)


def _root(parts: list) -> Fraction | None:
    arg, index = eval_rational(parts[0]), eval_rational(parts[1])
    if arg is None or index is None or index.denominator != 1 or not 2 <= index <= 9:
        return None
    # an odd root of a negative number is the real one (\sqrt[3]{-27} is -3); an even one is none
    sign = -1 if arg < 0 and index % 2 == 1 else 1
    if arg * sign < 0:
        return None
    roots = [_integer_root(part, int(index)) for part in (abs(arg.numerator), arg.denominator)]
    return None if None in roots else sign * Fraction(roots[0], roots[1])


def _integer_root(value: int, n: int) -> int | None:
    if value.bit_length() > MAX_ROOT_BITS:  # no stated equation needs it; a float would overflow
        return None
    guess = round(float(value) ** (1 / n))
    return next((r for r in (guess - 1, guess, guess + 1) if r >= 0 and r**n == value), None)
