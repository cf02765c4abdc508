"""Comparing parsed answers. `fast_compare` decides most pairs in pure Python (exact fractions, no
sympy) and returns None when the pair needs symbolic work, which `math_symbolic` does inside a
worker process."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from stages.verifiers.math_parse import Node, eval_rational, is_plain_number

Outcome = tuple[bool, str]


@dataclass(frozen=True)
class CompareOptions:
    rel_tolerance: float = 1e-9
    decimal_rounding_places: int | None = 3
    percent_as_fraction: bool = True


def _decimal_places(node: Node) -> int:
    if node[0] == "neg":
        return _decimal_places(node[1])
    if node[0] == "num" and "." in node[2] and "e" not in node[2].lower():
        return len(node[2].split(".", 1)[1])
    return 0


def rounding_ok(answer: Node, value: Fraction, ref_value: float, opts: CompareOptions) -> bool:
    places = _decimal_places(answer)
    if opts.decimal_rounding_places is None or places < opts.decimal_rounding_places:
        return False
    return abs(float(value) - ref_value) <= 0.5 * 10.0**-places * (1 + 1e-12)


def _candidates(answer: Node, opts: CompareOptions) -> list[Fraction]:
    # "50%" reads as 50 with its unit dropped, and (when configured) also as 0.5.
    value = eval_rational(answer)
    if value is None:
        return []
    negative = answer[0] == "neg"
    inner = answer[1] if negative else answer
    if inner[0] != "pct":
        return [value]
    dropped = -inner[1][1] if negative else inner[1][1]
    return [dropped, value] if opts.percent_as_fraction else [dropped]


def final_side(node: Node) -> Node:
    """`x = 3` and `37+48 = 85` answer with their last side; the reference may be an equation too."""
    return node[1][-1] if node[0] == "eq" else node


def is_assignment(node: Node) -> bool:
    return node[0] == "eq" and len(node[1]) == 2 and node[1][0][0] == "sym"


def fast_compare(answer: Node, ref: Node, opts: CompareOptions) -> Outcome | None:
    """Decide in pure Python when possible; None means a symbolic check is needed."""
    if ref[0] in ("tuple", "set", "list"):
        return _compare_collections(answer, ref, opts)
    if ref[0] == "eq" and not is_assignment(ref):
        return None if answer[0] == "eq" else (False, "reference is an equation, answer is not")
    if is_assignment(ref) and is_assignment(answer) and ref[1][0] != answer[1][0]:
        return False, f"answer solves for {answer[1][0][1]}, reference for {ref[1][0][1]}"
    answer, ref = final_side(answer), final_side(ref)
    if answer[0] in ("tuple", "set", "list"):
        return False, "answer is a collection, reference is a single value"
    if is_plain_number(ref):
        if not is_plain_number(answer):
            return False, "reference is a number but the answer is an unevaluated expression"
        ref_value = eval_rational(ref)
        assert ref_value is not None
        for value in _candidates(answer, opts):
            if value == ref_value:
                return True, "equal"
            if rounding_ok(answer, value, float(ref_value), opts):
                return True, "equal after rounding"
        return False, "different value"
    ref_value = eval_rational(ref)
    if ref_value is not None:
        values = _candidates(answer, opts)
        if values:
            ok = ref_value in values
            return ok, "equal" if ok else "different value"
    return None


def _compare_collections(answer: Node, ref: Node, opts: CompareOptions) -> Outcome | None:
    if answer[0] not in ("tuple", "set", "list"):
        return False, "reference is a collection, answer is a single value"
    items_a, items_r = answer[1], ref[1]
    if len(items_a) != len(items_r):
        return False, f"answer has {len(items_a)} items, reference {len(items_r)}"
    unordered = "set" in (answer[0], ref[0]) or "list" in (answer[0], ref[0])
    if not unordered:
        pairs = [fast_compare(a, r, opts) for a, r in zip(items_a, items_r, strict=True)]
        if any(p is not None and not p[0] for p in pairs):
            return False, "an item differs"
        return (True, "equal") if all(p is not None for p in pairs) else None
    # Greedy matching is exact here: equality is transitive, so order of matching cannot matter.
    remaining = list(items_r)
    for a in items_a:
        for j, r in enumerate(remaining):
            outcome = fast_compare(a, r, opts)
            if outcome is None:
                return None
            if outcome[0]:
                del remaining[j]
                break
        else:
            return False, "an item has no equal in the reference"
    return True, "equal as sets"
