"""LaTeX environments, mixed into the parser of `math_parse` (round 24). Only a matrix environment
(matrix, pmatrix, bmatrix, Bmatrix, smallmatrix, or an array inside brackets) is a matrix or vector;
vmatrix is a determinant, and aligned, split, gathered or a bare array are alignment ("5 & 6" in
aligned shows as 56), refused. cases, aligned and gathered whose rows each assign one variable are a
system's solution, read as the labelled list "x = 5, y = 6"; any other rows are refused."""

from __future__ import annotations

from stages.verifiers.math_tree import MathParseError, Node, Step

_MATRICES = frozenset(("matrix", "pmatrix", "bmatrix", "Bmatrix", "smallmatrix"))
# environments whose rows may be a system's solution, one assignment each
_SYSTEMS = frozenset(("cases", "aligned", "gathered"))


class EnvironmentRules:
    """Rules that use the parser's own `toks`, `i`, `take`, `at`, `peek`, `expr` and `word`."""

    def matrix(self) -> Step:
        self.take("{")
        env = self.take()[1]
        self.take("}")
        if env in ("vmatrix", "Vmatrix"):  # a determinant or a norm: a number, not the matrix
            raise MathParseError(f"{env} (a determinant or norm) is not evaluated")
        if env in _SYSTEMS:
            return (yield self.system(env))
        bracketed = self.i >= 5 and self.toks[self.i - 5][1] in ("(", "[")
        if env not in _MATRICES and not (env == "array" and bracketed):
            # aligned, split, a bare array: alignment, not a matrix ("5 & 6" shows as 56)
            raise MathParseError(f"\\begin{{{env}}} is not a matrix")
        if env == "array" and self.at("{"):  # column spec {cc}
            while not self.at("}"):
                self.take()
            self.take("}")
        rows: list[list[Node]] = [[]]
        while not self.at("\\end"):
            if self.at("&"):
                self.take()
            elif self.at("\\\\"):
                self.take()
                rows.append([])
            else:
                rows[-1].append((yield self.expr()))
        self.take("\\end")
        self.take("{")
        if self.take()[1] != env:
            raise MathParseError(f"\\begin{{{env}}} closed by another environment")
        self.take("}")
        rows = [r for r in rows if r]
        if not rows or len({len(r) for r in rows}) != 1:
            raise MathParseError("ragged or empty matrix")
        return ("matrix", [("tuple", r) for r in rows])

    def system(self, env: str) -> Step:
        """A system's solution, one assignment a row ("\\begin{cases} x = 5 \\\\ y = 6
        \\end{cases}"): the labelled list "x = 5, y = 6" (`math_labels` checks the labels' order).
        Any other row (a piecewise value, a condition after &, a variable twice) is refused."""
        rows: list[Node] = []
        while not self.at("\\end"):
            if rows:
                self.take("\\\\")
                if self.at("\\end"):  # a trailing row break
                    break
            label = yield self.word() if self.peek() and self.peek()[0] == "word" else self.expr()
            if label[0] != "sym" or any(label == row[1][0] for row in rows):
                raise MathParseError(f"{env}: a row that is not one variable's value")
            if self.at("&"):
                self.take()
            self.take("=")
            rows.append(("eq", [label, (yield self.expr())]))
        self.take("\\end")
        self.take("{")
        if self.take()[1] != env:
            raise MathParseError(f"\\begin{{{env}}} closed by another environment")
        self.take("}")
        if len(rows) < 2:
            raise MathParseError(f"{env} with fewer than two assignments")
        return ("list", rows)
