"""Set-builder notation, mixed into the parser of `math_parse` (round 18): `\\{x : x > 2\\}`,
`\\{x \\mid 1 \\le x < 3\\}` and `\\{x | x < 0\\}` are the intervals (2, oo), [1, 3) and (-oo, 0).
Only one letter bounded on one side, or between two bounds, is read; any other condition (two
letters, an equation, "x \\ne 2", a bound that names the letter) is refused, never guessed."""

from __future__ import annotations

from stages.verifiers.math_tree import MathParseError, Node, Step

_SEPARATORS = (":", "|", "\\mid")
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


class SetRules:
    """Rules that use the parser's own `toks`, `i`, `take`, `at` and `item`."""

    def starts_set_builder(self) -> bool:
        """At `\\{`, a single letter and then a separator."""
        i, toks = self.i, self.toks
        if i + 2 >= len(toks) or toks[i + 2][1] not in _SEPARATORS:
            return False
        kind, value = toks[i + 1]
        return kind == "word" and len(value) == 1

    def set_builder(self) -> Step:
        self.take("\\{")
        var = ("sym", self.take()[1])
        self.take()
        condition = yield self.item()
        self.take("\\}")
        return interval_of(var, condition)


def interval_of(var: Node, condition: Node) -> Node:
    if condition[0] != "rel" or len(condition[1]) not in (2, 3):
        raise MathParseError("a set-builder condition that is not an interval of one letter")
    sides, ops = condition[1], condition[2]
    if any(op not in _FLIP for op in ops) or sides.count(var) != 1 or _mentions(sides, var):
        raise MathParseError("a set-builder condition that is not an interval of one letter")
    if sides[0] != var and len(sides) == 2:  # 2 < x is x > 2
        sides, ops = sides[::-1], [_FLIP[ops[0]]]
    if len(sides) == 3:  # a < x < b, or b > x > a
        if sides[1] != var or ops[0][0] != ops[1][0]:
            raise MathParseError("a set-builder chain that is not one interval")
        if ops[0][0] == ">":
            sides, ops = sides[::-1], [_FLIP[op] for op in reversed(ops)]
        return ("interval", sides[0], sides[2], ops[0] == "<=", ops[1] == "<=")
    oo = ("const", "oo")
    if ops[0][0] == ">":
        return ("interval", sides[1], oo, ops[0] == ">=", False)
    return ("interval", ("neg", oo), sides[1], False, ops[0] == "<=")


def _mentions(sides: list[Node], var: Node) -> bool:
    """A bound that names the letter (x < 2x) or another letter is no fixed bound."""
    stack = [side for side in sides if side != var]
    while stack:
        node = stack.pop()
        if node[0] == "sym":
            return True
        for part in node[1:]:
            for child in part if isinstance(part, list) else [part]:
                if isinstance(child, tuple) and child and isinstance(child[0], str):
                    stack.append(child)
    return False


def conditions_union(node: Node) -> Node | None:
    """ "x<1 or x>2" (read as the set of its two conditions) as the union it states, where every
    condition bounds the same one letter; None for anything else ("x = 1 or x = 2", two letters),
    which stays a hedge between answers."""
    if node[0] != "set" or len(node[1]) < 2 or any(c[0] != "rel" for c in node[1]):
        return None
    letters = {side for c in node[1] for side in c[1] if side[0] == "sym"}
    if len(letters) != 1:
        return None
    (var,) = letters
    try:
        return ("union", [interval_of(var, condition) for condition in node[1]])
    except MathParseError:
        return None
