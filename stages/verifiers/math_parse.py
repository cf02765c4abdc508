"""A whitelist parser for math answers. Model output is untrusted and `sympy.sympify` / `parse_expr`
evaluate Python, so answers are tokenised against a fixed grammar (numbers, + - * / ^, LaTeX \\frac
\\sqrt \\pi, single-letter symbols, a few named functions, equations, tuples and sets) into plain
tuples. Anything outside the grammar is a `MathParseError`; nothing here ever calls `eval`.

Nodes: ("num", Fraction, text) ("sym", name) ("const", "pi"|"oo") ("neg", x) ("pct", x)
("add", [x...]) ("mul", [x...]) ("div", a, b) ("pow", a, b) ("func", name, x) ("root", x, n)
("eq", [side...]) ("tuple"|"set"|"list", [x...]).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

Node = tuple[Any, ...]


class MathParseError(ValueError):
    """The text is not in the safe answer grammar."""


FUNCS = {"sqrt", "sin", "cos", "tan", "log", "ln", "exp"}
# LaTeX spacing and sizing commands that carry no meaning for the value.
_DROP = re.compile(
    r"\\(left|right|displaystyle|!|,|;|:|quad|qquad|big|Big|bigl|bigr)(?![a-zA-Z])|\\ "
)
_TEXT = re.compile(r"\\(?:text|textbf|mathrm|mathbf|operatorname|mbox)\s*\{([^{}]*)\}")
_DEGREE = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|°")
_THOUSANDS = re.compile(r"^-?\d{1,3}(,\d{3})+(\.\d+)?$")
_NUMBER_WITH_UNITS = re.compile(r"^(-?[\d.,/]+%?)\s+[A-Za-z][A-Za-z ]*$")
_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<cmd>\\[a-zA-Z]+|\\\{|\\\})"
    r"|(?P<word>[a-zA-Z]+)"
    r"|(?P<op>\*\*|[-+*/^(){}\[\],=%])"
    r")"
)
MAX_SCI_EXPONENT = 400


def normalise(text: str) -> str:
    """Strip presentation (dollar signs, spacing, units, degree marks) from an extracted answer."""
    s = text.strip().strip("$").strip()
    s = (
        s.replace("\\$", "")
        .replace("\\%", "%")
        .replace("\\dfrac", "\\frac")
        .replace("\\tfrac", "\\frac")
    )
    s = _DEGREE.sub("", s)
    s = _DROP.sub(" ", s)
    # \text{cm} after a number is a unit; \text{...} alone may be the answer's only content.
    s = _TEXT.sub(lambda m: " " + m.group(1) + " ", s)
    s = (
        s.replace("\\cdot", "*")
        .replace("\\times", "*")
        .replace("\\div", "/")
        .replace("\\infty", "oo")
    )
    s = s.strip().rstrip(".").strip()
    if _THOUSANDS.match(s):
        s = s.replace(",", "")
    m = _NUMBER_WITH_UNITS.match(s)
    if m:
        s = m.group(1)
    return s.strip()


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


def _number(text: str) -> Node:
    mantissa, _, exponent = text.lower().partition("e")
    value = Fraction(mantissa)
    if exponent:
        exp = int(exponent)
        if abs(exp) > MAX_SCI_EXPONENT:
            raise MathParseError(f"exponent {exp} out of range")
        value *= Fraction(10) ** exp
    return ("num", value, text)


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.toks = tokens
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok is None or (value is not None and tok[1] != value):
            raise MathParseError(
                f"expected {value or 'more input'}, got {tok[1] if tok else 'end'}"
            )
        self.i += 1
        return tok

    def at(self, *values: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[1] in values

    def top(self, closer: str | None = None) -> Node:
        items = [self.item()]
        while self.at(","):
            self.take(",")
            items.append(self.item())
        return items[0] if len(items) == 1 else ("list", items)

    def item(self) -> Node:
        sides = [self.expr()]
        while self.at("="):
            self.take("=")
            sides.append(self.expr())
        return sides[0] if len(sides) == 1 else ("eq", sides)

    def expr(self) -> Node:
        terms = [self.term()]
        while self.at("+", "-"):
            op = self.take()[1]
            t = self.term()
            terms.append(t if op == "+" else ("neg", t))
        return terms[0] if len(terms) == 1 else ("add", terms)

    def term(self) -> Node:
        node = self.unary()
        while True:
            if self.at("*", "/"):
                op = self.take()[1]
                rhs = self.unary()
                node = ("mul", [node, rhs]) if op == "*" else ("div", node, rhs)
            elif self._starts_implicit_factor():
                node = ("mul", [node, self.power()])
            else:
                return node

    def _starts_implicit_factor(self) -> bool:
        # "2x", "3\pi", "2\sqrt{3}", "x(y+1)"; never number-after-something ("84 85" is two answers).
        tok = self.peek()
        if tok is None:
            return False
        kind, value = tok
        return kind in ("word", "cmd") and value not in ("\\}",) or value == "("

    def unary(self) -> Node:
        if self.at("-"):
            self.take()
            return ("neg", self.unary())
        if self.at("+"):
            self.take()
            return self.unary()
        return self.power()

    def power(self) -> Node:
        base = self.postfix()
        if self.at("^", "**"):
            self.take()
            exponent = self.braced() if self.at("{") else self.unary()
            return ("pow", base, exponent)
        return base

    def postfix(self) -> Node:
        node = self.primary()
        if self.at("%"):
            self.take()
            node = ("pct", node)
        return node

    def braced(self) -> Node:
        self.take("{")
        node = self.top()
        self.take("}")
        return node

    def group(self, opener: str, closer: str, kind: str) -> Node:
        self.take(opener)
        node = self.top()
        self.take(closer)
        if node[0] == "list":
            return (kind if kind != "paren" else "tuple", node[1])
        return ("set", [node]) if kind == "set" else node

    def primary(self) -> Node:
        tok = self.peek()
        if tok is None:
            raise MathParseError("unexpected end of answer")
        kind, value = tok
        if kind == "num":
            self.take()
            return _number(value)
        if value == "(":
            return self.group("(", ")", "paren")
        if value == "[":
            return self.group("[", "]", "tuple")
        if value == "{":
            return self.braced()
        if value == "\\{":
            return self.group("\\{", "\\}", "set")
        if kind == "cmd":
            return self.command()
        if kind == "word":
            return self.word()
        raise MathParseError(f"unexpected {value!r}")

    def latex_arg(self) -> Node:
        # \frac12 is legal LaTeX: an unbraced argument is one character.
        if self.at("{"):
            return self.braced()
        kind, value = self.take()
        if kind == "num":
            first = value[0]
            if len(value) > 1:  # split "12" into "1" and "2" for \frac12
                self.toks[self.i - 1 : self.i] = [("num", first), ("num", value[1:])]
                self.i -= 1
                self.take()
            return _number(first)
        if kind == "word":
            if len(value) > 1:
                self.toks[self.i - 1 : self.i] = [("word", value[0]), ("word", value[1:])]
            return ("sym", value[0])
        if kind == "cmd":
            self.i -= 1
            return self.command()
        raise MathParseError(f"bad LaTeX argument {value!r}")

    def command(self) -> Node:
        _, name = self.take()
        if name == "\\frac":
            num = self.latex_arg()
            return ("div", num, self.latex_arg())
        if name == "\\sqrt":
            index: Node = ("num", Fraction(2), "2")
            if self.at("["):
                self.take("[")
                index = self.expr()
                self.take("]")
            return ("root", self.latex_arg(), index)
        if name == "\\pi":
            return ("const", "pi")
        if name[1:] in FUNCS:
            arg = self.group("(", ")", "paren") if self.at("(") else self.latex_arg()
            return ("func", name[1:], arg)
        raise MathParseError(f"unsupported LaTeX command {name}")

    def word(self) -> Node:
        _, value = self.take()
        if value in FUNCS and self.at("("):
            return ("func", value, self.group("(", ")", "paren"))
        if value == "pi":
            return ("const", "pi")
        if value == "oo":
            return ("const", "oo")
        if len(value) == 1:
            return ("sym", value)
        if len(value) <= 3 and value.isalpha() and value.islower() and value not in ("or", "and"):
            return ("mul", [("sym", c) for c in value])  # "xy" is x*y
        raise MathParseError(f"unexpected word {value!r}")


def parse_answer(text: str) -> Node:
    """Parse a normalised answer into a node tree, or raise MathParseError."""
    tokens = tokenize(text)
    if not tokens:
        raise MathParseError("empty answer")
    parser = _Parser(tokens)
    node = parser.top()
    if parser.peek() is not None:
        raise MathParseError(f"unexpected {parser.peek()[1]!r} after the answer")  # type: ignore[index]
    return node


def is_plain_number(node: Node) -> bool:
    """A literal number: 85, -3, 0.5, 1.5e3, 50%, 3/4, \\frac{3}{4}, 1.5 \\times 10^{3}."""
    tag = node[0]
    if tag == "num":
        return True
    if tag == "neg":
        return is_plain_number(node[1])
    if tag == "pct":
        return node[1][0] == "num"
    if tag == "div":
        return node[1][0] == "num" and node[2][0] == "num" and "." not in node[1][2] + node[2][2]
    if tag == "mul" and len(node[1]) == 2:
        a, b = node[1]
        return (
            a[0] == "num"
            and b[0] == "pow"
            and b[1] == ("num", Fraction(10), "10")
            and (b[2][0] == "num" or (b[2][0] == "neg" and b[2][1][0] == "num"))
        )
    return False


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
