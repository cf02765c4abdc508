"""The trusted side of a code check: what an assert may use once the candidate's values are back.

An assert's trusted part (expected values, the comparison, any function wrapping it) is evaluated in
this process over plain values decoded from the sandbox's report. It sees a closed set of names:
the builtins and module functions below, each bounded so that no value the candidate returns can
make it allocate without limit (`'x' * n`, `2 ** n`, `range(n)`, `math.factorial(n)`, `s.ljust(n)`
are refused past `MAX_SIZE`). A name outside that set, or an attribute starting with `_`, makes the
test set unsupported at plan time (the task is unverifiable), never a failed solution."""

from __future__ import annotations

import array
import ast
import builtins
import cmath
import collections
import datetime
import decimal
import fractions
import functools
import heapq
import hmac
import importlib
import itertools
import json
import math
import operator
import re
import statistics
import string
from types import SimpleNamespace
from typing import Any

from stages.verifiers.code_identity import IS_INPUT, IS_SAME, identity_functions
from stages.verifiers.code_trusted_iter import combinatorics
from stages.verifiers.code_trusted_names import TrustedGap, TrustedNamespace
from stages.verifiers.code_trusted_re import timed_re
from stages.verifiers.code_verdict_errors import PastDraws, Unverifiable  # noqa: F401  (re-exported)

_PLACEHOLDER = re.compile(r"_v\d+")
_GUARD_NAMES = {ast.Mult: "_mul", ast.Pow: "_pow", ast.LShift: "_lshift", ast.Mod: "_mod"}
MAX_SIZE = 10**7  # elements, characters or bits a trusted operation may produce
_MAX_POW_BITS = 10**6


class UnsupportedTests(Exception):
    """The tests have a shape the decomposer or the trusted evaluator does not take; the message
    says which."""


def _line(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


class Refused(ValueError):
    """A trusted operation would produce more than MAX_SIZE: the assert fails."""


def _int_arg(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _mul(a: Any, b: Any) -> Any:
    for seq, n in ((a, b), (b, a)):
        repeats = _int_arg(n) and n > 0 and hasattr(seq, "__len__") and not _int_arg(seq)
        if repeats and len(seq) * n > MAX_SIZE:
            raise Refused("a repetition past the size limit")
    if _int_arg(a) and _int_arg(b) and a.bit_length() + b.bit_length() > MAX_SIZE:
        raise Refused("a product past the size limit")
    return a * b


def _bits(x: Any) -> int:
    """How many bits an exact number holds (ints, Fractions); 0 for floats and the rest."""
    if _int_arg(x):
        return x.bit_length()
    if isinstance(x, fractions.Fraction):
        return x.numerator.bit_length() + x.denominator.bit_length()
    return 0


def _pow(a: Any, b: Any, mod: Any = None) -> Any:
    if mod is not None:
        return builtins.pow(a, b, mod)
    exponent = b  # 3 ** Fraction(10**8) is an int power, 3 ** 1e8 a float one
    if isinstance(b, fractions.Fraction) and b.denominator == 1:
        exponent = b.numerator
    if _int_arg(exponent) and abs(exponent) * max(_bits(a) - 1, 0) > _MAX_POW_BITS:
        raise Refused("a power past the size limit")
    return a**b


def _lshift(a: Any, b: Any) -> Any:
    if _int_arg(b) and b > MAX_SIZE:
        raise Refused("a shift past the size limit")
    return a << b


_WIDE = re.compile(r"\d{7,}")  # a width or precision of ten million or more, in a format
_WIDE_PERCENT = re.compile(rb"%[-+ #0]*\d{7,}")


def _format(value: Any, spec: str = "") -> str:
    if isinstance(spec, str) and _WIDE.search(spec):
        raise Refused("a format width past the size limit")
    return format(value, spec)


def _formatted(value: Any, conversion: int, spec: str) -> str:
    """One `{value!r:spec}` of an f-string, with its width bounded as format()'s is."""
    converted = {ord("r"): repr, ord("s"): str, ord("a"): ascii}.get(conversion)
    return _format(converted(value) if converted else value, spec)


def _mod(a: Any, b: Any) -> Any:  # '%*s' % (n, s) pads to n characters
    if isinstance(a, (str, bytes)):
        raw = a.encode("utf-8", "replace") if isinstance(a, str) else a
        if _WIDE_PERCENT.search(raw):
            raise Refused("a format width past the size limit")
        args = b if isinstance(b, tuple) else (b,)
        if any(_int_arg(x) and abs(x) > MAX_SIZE for x in args):
            raise Refused("a format width past the size limit")
    return a % b


def _bounded(fn: Any, limit: int = MAX_SIZE) -> Any:
    """`fn` refusing an int argument above `limit` (sizes, widths, counts)."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if any(_int_arg(x) and abs(x) > limit for x in (*args, *kwargs.values())):
            raise Refused(f"{getattr(fn, '__name__', 'call')}() past the size limit")
        return fn(*args, **kwargs)

    return call


def _range(*args: Any) -> range:
    r = range(*args)
    if len(r) > MAX_SIZE:
        raise Refused("a range past the size limit")
    return r


# Methods of plain values that pad or repeat by an argument (or, Counter.elements, by the counts it
# holds): bounded when called out here.
AMPLIFYING_METHODS = frozenset(
    {"ljust", "rjust", "center", "zfill", "expandtabs", "to_bytes", "format", "format_map",
     "elements"}
)  # fmt: skip


def call_method(receiver: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    if name == "pop" and isinstance(receiver, (set, frozenset)) and len(receiver) > 1:
        # which item `pop()` takes depends on where the program's own set last popped (round 18)
        raise Unverifiable(
            "pop() of a set of several items: which one Python takes is the program's"
        )
    method = getattr(receiver, name)
    texts = [receiver, *args, *kwargs.values()] if name in ("format", "format_map") else []
    if any(isinstance(t, str) and _WIDE.search(t) for t in texts):
        raise Refused("a format width past the size limit")
    counts = receiver.values() if isinstance(receiver, collections.Counter) else ()
    if name == "elements" and sum(n for n in counts if _int_arg(n) and n > 0) > MAX_SIZE:
        raise Refused("Counter.elements() past the size limit")
    if name in AMPLIFYING_METHODS:
        return _bounded(method, 10**6)(*args, **kwargs)
    return method(*args, **kwargs)


def _words(text: str) -> list[str]:
    return text.split()


# What the rewritten trusted expressions call in place of `*`, `**`, `<<`, `%` and padding methods.
GUARDS = {"_mul": _mul, "_pow": _pow, "_lshift": _lshift, "_mod": _mod, "_method": call_method,
          "_formatted": _formatted}  # fmt: skip

_PLAIN_BUILTINS = _words(
    "abs all any ascii bin bool callable chr complex dict divmod enumerate filter float format "
    "frozenset hex int isinstance issubclass iter len list map max min next oct ord repr reversed "
    "round set slice sorted str sum tuple type zip True False None Ellipsis NotImplemented "
    "Exception ArithmeticError AssertionError AttributeError IndexError KeyError LookupError "
    "OverflowError RuntimeError StopIteration TypeError ValueError ZeroDivisionError"
)
TRUSTED_BUILTINS: dict[str, Any] = {name: getattr(builtins, name) for name in _PLAIN_BUILTINS}
TRUSTED_BUILTINS.update(
    pow=_pow, range=_range, bytes=_bounded(bytes), bytearray=_bounded(bytearray), format=_format
)


def _product_bounded(fn: Any) -> Any:
    """math.prod / math.lcm refusing factors whose bits add up past the size limit."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        factors = args[0] if fn is math.prod and args else args
        factors = list(factors)
        if sum(_bits(x) for x in factors) > MAX_SIZE:
            raise Refused(f"{fn.__name__}() past the size limit")
        return fn(factors, **kwargs) if fn is math.prod else fn(*factors)

    return call


def _namespace(module: Any, names: str, **guarded: Any) -> TrustedNamespace:
    return TrustedNamespace(**{**{n: getattr(module, n) for n in names.split()}, **guarded})


def _math_names(module: Any) -> str:
    return " ".join(n for n in dir(module) if not n.startswith("_"))


def _operator() -> SimpleNamespace:
    # attrgetter / methodcaller would reach dunder attributes past the `_` rule: left out.
    names = [n for n in dir(operator) if not n.startswith("_")]
    names = [n for n in names if n not in ("attrgetter", "methodcaller")]
    guarded = {"pow": _pow, "ipow": _pow, "mul": _mul, "imul": _mul, "lshift": _lshift,
               "ilshift": _lshift, "mod": _mod, "imod": _mod}  # fmt: skip
    return TrustedNamespace(**{n: guarded.get(n, getattr(operator, n)) for n in names})


def _numpy() -> SimpleNamespace | None:
    try:
        import numpy as np
    except ImportError:
        return None
    names = (
        "allclose isclose array_equal array_equiv array asarray all any abs absolute sum round "
        "around sort sqrt mean median isnan isinf isfinite float16 float32 float64 int8 int16 "
        "int32 int64 uint8 uint16 uint32 uint64 bool_ complex64 complex128 ndarray nan inf pi e"
    )
    testing = _namespace(
        np.testing,
        "assert_allclose assert_array_equal assert_array_almost_equal assert_equal "
        "assert_almost_equal assert_approx_equal assert_array_less",
    )
    sized = {n: _bounded(getattr(np, n), 10**3) for n in ("eye", "identity")}
    sized |= {n: _bounded(getattr(np, n)) for n in ("arange", "linspace")}
    return _namespace(np, names, testing=testing, linalg=_namespace(np.linalg, "norm"), **sized)


def _modules() -> dict[str, SimpleNamespace]:
    modules = {
        "math": _namespace(
            math,
            _math_names(math),
            factorial=_bounded(math.factorial, 10**5),
            prod=_product_bounded(math.prod),
            lcm=_product_bounded(math.lcm),
            comb=_bounded(math.comb, 10**5),
            perm=_bounded(math.perm, 10**5),
        ),
        "cmath": _namespace(cmath, _math_names(cmath)),
        "operator": _operator(),
        "hmac": _namespace(hmac, "compare_digest"),
        "string": _namespace(
            string,
            "ascii_letters ascii_lowercase ascii_uppercase digits hexdigits octdigits "
            "punctuation whitespace printable",
        ),
        "fractions": _namespace(fractions, "Fraction"),
        "decimal": _namespace(decimal, "Decimal"),
        "collections": _namespace(collections, "Counter OrderedDict defaultdict deque"),
        "itertools": _namespace(
            itertools, "chain islice zip_longest accumulate pairwise", **combinatorics()
        ),
        "functools": _namespace(functools, "reduce cmp_to_key"),
        "statistics": _namespace(
            statistics, "mean fmean median mode stdev pstdev variance pvariance"
        ),
        "heapq": _namespace(heapq, "nlargest nsmallest"),
        "json": _namespace(json, "loads dumps"),
        "datetime": _namespace(datetime, "date datetime time timedelta timezone MINYEAR MAXYEAR"),
        "array": _namespace(array, "array"),
    }
    return modules


TRUSTED_MODULES = _modules()
_STAR_MODULES = frozenset([*TRUSTED_MODULES, "re", "numpy", "numpy.testing"])


def trusted_module(name: str) -> SimpleNamespace | None:
    """A trusted module by name; numpy only when it is installed, it and `re` on first use."""
    if name == "re" and "re" not in TRUSTED_MODULES:
        TRUSTED_MODULES["re"] = timed_re()
    if name in ("numpy", "numpy.testing") and "numpy" not in TRUSTED_MODULES:
        numpy = _numpy()
        if numpy is None:
            return None
        TRUSTED_MODULES.update({"numpy": numpy, "numpy.testing": numpy.testing})
    return TRUSTED_MODULES.get(name)


def star_exports(name: str) -> set[str]:
    """The names `from <name> import *` binds, read from the real module (its `__all__`, else its
    public names): only for the modules the trusted side offers, which are imported already; any
    other star import leaves the tests' names undecidable (UnsupportedTests)."""
    if name not in _STAR_MODULES or trusted_module(name) is None:
        raise UnsupportedTests(f"from {name} import *: the names it binds are not known here")
    real = importlib.import_module(name)
    exported = getattr(real, "__all__", None)
    if exported is None:
        exported = [n for n in dir(real) if not n.startswith("_")]
    return {n for n in exported if isinstance(n, str)}


def resolve_import(stmt: ast.Import | ast.ImportFrom) -> dict[str, Any]:
    """The names an import binds on the trusted side (absent: a module it does not offer). A star
    import binds every name the module exports that the trusted side offers (`from math import *`
    makes `sqrt` the trusted `math.sqrt`, never a name of the program's)."""
    bound: dict[str, Any] = {}
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.asname and (module := trusted_module(alias.name)) is not None:
                bound[alias.asname] = module
            elif (
                not alias.asname
                and (module := trusted_module(alias.name.split(".")[0])) is not None
            ):
                bound[alias.name.split(".")[0]] = module
        return bound
    module = trusted_module(stmt.module or "")
    if module is not None and any(alias.name == "*" for alias in stmt.names):
        names = star_exports(stmt.module or "")
        bound.update({n: getattr(module, n) for n in names if hasattr(module, n)})
    for alias in stmt.names:
        if module is not None and hasattr(module, alias.name):
            bound[alias.asname or alias.name] = getattr(module, alias.name)
    return bound


def local_names(node: ast.AST) -> set[str]:
    """Names bound inside lambdas and comprehensions (never the program's)."""
    local: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Lambda):
            local |= {a.arg for a in (*sub.args.posonlyargs, *sub.args.args, *sub.args.kwonlyargs)}
        elif isinstance(sub, ast.comprehension):
            local |= {n.id for n in ast.walk(sub.target) if isinstance(n, ast.Name)}
    return local


class _Guard(ast.NodeTransformer):
    """Route repetition, powers, shifts, %-formatting and padding methods through bounded calls."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        name = _GUARD_NAMES.get(type(node.op))
        if name is None:
            return node
        return ast.Call(ast.Name(name, ast.Load()), [node.left, node.right], [])

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.FormattedValue:
        self.generic_visit(node)
        spec = node.format_spec or ast.Constant("")
        args = [node.value, ast.Constant(node.conversion), spec]
        return ast.FormattedValue(ast.Call(ast.Name("_formatted", ast.Load()), args, []), -1, None)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in (*AMPLIFYING_METHODS, "pop"):
            args = [func.value, ast.Constant(func.attr), *node.args]
            return ast.Call(ast.Name("_method", ast.Load()), args, node.keywords)
        return node


def _module_of(node: ast.expr, bound: dict[str, Any]) -> SimpleNamespace | None:
    """The trusted module (namespace) `node` names (`np`, `np.testing`), or None."""
    if isinstance(node, ast.Name):
        found = bound.get(node.id)
    elif isinstance(node, ast.Attribute):
        found = getattr(_module_of(node.value, bound), node.attr, None)
    else:
        found = None
    return found if isinstance(found, SimpleNamespace) else None


def check_trusted(expr: ast.expr, bound: dict[str, Any]) -> None:
    """Every name of an assert's trusted part must be one the trusted evaluator offers."""
    local = local_names(expr)
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise UnsupportedTests(f"{_line(node)}: attribute {node.attr} in a test")
        module = _module_of(node.value, bound) if isinstance(node, ast.Attribute) else None
        if module is not None and not hasattr(module, node.attr):
            raise UnsupportedTests(
                f"{_line(node)}: {ast.unparse(node)} is not available to the trusted evaluator"
            )
        if isinstance(node, ast.Name):
            name = node.id
            if _PLACEHOLDER.fullmatch(name) or name in local or name in (IS_INPUT, IS_SAME):
                continue
            if name not in TRUSTED_BUILTINS and name not in bound:
                raise UnsupportedTests(
                    f"{_line(node)}: {name} is not available to the trusted evaluator"
                )


def guard(expr: ast.expr) -> ast.expr:
    """`expr` with its size-amplifying operations routed through the bounded GUARDS."""
    return ast.fix_missing_locations(_Guard().visit(expr))


def evaluate(
    expr: ast.expr,
    values: list[Any],
    modules: dict[str, Any],
    returned: dict[int, str | int] | None = None,
) -> bool:
    """One assert's trusted part over the candidate's plain values; any error counts as False.
    `returned`: call index -> the shared input (or the earlier call) that call returned as the
    very object (`code_identity`)."""
    namespace: dict[str, Any] = {"__builtins__": TRUSTED_BUILTINS, **modules, **GUARDS}
    namespace.update(identity_functions(values, returned or {}))
    namespace.update({f"_v{i}": v for i, v in enumerate(values)})
    code = compile(ast.Expression(expr), "<test>", "eval")
    try:
        return bool(eval(code, namespace))  # noqa: S307 - the task's own test over plain data
    except (MemoryError, RecursionError, Unverifiable):
        raise  # out of bounds: the caller (code_scoring's worker) says the task is unverifiable
    except (TrustedGap, NotImplementedError) as e:  # the trusted side's gap, not the program's
        raise UnsupportedTests(f"the trusted evaluator cannot check this test ({e})") from e
    except Exception:  # a wrong type, a refused size or a candidate error value: the assert fails
        return False
