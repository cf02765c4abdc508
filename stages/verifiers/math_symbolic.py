"""Symbolic comparison with sympy. Imported only by worker processes of `HardTimeoutPool`, because
sympy can hang on input such as 9**9**9**9 and only killing the process stops it. Trees are built
into sympy with its constructors, never by parsing strings (sympify/parse_expr evaluate Python)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy
import sympy.physics.units  # noqa: F401 - see below
from sympy.core.evalf import PrecisionExhausted

from stages.verifiers.math_chains import (
    FALSE_STEP,
    curve_equations,
    is_chain,
    symbolic_chain_holds,
)
from stages.verifiers.math_compare import (
    CompareOptions,
    Outcome,
    comparable_pair,
    final_side,
    is_assignment,
    is_unordered,
    may_round,
    rounding_places,
)
from stages.verifiers.math_labels import align_labels
from stages.verifiers.math_parse import COLLECTIONS, Node
from stages.verifiers.math_values import eval_rational

# sympy.simplify imports sympy.physics.units on its first call, seconds on a busy machine: imported
# here, at the worker's start-up (which no job's deadline includes), a first job is not timed out.

# LaTeX's inverse, hyperbolic, floor and ceiling functions (round 17), by sympy name
_MORE_FUNCTIONS = {
    name: getattr(sympy, sympy_name)
    for name, sympy_name in (
        ("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"), ("arcsec", "asec"),
        ("arccsc", "acsc"), ("arccot", "acot"), ("sinh", "sinh"), ("cosh", "cosh"),
        ("tanh", "tanh"), ("coth", "coth"), ("sech", "sech"), ("csch", "csch"),
        ("arcsinh", "asinh"), ("arccosh", "acosh"), ("arctanh", "atanh"),
        ("floor", "floor"), ("ceil", "ceiling"),
    )
}  # fmt: skip


def to_sympy(node: Node):  # noqa: ANN201 - sympy types are dynamic
    tag = node[0]
    if tag == "num":
        v: Fraction = node[1]
        return sympy.Rational(v.numerator, v.denominator)
    if tag == "sym":
        return sympy.Symbol(node[1])
    if tag == "const":
        return sympy.pi if node[1] == "pi" else sympy.oo
    if tag == "neg":
        return -to_sympy(node[1])
    if tag == "pct":
        return to_sympy(node[1]) / 100
    if tag == "add":
        return sympy.Add(*[to_sympy(x) for x in node[1]])
    if tag == "mul":
        return sympy.Mul(*[to_sympy(x) for x in node[1]])
    if tag == "div":
        return to_sympy(node[1]) / to_sympy(node[2])
    if tag == "pow":
        return sympy.Pow(to_sympy(node[1]), to_sympy(node[2]))
    if tag == "root":
        return _root(to_sympy(node[1]), to_sympy(node[2]))
    if tag == "func":
        fn = {
            "sqrt": sympy.sqrt,
            "sin": sympy.sin,
            "cos": sympy.cos,
            "tan": sympy.tan,
            "log": sympy.log,
            "ln": sympy.log,
            "exp": sympy.exp,
            "sec": sympy.sec,
            "csc": sympy.csc,
            "cot": sympy.cot,
            "abs": sympy.Abs,
            "lg": lambda x: sympy.log(x, 10),
            **_MORE_FUNCTIONS,
        }[node[1]]
        return fn(to_sympy(node[2]))
    if tag == "indexed":
        return sympy.Function(node[1])(to_sympy(node[2]))
    if tag == "bigop":
        return _big_operator(node)
    raise ValueError(f"cannot build {tag} into sympy")


def _root(radicand, index):  # noqa: ANN001, ANN202 - sympy types are dynamic
    """An odd root of a negative number is the real one, as school math writes it:
    \\sqrt[3]{-16} is -2\\sqrt[3]{2}, never sympy's principal complex root."""
    if index.is_Integer and index % 2 == 1 and radicand.is_number and radicand.is_negative:
        return -sympy.root(-radicand, index)
    return sympy.root(radicand, index)


def _constants(ea, er):  # noqa: ANN001, ANN202 - sympy types are dynamic
    """Where e and i are the only letters on both sides, they are Euler's number and the imaginary
    unit (\\ln(2e) is 1 + \\ln 2; \\sqrt2 e^{i\\pi/4} is 1 + i): with no variable in the
    reference, a letter in the answer cannot be one either."""
    letters = ea.free_symbols | er.free_symbols
    if not letters or not {s.name for s in letters} <= {"e", "i"}:
        return ea, er
    known = {sympy.Symbol("e"): sympy.E, sympy.Symbol("i"): sympy.I}
    return ea.xreplace(known), er.xreplace(known)


def _exactly_equal(diff) -> Outcome:  # noqa: ANN001 - a sympy expression without symbols
    """An exact reference that simplify did not reach: 15 digits of the difference, each proven
    (strict evalf), tell \\pi + 10^{-50} from \\pi. A difference too small to find any digit of in
    3000 bits is not told apart from a perturbation, so it is not paid (never a tolerance)."""
    try:
        value = diff.evalf(15, strict=True, maxn=3000)
    except PrecisionExhausted:
        return False, "not decided: the difference is below any precision tried"
    if value == 0:
        return True, "equal"
    return False, "different value (an exact reference is matched only exactly)"


def _proven_gap(gap) -> float:  # noqa: ANN001 - a sympy expression without symbols
    """The sign of `gap` proven in 15 strict digits; one below any precision tried counts as 0
    (a tie: the caller's `<= 0` pays only where half a unit of the last place is no bound)."""
    try:
        return float(gap.evalf(15, strict=True, maxn=3000))
    except PrecisionExhausted:
        return 0.0


def _proven_nonzero(value) -> bool:  # noqa: ANN001 - a sympy number
    """A constant factor proven non-zero (round 27): `ratio != 0` is structural, and
    cos(pi/7) - cos(2pi/7) + cos(3pi/7) - 1/2 is 0 though simplify keeps it."""
    try:
        return value.evalf(15, strict=True, maxn=3000) != 0
    except (PrecisionExhausted, TypeError, ValueError):
        return False


def _rounds_to(a: Node, value: Fraction, er, opts: CompareOptions) -> bool:  # noqa: ANN001
    """The answer (a decimal) is `er` rounded at its own places, with the gap proven exactly, not
    in 30 float digits that lose a big number's decimals."""
    places = rounding_places(a, opts)
    if places is None:
        return False
    gap = abs(sympy.Rational(value.numerator, value.denominator) - er)
    return _proven_gap(gap - sympy.Rational(1, 2 * 10**places)) <= 0


def _big_operator(node: Node):  # noqa: ANN202 - a sympy Sum or Product, never evaluated
    _, name, var, low, high, body = node
    bound = sympy.Symbol(var)
    # F_k in the body is the term F(k) of the bound letter, as F_{n-k-1} is F(n-k-1)
    built = to_sympy(body)
    terms = {s: sympy.Function(s.name[: -len(var) - 1])(bound) for s in built.free_symbols
             if s.name.endswith(f"_{var}") and len(s.name) > len(var) + 1}  # fmt: skip
    operator = sympy.Sum if name == "sum" else sympy.Product
    return operator(built.xreplace(terms), (bound, to_sympy(low), to_sympy(high)))


def _sympy_equal(a: Node, r: Node, opts: CompareOptions) -> Outcome:
    if is_chain(a) and not symbolic_chain_holds(a[1][1:], to_sympy):
        return False, FALSE_STEP
    aligned = align_labels(a, r)
    if isinstance(aligned, str):
        return False, aligned
    a, r = aligned
    if "ratio" in (a[0], r[0]):  # an item of a collection: a ratio answers only a ratio
        if a[0] != r[0]:
            return False, "a ratio answers only a ratio"
        a, r = ("tuple", a[1]), ("tuple", r[1])
    if r[0] in COLLECTIONS:
        return _sympy_collections(a, r, opts)
    if r[0] == "eq" and (not is_assignment(r) or curve_equations(a, r)):
        if a[0] != "eq" or len(a[1]) != 2 or len(r[1]) != 2:
            return False, "equation shape differs"
        da = to_sympy(a[1][0]) - to_sympy(a[1][1])
        dr = to_sympy(r[1][0]) - to_sympy(r[1][1])
        if dr == 0 or da == 0:
            return False, "degenerate equation"
        ratio = sympy.simplify(da / dr)
        ok = bool(ratio.is_number and _proven_nonzero(ratio))
        return ok, "equivalent equations" if ok else "different equations"
    a, r = final_side(a), final_side(r)
    ea, er = _constants(to_sympy(a), to_sympy(r))
    if not ea.free_symbols and not er.free_symbols:
        va, vr = sympy.N(ea, 30), sympy.N(er, 30)
        if not (va.is_real and vr.is_real):
            # into real and imaginary parts first: simplify alone stalls on sqrt2 e^{i pi/4} - 1 - i
            ok = sympy.simplify(sympy.expand_complex(ea - er)) == 0
            return ok, "equal" if ok else "different value"
        value = eval_rational(a)
        if not may_round(r, opts):
            # An exact reference is equalled only exactly: 1.7320508 is not sqrt(3), and neither is
            # sqrt(3) + 10^{-12} (a tolerance would pay any perturbation below it).
            ok = sympy.simplify(ea - er) == 0
            if ok or value is not None:
                return ok, "equal" if ok else "a decimal approximation of an exact reference"
            return _exactly_equal(ea - er)
        if _proven_gap(abs(ea - er) - _tolerance(a, r, float(vr), opts)) <= 0:
            return True, "numerically equal"
        if value is not None and _rounds_to(a, value, er, opts):
            return True, "equal after rounding"
        return False, "different value"
    if ea.free_symbols != er.free_symbols:
        if opts.rename_variables:
            return _renamed_equal(ea, er)
        return False, "different variables"
    ok = sympy.simplify(ea - er) == 0
    return ok, "symbolically equal" if ok else "different expression"


def _tolerance(a: Node, r: Node, value: float, opts: CompareOptions) -> sympy.Rational:
    """The relative tolerance, never wider than half a unit of the last stated decimal place of
    the reference or of a decimal answer: 1234567891.05 is no 1234567890.123456 (1e-9 of it is
    1.2), nor 98765432109876540.000 a reference 3.5 above it. Exact, as the gap is."""
    tolerance = sympy.Rational(opts.rel_tolerance) * max(1, sympy.Rational(abs(value)))
    for side in (r, a):
        side = side[1] if side[0] == "neg" else side
        if side[0] == "num" and len(side) > 2 and "." in side[2] and "e" not in side[2].lower():
            places = len(side[2].partition(".")[2])
            tolerance = min(tolerance, sympy.Rational(1, 2 * 10**places))
    return tolerance


def _sympy_collections(a: Node, r: Node, opts: CompareOptions) -> Outcome:
    """A collection reference: the same shape, items equal in order (or as a multiset where the
    reference is unordered)."""
    if a[0] not in COLLECTIONS or len(a[1]) != len(r[1]) or (r[0], a[0]) == ("tuple", "set"):
        return False, "collection shape differs"
    unordered = is_unordered(a, r)
    if not unordered:
        ok = all(_sympy_equal(x, y, opts)[0] for x, y in zip(a[1], r[1], strict=True))
        return ok, "equal" if ok else "an item differs"
    remaining = list(r[1])
    for x in a[1]:
        hit = next((j for j, y in enumerate(remaining) if _sympy_equal(x, y, opts)[0]), None)
        if hit is None:
            return False, "an item has no equal in the reference"
        del remaining[hit]
    return True, "equal as sets"


MAX_RENAMED = 3  # 3! one-to-one renamings at most


def _renamed_equal(ea: sympy.Expr, er: sympy.Expr) -> Outcome:
    """With `rename_variables`: equal once the answer's own variables are renamed one to one onto
    the reference's own ones (shared variables stay), e.g. f(y) for f(x)."""
    own = sorted(ea.free_symbols - er.free_symbols, key=str)
    theirs = sorted(er.free_symbols - ea.free_symbols, key=str)
    if len(own) != len(theirs) or len(own) > MAX_RENAMED:
        return False, "different variables"
    for order in itertools.permutations(theirs):
        if sympy.simplify(ea.xreplace(dict(zip(own, order, strict=True))) - er) == 0:
            return True, "equal with variables renamed"
    return False, "different expression, variables renamed"


def _same_inequality(a: Node, r: Node) -> Outcome:
    """a < b and c < d are one inequality when (a - b) / (c - d) is a positive constant."""

    def oriented(node: Node):  # noqa: ANN202
        (lhs, rhs), op = node[1], node[2][0]
        diff = to_sympy(lhs) - to_sympy(rhs)
        return (-diff, {">": "<", ">=": "<="}[op]) if op in (">", ">=") else (diff, op)

    (da, op_a), (dr, op_r) = oriented(a), oriented(r)
    if op_a != op_r or dr == 0:
        return False, "different inequality"
    ratio = sympy.simplify(da / dr)
    ok = bool(ratio.is_number and _proven_nonzero(ratio) and ratio.is_positive)
    return ok, "equivalent inequalities" if ok else "different inequality"


def sympy_compare(answer: Node, ref: Node, opts: CompareOptions) -> Outcome:
    """Symbolic comparison; call only in a killable worker (sympy may not return)."""
    try:
        if answer[0] == ref[0] == "rel" and len(answer[2]) == len(ref[2]) == 1:
            return _same_inequality(answer, ref)
        pair = comparable_pair(answer, ref, opts)
        if isinstance(pair, str):
            return False, pair
        return _sympy_equal(*pair, opts)
    except (ValueError, TypeError, ZeroDivisionError, OverflowError, RecursionError) as e:
        return False, f"symbolic check failed: {type(e).__name__}"
