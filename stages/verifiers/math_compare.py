"""Comparing parsed answers. `fast_compare` decides most pairs in pure Python (exact fractions, no
sympy) and returns None when the pair needs symbolic work, which `math_symbolic` does inside a
worker process."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from stages.verifiers.math_chains import (  # noqa: F401  (final_side, is_assignment: API)
    chain_holds,
    chain_outcome,
    curve_equations,
    final_side,
    is_assignment,
    is_chain,
    only_symbols,
)
from stages.verifiers.math_intervals import FLIP, as_set_of_intervals
from stages.verifiers.math_labels import align_labels
from stages.verifiers.math_parse import COLLECTIONS, UNORDERED, Node
from stages.verifiers.math_tree import as_vector
from stages.verifiers.math_values import eval_rational, is_plain_number, too_large

Outcome = tuple[bool, str]
# A reference with this many decimal places is a float approximation of an exact value.
FLOAT_REFERENCE_PLACES = 6


@dataclass(frozen=True)
class CompareOptions:
    rel_tolerance: float = 1e-9
    decimal_rounding_places: int | None = 3
    percent_as_fraction: bool = True
    round_exact_references: bool = False
    inequality_answers_interval: bool = False
    rename_variables: bool = False


def may_round(ref: Node, opts: CompareOptions) -> bool:
    """Rounding is for decimal references (3.14159 takes 3.142); an approximation of an exact
    one (0.3333 for 1/3, 1.732 for sqrt 3) is wrong unless `round_exact_references`."""
    return opts.round_exact_references or _decimal_places(ref) > 0


def _decimal_places(node: Node) -> int:
    if node[0] in ("neg", "pct"):
        return _decimal_places(node[1])
    if node[0] == "num" and "." in node[2] and "e" not in node[2].lower():
        return len(node[2].split(".", 1)[1])
    return 0


MIN_SIGNIFICANT_DIGITS = 2


def _rounds_to_float_reference(
    answer: Node, value: Fraction, ref: Node, ref_value: Fraction
) -> bool:
    """\\frac{1}{3} for 0.333333: a reference of `FLOAT_REFERENCE_PLACES` or more places is a
    rounded float, and an exact (not decimal) answer matches it when it rounds to it there."""
    places = _decimal_places(ref)
    if places < FLOAT_REFERENCE_PLACES or _decimal_places(answer) > 0:
        return False
    if value.denominator**2 * 100 > 10**places:
        # 355/113 for 3.141593: a float's rounding interval (width 10^-places) holds some fraction
        # of denominator q by chance about q^2 times in 10^places; only q <= 10^(places/2 - 1)
        # (1/3, 2/7, 1/97 for six places) makes that match unlikely, and unique: two fractions of
        # such denominators are at least 10^(2 - places) apart, wider than the interval
        return False
    return abs(value - ref_value) <= Fraction(1, 2 * 10**places)


def _significant_digits(node: Node) -> int:
    if node[0] == "neg":
        return _significant_digits(node[1])
    if node[0] != "num":
        return 0
    return len(node[2].replace(".", "").lstrip("0"))


def rounding_places(answer: Node, opts: CompareOptions) -> int | None:
    """The places an answer may be rounded at (its own), or None where it may not stand for a
    rounding: fewer places than the options ask, or fewer than two significant digits, so 0.000
    never stands for 1/3000 nor 0.001 for 0.0013."""
    places = _decimal_places(answer)
    if opts.decimal_rounding_places is None or places < opts.decimal_rounding_places:
        return None
    if _significant_digits(answer) < MIN_SIGNIFICANT_DIGITS:
        return None
    return places


def rounding_ok(answer: Node, value: Fraction, ref_value: Fraction, opts: CompareOptions) -> bool:
    """0.333 for 1/3: the answer is the reference rounded to the answer's own places, compared
    exactly (round 27: above 2^53 floats are 16 apart, so 98765432109876540.000 was 'equal' to
    98765432109876543.5)."""
    places = rounding_places(answer, opts)
    return places is not None and abs(value - ref_value) <= Fraction(1, 2 * 10**places)


def is_percent(node: Node) -> bool:
    return node[0] == "pct" or (node[0] == "neg" and node[1][0] == "pct")


def _candidates(
    answer: Node,
    opts: CompareOptions,
    ref_is_percent: bool = False,
    ref_value: Fraction | None = None,
) -> list[Fraction]:
    # "50%" reads as 50 with its unit dropped, and (when configured) also as 0.5; against a
    # percent reference it is only its value (0.28% is not 28%).
    value = eval_rational(answer)
    if value is None:
        return []
    negative = answer[0] == "neg"
    inner = answer[1] if negative else answer
    if inner[0] != "pct" or ref_is_percent:
        return [value]
    if ref_value is not None and abs(ref_value) <= 1:
        # a reference of at most 1 may be a probability or a fraction: 0.3% is then 0.003, never
        # the 0.3 it would be with its sign dropped (round 15)
        return [value] if opts.percent_as_fraction else []
    dropped = -inner[1][1] if negative else inner[1][1]
    return [dropped, value] if opts.percent_as_fraction else [dropped]


def _as_relation(node: Node) -> Node:
    """x >= 5 and 5 <= x are one relation: ops turned to < and <=, compared side by side."""
    sides, ops = node[1], node[2]
    if ops[0] in (">", ">="):
        sides, ops = sides[::-1], [FLIP[op] for op in reversed(ops)]
    return ("tuple", [("text", " ".join(ops)), *sides])


def comparable_pair(
    answer: Node, ref: Node, opts: CompareOptions | None = None
) -> tuple[Node, Node] | str:
    """Intervals, unions, relations, ratios and matrices rewritten as tuples and sets, so one
    comparison serves them all; a string says why the two cannot be equal."""
    intervals = ("interval", "union")
    if (answer[0] == "ratio") != (ref[0] == "ratio"):
        # round 27: 1:2 is no point (1, 2), no list 1, 2 and no interval (1, 2), nor the reverse
        return "a ratio answers only a ratio"
    if (
        ref[0] == "interval"
        and answer[0] in UNORDERED
        or ref[0] in UNORDERED
        and answer[0] == "interval"
    ):
        return "a set of points is not an interval"
    if ref[0] in intervals or answer[0] in intervals or (ref[0] == "rel" and answer[0] != "rel"):
        inequality_ok = opts is not None and opts.inequality_answers_interval
        if answer[0] == "rel" and ref[0] != "rel" and not inequality_ok:
            return "answer is an inequality, reference is an interval"
        a, r = as_set_of_intervals(answer), as_set_of_intervals(ref)
        if a is None or r is None:
            return "an inequality that is not an interval of one variable"
        if len(a[1]) == len(r[1]) == 1 and a[1][0][0] == r[1][0][0] == "tuple":
            (ia,), (ir,) = a[1], r[1]
            if len(ia[1]) == len(ir[1]) == 4 and (ia[1][0], ia[1][3]) != (ir[1][0], ir[1][3]):
                return "open and closed interval ends differ"
        return a, r
    if ref[0] == "rel" and answer[0] == "rel":
        if len(answer[2]) != len(ref[2]):
            return "inequalities of different shape"
        return _as_relation(answer), _as_relation(ref)
    if ref[0] == "rel" or answer[0] == "rel":
        return "one side is an inequality, the other is not"
    return _plain(as_vector(answer, ref)), _plain(as_vector(ref, answer))


def _plain(node: Node, top: bool = True) -> Node:
    """Ratios and matrices as tuples. A ratio inside a collection stays one, so its item is
    compared by kind too (`1:2, 3:4` is no list of points)."""
    if node[0] == "matrix" or (node[0] == "ratio" and top):
        return ("tuple", [_plain(x, top=False) for x in node[1]])
    if node[0] in COLLECTIONS:
        return (node[0], [_plain(x, top=False) for x in node[1]])
    return node


def has_big_operator(node: Node) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current[0] == "bigop":
            return True
        stack.extend(x for part in current[1:] for x in (part if isinstance(part, list) else [part])
                     if isinstance(x, tuple))  # fmt: skip
    return False


def canonical(node: Node) -> object:
    """A hashable form in which equal literals look alike ("0.50" and "0.5")."""
    if node[0] == "num":
        return ("num", node[1])
    return tuple(
        tuple(canonical(x) for x in part)
        if isinstance(part, list)
        else canonical(part)
        if isinstance(part, tuple)
        else part
        for part in node
    )


def _text_of(node: Node) -> str | None:
    if node[0] == "text":
        return node[1]
    if node[0] == "sym":
        return node[1].lower()
    return None


def fast_compare(answer: Node, ref: Node, opts: CompareOptions) -> Outcome | None:
    """Decide in pure Python when possible; None means a symbolic check is needed."""
    if canonical(answer) == canonical(ref):
        return True, "identical"
    if too_large(answer):
        return False, "a power too large to compute or expand (never computed)"
    if has_big_operator(answer) != has_big_operator(ref):
        # "\\sum_{k=1}^{10} k" for 55 echoes the question: a sum or product is never evaluated
        return False, "a sum or product is compared only with one written as a sum or product"
    chain = chain_outcome(answer)
    if chain is not None:
        return chain
    if is_chain(answer) and chain_holds(answer[1][1:]) is None:
        return None  # "f(x) = (x+1)^2 = x^2 + 2x + 1": sympy checks every step
    aligned = align_labels(answer, ref)
    if isinstance(aligned, str):
        return False, aligned
    answer, ref = aligned
    if "text" in (answer[0], ref[0]):
        ta, tr = _text_of(answer), _text_of(ref)
        ok = ta is not None and ta == tr
        return ok, "same text" if ok else "different text"
    if curve_equations(answer, ref):
        return None  # 2x - y + 3 = 0 for y = 2x + 3: sympy compares the two equations
    if is_assignment(ref) and not is_assignment(answer):
        ref = final_side(ref)
    if is_assignment(answer) and not is_assignment(ref) and ref[0] != "eq":
        if answer[1][0][0] in ("mul", "div"):
            # "mn = 12" for 12: a product of unknowns equals 12; which unknown is asked is unsaid
            return (
                False,
                "the answer's left side is a product or ratio of unknowns, not a name for it",
            )
        answer = final_side(answer)
    both_relations = answer[0] == ref[0] == "rel"
    pair = comparable_pair(answer, ref, opts)
    if isinstance(pair, str):
        return False, pair
    answer, ref = pair
    if both_relations:
        outcome = _compare_collections(answer, ref, opts)
        # "-x > -1" is "x < 1": a single inequality that differs side by side goes to sympy
        return outcome if outcome is not None and outcome[0] else None
    if ref[0] in COLLECTIONS:
        return _compare_collections(answer, ref, opts)
    if ref[0] == "eq" and not is_assignment(ref):
        return None if answer[0] == "eq" else (False, "reference is an equation, answer is not")
    if answer[0] == "eq" and not is_assignment(answer):
        # "37+48 = 85" answers 85; "\\boxed{3 = 4}" answers nothing
        values = [eval_rational(side) for side in answer[1]]
        if any(v is None for v in values):
            return False, "answer is an equation, reference is not"
        if len(set(values)) > 1:
            return False, "answer is an equation that does not hold"
        answer = final_side(answer)
    if is_assignment(ref) and is_assignment(answer) and ref[1][0] != answer[1][0]:
        return False, f"answer solves for {answer[1][0][1]}, reference for {ref[1][0][1]}"
    answer, ref = final_side(answer), final_side(ref)
    return _compare_values(answer, ref, opts)


def _compare_values(answer: Node, ref: Node, opts: CompareOptions) -> Outcome | None:
    """One value against one value (both read by their final side): exact, as a percent, after
    the rounding the options allow; None when only a symbolic check can decide."""
    if answer[0] in COLLECTIONS:
        return False, "answer is a collection, reference is a single value"
    if is_plain_number(ref):
        if not is_plain_number(answer):
            if _decimal_places(ref) >= FLOAT_REFERENCE_PLACES and eval_rational(answer) is None:
                return None  # a float reference (4.123105625617661) for \sqrt{17}: numeric check
            return False, "reference is a number but the answer is an unevaluated expression"
        ref_value = eval_rational(ref)
        assert ref_value is not None
        if ref[0] == "pct" and not is_percent(answer) and eval_rational(answer) == ref[1][1]:
            return True, "equal (percent)"  # 28 for 28%
        for value in _candidates(answer, opts, is_percent(ref), ref_value):
            if value == ref_value:
                return True, "equal"
            if may_round(ref, opts) and rounding_ok(answer, value, ref_value, opts):
                return True, "equal after rounding"
            if _rounds_to_float_reference(answer, value, ref, ref_value):
                return True, "equal after rounding (an exact answer, a float reference)"
        if not may_round(ref, opts) and _decimal_places(answer) > 0:
            return False, "a decimal approximation of an exact reference"
        return False, "different value"
    ref_value = eval_rational(ref)
    if ref_value is not None:
        values = _candidates(answer, opts, ref_value=ref_value)
        if values:
            ok = ref_value in values
            return ok, "equal" if ok else "different value"
    return None


def is_unordered(answer: Node, ref: Node) -> bool:
    """The reference decides: a set or list compares as a set, a tuple keeps its order."""
    return ref[0] in UNORDERED or (ref[0] == "braces" and answer[0] in UNORDERED)


def _compare_collections(answer: Node, ref: Node, opts: CompareOptions) -> Outcome | None:
    if answer[0] not in COLLECTIONS:
        return False, "reference is a collection, answer is a single value"
    if ref[0] == "tuple" and answer[0] == "set":
        return False, "a set does not answer an ordered tuple"
    if ref[0] == "set" and answer[0] == "tuple":
        return False, "an ordered tuple (a point) does not answer a set"
    items_a, items_r = answer[1], ref[1]
    unordered = is_unordered(answer, ref)
    repeats = len({canonical(x) for x in items_r}) < len(items_r)
    if unordered and not (ref[0] == "list" and repeats):
        # a repeated item counts once, unless the reference lists one twice ("2, 2, 3": a double
        # root), which then counts as many times as written
        items_a = list({canonical(x): x for x in items_a}.values())
        items_r = list({canonical(x): x for x in items_r}.values())
    if len(items_a) != len(items_r):
        return False, f"answer has {len(items_a)} items, reference {len(items_r)}"
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
