"""The tokens of a math answer (`math_parse`'s grammar): numbers, LaTeX commands, words and
operators, and the named functions the parser applies."""

from __future__ import annotations

import re
from fractions import Fraction

from stages.verifiers.math_tree import MathParseError, Node

FUNCS = {"sqrt", "sin", "cos", "tan", "sec", "csc", "cot", "log", "ln", "exp", "lg"}
# The rest of LaTeX's standard function set (round 17): inverse and hyperbolic functions.
FUNCS |= {"arcsin", "arccos", "arctan", "arcsec", "arccsc", "arccot"}
FUNCS |= {"sinh", "cosh", "tanh", "coth", "sech", "csch", "arcsinh", "arccosh", "arctanh"}
# f^{-1} of a trigonometric or hyperbolic f is its inverse, never 1/f: \tan^{-1} 2 is arctan 2
INVERSES = {name: "arc" + name for name in ("sin", "cos", "tan", "sec", "csc", "cot")}
INVERSES |= {name: "arc" + name for name in ("sinh", "cosh", "tanh")}
BRACKETS = {"\\lfloor": ("\\rfloor", "floor"), "\\lceil": ("\\rceil", "ceil")}
# LaTeX spacing and sizing commands that carry no meaning for the value.
# Scientific notation is read only unsigned ("1.5e3"): a signed "2e-1" is 2e - 1 in math, Euler's
# e (or a variable E) and a difference, the same in a reference and in a response (red team round 19).
_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE]\d+)?)"
    r"|(?P<cmd>\\[a-zA-Z]+|\\\{|\\\}|\\\\)"
    r"|(?P<word>[a-zA-Z]+(?:_[A-Za-z0-9]+)?)"
    r"|(?P<op>\*\*|<=|>=|!=|[-+*/^(){}\[\],=%<>;:&|_])"
    r")"
)
MAX_SCI_EXPONENT = 400


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise MathParseError(f"unexpected character {text[pos : pos + 10]!r}")
        pos = m.end()
        kind = m.lastgroup
        assert kind is not None
        tokens.append((kind, m.group(kind)))
    return tokens


def number(text: str) -> Node:
    mantissa, _, exponent = text.lower().partition("e")
    value = Fraction(mantissa)
    if exponent:
        exp = int(exponent)
        if abs(exp) > MAX_SCI_EXPONENT:
            raise MathParseError(f"exponent {exp} out of range")
        value *= Fraction(10) ** exp
    return ("num", value, text)


def is_minus_one(node: Node) -> bool:
    if node[0] == "neg":
        node = node[1]
        return node[0] == "num" and node[1] == 1
    return node[0] == "num" and node[1] == -1
