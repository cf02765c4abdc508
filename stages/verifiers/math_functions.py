"""Grammar rules for named functions, mixed into the parser of `math_parse` (round 18).

A function written without brackets takes the implicit product after it as its argument, as a
reader does: `\\cos 2\\pi t` is cos(2 pi t), `\\sin \\frac{\\pi}{2} x` is sin(pi x / 2), and a power
inside that product stays there (`\\ln x^2` is ln(x^2), `\\sin x^2` is sin(x^2)); a number is whole
(`\\ln 10` is ln(10), never ln(1) followed by 0). The product stops at the next function
(`\\sin x \\cos x` is a product of two), at an operator, and where a bracket follows it
(`\\sin x (x+1)`: the argument's end is unsaid, so the answer is refused, never guessed)."""

from __future__ import annotations

from stages.verifiers.math_tokens import FUNCS, INVERSES, is_minus_one
from stages.verifiers.math_tree import MathParseError, Node, Step, applied_function

# Commands that begin a factor of a function's bracketless argument (\pi, \frac, \sqrt, Greek).
_ARGUMENT_COMMANDS = frozenset(("\\pi", "\\frac", "\\sqrt"))


class FunctionRules:
    """Rules that use the parser's own `take`, `at`, `peek`, `power`, `group`, `braced`,
    `primary` and `latex_arg`."""

    def function(self, name: str) -> Step:
        exponent = None
        if self.at("^"):  # \tan^2(y) is (\tan y)^2
            self.take()
            exponent = (yield self.braced()) if self.at("{") else (yield self.latex_arg())
            if name in INVERSES and is_minus_one(exponent):
                name, exponent = INVERSES[name], None
        base = None
        if name == "log" and self.at("_"):  # \log_2 3 is ln 3 / ln 2
            self.take()
            base = yield self.latex_arg()
        if self.at("("):
            arg = yield self.group("(", ")", "paren")
        elif self.at("|"):  # \ln|x|
            arg = yield self.primary()
        elif name == "exp" and not self.at("{"):
            raise MathParseError("\\exp without brackets: its argument's end is unsaid")
        elif self.at("{"):
            arg = yield self.braced()
        else:
            arg = yield self.bare_argument()
        node = applied_function(name, arg)
        if base is not None:
            node = ("div", ("func", "ln", arg), ("func", "ln", base))
        return node if exponent is None else ("pow", node, exponent)

    def bare_argument(self) -> Step:
        """The implicit product after a bracketless function: each factor with its own power."""
        factors: list[Node] = [(yield self.power())]
        while self._continues_argument():
            factors.append((yield self.power()))
        if self.at("("):
            raise MathParseError("a bracket after a function's bare argument: its end is unsaid")
        return factors[0] if len(factors) == 1 else ("mul", factors)

    def _continues_argument(self) -> bool:
        tok = self.peek()
        if tok is None:
            return False
        kind, value = tok
        if kind == "word":
            return value not in FUNCS and value not in ("or", "and")
        return kind == "cmd" and (value in _ARGUMENT_COMMANDS or value[1:] in GREEK)


# Greek letters are symbols (\theta, \omega); \pi is the constant. Variants are distinct letters.
GREEK = frozenset(
    ("alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta",
     "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "rho", "varrho", "sigma", "tau",
     "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi",
     "Sigma", "Upsilon", "Phi", "Psi", "Omega")
)  # fmt: skip


def is_derivative(node: Node) -> bool:
    """d/dx written as a fraction (\\frac{d}{dx} x^2, \\frac{dy}{dx}, \\frac{d^2}{dx^2}): read as a
    quotient its d's cancel, so `\\frac{d}{dx} x^2` would equal x; such an answer is refused."""
    if node[0] != "div":
        return False
    return _starts_with_d(node[1]) and _starts_with_d(node[2]) and node[2][0] != "sym"


def _starts_with_d(node: Node) -> bool:
    if node[0] == "pow":
        node = node[1]
    if node[0] == "mul" and node[1]:
        return _starts_with_d(node[1][0])
    return node == ("sym", "d")
