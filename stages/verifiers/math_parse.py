"""A whitelist parser for math answers. Model output is untrusted and `sympy.sympify` / `parse_expr`
evaluate Python, so answers are tokenised against a fixed grammar (numbers, + - * / ^, LaTeX \\frac
\\sqrt \\pi, single-letter symbols, a few named functions, equations, tuples and sets) into plain
tuples. Anything outside the grammar is a `MathParseError`; nothing here ever calls `eval`.

Nodes: ("num", Fraction, text) ("sym", name) ("const", "pi"|"oo") ("neg", x) ("pct", x)
("add", [x...]) ("mul", [x...]) ("div", a, b) ("pow", a, b) ("func", name, x) ("root", x, n)
("eq", [side...]) ("rel", [side...], [op...]) ("tuple"|"set"|"list"|"braces", [x...])
("interval", lo, hi, left_closed, right_closed) ("union", [x...]) ("ratio", [x...])
("matrix", [row...]) ("text", words) ("indexed", name, index) ("bigop", "sum"|"prod", letter, low,
high, body).
"""

from __future__ import annotations

from fractions import Fraction

from stages.verifiers.math_environments import EnvironmentRules
from stages.verifiers.math_functions import GREEK, FunctionRules, is_derivative
from stages.verifiers.math_sets import SetRules
from stages.verifiers.math_subscripts import SubscriptRules
from stages.verifiers.math_tokens import BRACKETS, FUNCS, number, tokenize
from stages.verifiers.math_tree import (  # noqa: F401 - Node, MathParseError: public here too
    MAX_DEPTH,
    MathParseError,
    Node,
    Step,
    applied_function,
    check_depth,
    drive,
    has_text,
    membership,
)

# "braces" is {1, 3} without backslashes: ordered against a tuple, unordered against a set or list
COLLECTIONS = ("tuple", "set", "list", "braces")
UNORDERED = ("set", "list")


# English words of two letters are words, not products of two symbols ("so", "is" in an answer are
# extra words); other pairs of letters are ("xy" is x*y).
_TWO_LETTER_WORDS = frozenset(
    ("am", "an", "as", "at", "be", "by", "do", "go", "he", "if", "in", "is", "it", "me", "my", "no",
     "of", "on", "or", "so", "to", "up", "us", "we", "ok", "oh", "ah", "eh", "hm", "ie", "eg", "vs")
)  # fmt: skip


class _Parser(SubscriptRules, FunctionRules, SetRules, EnvironmentRules):
    """Recursive descent written as generators (`math_tree.drive`): `node = yield self.rule()` is a call."""

    def __init__(self, tokens: list[tuple[str, str]], letter_products: bool = False) -> None:
        self.toks = tokens
        self.i = 0
        self.letter_products = letter_products  # "at", "by" among other math: a*t, b*y
        self.bars = 0  # open |...| around the token: a bar there closes one, never opens a factor

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
        i = self.i  # the hottest call of the parser: no peek()
        return i < len(self.toks) and self.toks[i][1] in values

    def top(self) -> Step:
        """Items separated by commas; semicolons separate groups of them ("p=5,q=2;p=7,q=2" is
        two solutions, each a labelled pair)."""
        groups = [(yield self.items())]
        while self.at(";"):
            self.take()
            if self.peek() is None or self.at(")", "]", "}", "\\}"):
                break  # a trailing separator
            groups.append((yield self.items()))
        if len(groups) == 1:
            return groups[0]
        return ("list", [("tuple", g[1]) if g[0] == "list" else g for g in groups])

    def items(self) -> Step:
        items = [(yield self.item())]
        while self.at(","):
            self.take()
            if self.peek() is None or self.at(")", "]", "}", "\\}", ";"):
                break  # a trailing separator
            items.append((yield self.item()))
        return items[0] if len(items) == 1 else ("list", items)

    def item(self) -> Step:
        sides, ops = [(yield self.union())], []
        while self.at("=", "<", ">", "<=", ">=", "!=", "\\in"):
            op = self.take()[1]
            if op == "\\in":  # "x \in [0, 1)": the answer is the set
                if ops or sides[0][0] != "sym":  # "x^2 \in [0, 1)" is no set of x
                    raise MathParseError("the left side of \\in is not one variable")
                return membership((yield self.union()))
            ops.append(op)
            sides.append((yield self.union()))
        if not ops:
            return sides[0]
        if all(op == "=" for op in ops):
            return ("eq", sides)
        return ("rel", sides, ops)

    def union(self) -> Step:
        parts = [(yield self.ratio())]
        while self.at("\\cup"):
            self.take()
            parts.append((yield self.ratio()))
        return parts[0] if len(parts) == 1 else ("union", parts)

    def ratio(self) -> Step:
        parts = [(yield self.expr())]
        while self.at(":"):  # "7:32", "12:00": compared term by term
            self.take()
            parts.append((yield self.expr()))
        return parts[0] if len(parts) == 1 else ("ratio", parts)

    def expr(self) -> Step:
        # \pm signs the next term only, as a minus does: "\pm\sqrt5 - 1" is -1 + sqrt5 and
        # -1 - sqrt5, "1 \pm \sqrt{19}" two values; a second \pm (four values or two?) is unsaid
        terms: list[Node] = []
        plus_minus = None
        while not terms or self.at("+", "-", "\\pm"):
            op = self.take()[1] if terms or self.at("\\pm") else "+"
            if op == "\\pm":
                if plus_minus is not None:
                    raise MathParseError("two \\pm signs in one expression")
                plus_minus = len(terms)
            t = yield self.term()
            terms.append(("neg", t) if op == "-" else t)
        if plus_minus is None:
            return terms[0] if len(terms) == 1 else ("add", terms)
        minus = [*terms[:plus_minus], ("neg", terms[plus_minus]), *terms[plus_minus + 1 :]]
        if len(terms) == 1:
            return ("set", [terms[0], minus[0]])
        return ("set", [("add", terms), ("add", minus)])

    def term(self) -> Step:
        # Products are kept flat ("2x\\pi" is one mul of three factors); each division nests the
        # product before it (a chain of them is as deep as it is long: `check_depth`).
        factors = [(yield self.unary())]
        while True:
            if self.at("*"):
                self.take()
                factors.append((yield self.unary()))
            elif self.at("/"):
                self.take()
                node = factors[0] if len(factors) == 1 else ("mul", factors)
                right = yield self.unary()
                # "3/4%" is (3/4)%, as \frac34\% is: never 3/(4%) (x/4% is no 25x)
                pct = right[0] == "pct"
                factors = [("pct", ("div", node, right[1])) if pct else ("div", node, right)]
                if is_derivative(factors[0]):  # d/dx x^2 is 2x, never x
                    raise MathParseError("a derivative d/dx is not evaluated")
            elif self._starts_implicit_factor():
                factors.append((yield self.power()))
            else:
                return factors[0] if len(factors) == 1 else ("mul", factors)

    def _starts_implicit_factor(self) -> bool:
        # "2x", "3\pi", "2\sqrt{3}", "x(y+1)"; never number-after-something ("84 85" is two answers).
        tok = self.peek()
        if tok is None:
            return False
        kind, value = tok
        if value in ("\\}", "\\\\", "\\end", "\\cup", "\\in", "\\pm", "\\rfloor", "\\rceil"):
            return False
        # "2|x|", "\frac12|x|": a bar outside any |...| opens an absolute value, a factor
        return kind in ("word", "cmd") or value == "(" or (value == "|" and self.bars == 0)

    def unary(self) -> Step:
        negations = 0  # "- - -5": a run of signs is read in a loop
        while self.at("-", "+"):
            negations += self.take()[1] == "-"
        node = yield self.power()
        for _ in range(negations):
            node = ("neg", node)
        return node

    def power(self) -> Step:
        start = self.i
        base = yield self.postfix()
        if self.at("^", "**"):
            # "xy^2" is x*y^2, as written: a power after a word read as a product of letters binds
            # to its last letter, never to the whole product (that is "(xy)^2")
            one_word = self.i == start + 1 and self.toks[start][0] == "word" and base[0] == "mul"
            self.take()
            exponent = (yield self.braced()) if self.at("{") else (yield self.unary())
            if one_word:
                return ("mul", [*base[1][:-1], ("pow", base[1][-1], exponent)])
            return ("pow", base, exponent)
        return base

    def postfix(self) -> Step:
        node = yield self.primary()
        if self.at("%"):
            self.take()
            node = ("pct", node)
        return node

    def braced(self) -> Step:
        self.take("{")
        node = yield self.top()
        self.take("}")
        return ("braces", node[1]) if node[0] == "list" else node

    def group(self, opener: str, closer: str, kind: str) -> Step:
        self.take(opener)
        node = yield self.top()
        pair = kind in ("paren", "tuple") and node[0] == "list" and len(node[1]) == 2
        if pair and self.at(")", "]"):
            # (a, b], [a, b), [a, b]: intervals; (a, b) stays a pair and compares as open
            close = self.take()[1]
            if opener == "(" and close == ")":
                return ("tuple", node[1])
            return ("interval", node[1][0], node[1][1], opener == "[", close == "]")
        self.take(closer)
        if node[0] == "list":
            return (kind if kind != "paren" else "tuple", node[1])
        return ("set", [node]) if kind == "set" else node

    def fraction(self) -> Step:
        num = yield self.latex_arg()
        den = yield self.latex_arg()
        node = ("div", num, den)
        if is_derivative(node):
            raise MathParseError("a derivative d/dx written as a fraction is not evaluated")
        if num[0] == "set" and len(num[1]) == 2:  # \frac{-1 \pm \sqrt5}{2}: two values
            return ("set", [("div", x, den) for x in num[1]])
        return node

    def primary(self) -> Step:
        tok = self.peek()
        if tok is None:
            raise MathParseError("unexpected end of answer")
        kind, value = tok
        if kind == "num":
            self.take()
            return number(value)
        if value == "(":
            return (yield self.group("(", ")", "paren"))
        if value == "[":
            return (yield self.group("[", "]", "tuple"))
        if value == "{":
            return (yield self.braced())
        if value == "\\{":
            if self.starts_set_builder():  # \{x : x > 2\}: an interval
                return (yield self.set_builder())
            if self.i + 1 < len(self.toks) and self.toks[self.i + 1][1] == "\\}":
                self.i += 2  # \{\}: the empty set, as \emptyset and \varnothing read
                return ("set", [])
            return (yield self.group("\\{", "\\}", "set"))
        if value == "|":  # |z|
            self.take()
            self.bars += 1
            inner = yield self.expr()
            self.bars -= 1
            self.take("|")
            return ("func", "abs", inner)
        if kind == "cmd":
            return (yield self.command())
        if kind == "word":
            return (yield self.word())
        raise MathParseError(f"unexpected {value!r}")

    def latex_arg(self) -> Step:
        # \frac12 is legal LaTeX: an unbraced argument is one character.
        if self.at("{"):
            return (yield self.braced())
        kind, value = self.take()
        if kind in ("num", "word") and len(value) > 1:
            # "\frac12": the argument is the first character; the rest stays the next token
            # (rewritten in place, so a long chain of them is still parsed in linear time).
            self.i -= 1
            self.toks[self.i] = (kind, value[1:])
        if kind == "num":
            if not value[0].isdigit():
                raise MathParseError(f"bad LaTeX argument {value!r}")
            return number(value[0])
        if kind == "word":
            return ("sym", value[0])
        if kind == "cmd":
            self.i -= 1
            return (yield self.command())
        raise MathParseError(f"bad LaTeX argument {value!r}")

    def command(self) -> Step:
        _, name = self.take()
        if name == "\\frac":
            return (yield self.fraction())
        if name == "\\sqrt":
            index: Node = ("num", Fraction(2), "2")
            if self.at("["):
                self.take("[")
                index = yield self.expr()
                self.take("]")
            # "\\sqrt(x+1)", as "√(x+1)" reads after unicode normalisation
            if self.at("("):
                arg = yield self.group("(", ")", "paren")
            else:
                arg = yield self.latex_arg()
            return ("root", arg, index)
        if name == "\\pi":
            return ("const", "pi")
        if name[1:] in GREEK:
            if self.at("("):  # \phi(n), \sigma(6): a function (totient, divisor sum) or a product
                raise MathParseError(f"{name} before a bracket: a function or a product is unsaid")
            return ("sym", name[1:])
        if name == "\\begin":
            return (yield self.matrix())
        if name == "\\text":  # a text answer kept whole by normalise: \text{Even}
            self.take("{")
            words = []
            while not self.at("}"):
                words.append(self.take()[1])
            self.take("}")
            return ("text", " ".join(words).lower())
        if name in ("\\sum", "\\prod"):
            return (yield self.big_operator(name[1:]))
        if name[1:] in FUNCS:
            return (yield self.function(name[1:]))
        if name in BRACKETS:  # \lfloor x \rfloor, \lceil x \rceil
            closer, function = BRACKETS[name]
            inner = yield self.expr()
            self.take(closer)
            return ("func", function, inner)
        raise MathParseError(f"unsupported LaTeX command {name}")

    def word(self) -> Step:
        _, value = self.take()
        if value in FUNCS and self.at("("):
            return applied_function(value, (yield self.group("(", ")", "paren")))
        if value in FUNCS and len(value) > 3:  # \operatorname{arcsinh} 1 reads as "arcsinh 1"
            return (yield self.function(value))
        if value == "pi":
            return ("const", "pi")
        if value == "oo":
            return ("const", "oo")
        if len(value) == 1 and self.at("_"):
            return (yield self.subscript(value))
        if len(value) == 1 or "_" in value:
            return ("sym", value)
        if value in ("or", "and"):
            raise MathParseError(f"unexpected word {value!r}")
        if len(value) == 2 and (self.letter_products or value not in _TWO_LETTER_WORDS):
            return ("mul", [("sym", c) for c in value])  # "xy" is x*y
        return ("text", _case(value))


def parse_answer(text: str) -> Node:
    """Parse a normalised answer into a node tree, or raise MathParseError."""
    tokens = tokenize(text)
    if not tokens:
        raise MathParseError("empty answer")
    node = _parsed(tokens, False)
    if not _text_is_whole(node) and has_text(node):
        # "\frac12 at^2", "ax+by": among other math, a two-letter word is a product of letters
        node = _parsed(tokens, True)
        if has_text(node):
            raise MathParseError("words inside a math expression")
    return node


def _parsed(tokens: list[tuple[str, str]], letter_products: bool) -> Node:
    parser = _Parser(tokens, letter_products)
    node = drive(parser.top())
    if parser.peek() is not None:
        raise MathParseError(f"unexpected {parser.peek()[1]!r} after the answer")  # type: ignore[index]
    check_depth(node)
    return node


# Words are compared without case ("Even" is "even", "YES" "yes"), but a run of letters with
# capitals that is no word is its own variables: "XYZ", "LWH" or "Xyz" is no "xyz" or "lwh"
_CASE_WORDS = frozenset(("yes", "odd", "all", "not", "any", "one", "two", "six", "ten", "and"))


def _case(value: str) -> str:
    low = value.lower()
    vowels = sum(c in "aeiou" for c in low)
    if value == low or (value[1:] == low[1:] and vowels) or vowels >= 2:
        return low  # "Even", "Left", "TRUE"; "Xyz" keeps its capital X
    return low if low in _CASE_WORDS else value


def _text_is_whole(node: Node) -> bool:
    """Words are an answer ("Even", "the midpoints form a hexagon"), or items of a list of them."""
    if node[0] in ("text", "sym"):
        return True
    if node[0] in ("mul", "list"):
        return all(_text_is_whole(x) for x in node[1])
    return False
