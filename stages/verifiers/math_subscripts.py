"""Grammar rules for subscripts and big operators, mixed into the parser of `math_parse`:
`x_{1}` is the symbol x_1, `F_{n-k-1}` the term F(n-k-1) ("indexed"), and
`\\sum_{k=0}^{n-1} F_k F_{n-k-1}` / `\\prod_{i=1}^{n} i` a "bigop" node that is never evaluated
(`math_compare` compares one only with another sum or product)."""

from __future__ import annotations

from stages.verifiers.math_tree import MathParseError, Step


class SubscriptRules:
    """Rules that use the parser's own `take`, `at`, `expr`, `term`, `braced` and `latex_arg`."""

    def big_operator(self, name: str) -> Step:
        """\\sum_{k=0}^{n-1} F_k F_{n-k-1}: a bound letter, its limits and the product after them."""
        self.take("_")
        self.take("{")
        kind, var = self.take()
        if kind != "word" or len(var) != 1:
            raise MathParseError(f"\\{name} needs one bound letter, not {var!r}")
        self.take("=")
        low = yield self.expr()
        self.take("}")
        self.take("^")
        high = (yield self.braced()) if self.at("{") else (yield self.latex_arg())
        body = yield self.term()
        return ("bigop", name, var, low, high, body)

    def subscript(self, name: str) -> Step:
        """x_{1} is the symbol x_1; F_{n-k-1} is F applied to an index expression."""
        self.take("_")
        index = (yield self.braced()) if self.at("{") else (yield self.latex_arg())
        if index[0] == "num" and index[1].denominator == 1 and index[1] >= 0:
            return ("sym", f"{name}_{index[2]}")
        if index[0] == "sym" and "_" not in index[1]:
            return ("sym", f"{name}_{index[1]}")
        return ("indexed", name, index)
