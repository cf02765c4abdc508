"""What goes into the sandbox besides the program: the calls, with their inputs reduced to values.

`Fold` evaluates every input sub-expression out here and writes it back as a literal
(`square(CASES[0][0])` goes in as `square(2)`, never the table of inputs and expected values);
`Originals` points the builtins a call uses at those the harness saved before the program ran;
`Inline` replaces the tests' `NAME = <literal>` names. `program_names` reads, without running it,
which names the program binds at module level."""

from __future__ import annotations

import ast
import builtins
import copy
import math
from collections.abc import Iterator
from typing import Any

from stages.verifiers.code_aliasing import identity_matters
from stages.verifiers.code_trusted import (
    GUARDS,
    IS_INPUT,
    TRUSTED_BUILTINS,
    UnsupportedTests,
    check_trusted,
    guard,
)

_BUILTIN_NAMES = frozenset(dir(builtins))
_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr)


def _line(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def _constructed(name: str, *args: ast.expr) -> ast.expr:
    return ast.Call(ast.Name(name, ast.Load()), list(args), [])


def _literal_node(value: Any, depth: int = 0) -> ast.expr | None:
    """An expression of literals (and `set()`, `frozenset(...)`, `float('nan')`, `complex(...)`,
    `range(...)`) that evaluates to `value`, for plain values only; None otherwise."""
    if depth > 20:
        return None
    kind = type(value)
    if value is None or kind in (bool, int, str, bytes):
        return ast.Constant(value)
    if kind is float:
        return (
            ast.Constant(value)
            if math.isfinite(value)
            else _constructed("float", ast.Constant(repr(value)))
        )
    if kind is complex:
        parts = [_literal_node(value.real), _literal_node(value.imag)]
        return _constructed("complex", *parts)  # type: ignore[arg-type]
    if kind is range:
        return _constructed(
            "range", *(ast.Constant(x) for x in (value.start, value.stop, value.step))
        )
    if kind in (list, tuple, set, frozenset):
        items = [_literal_node(x, depth + 1) for x in value]
        if any(x is None for x in items):
            return None
        if kind is list or kind is tuple:
            return (ast.List if kind is list else ast.Tuple)(items, ast.Load())
        if kind is set and items:
            return ast.Set(items)
        return _constructed(kind.__name__, *([ast.List(items, ast.Load())] if items else []))
    if kind is dict:
        keys = [_literal_node(k, depth + 1) for k in value]
        values = [_literal_node(v, depth + 1) for v in value.values()]
        return None if None in keys or None in values else ast.Dict(keys, values)
    return None


def trusted_literal(expr: ast.expr, bound: dict[str, Any]) -> ast.expr | None:
    """`expr` (no candidate value in it) evaluated out here, as a literal; None when it uses what
    the trusted side does not offer or its value has no literal form."""
    try:
        check_trusted(expr, bound)
        code = compile(ast.Expression(guard(copy.deepcopy(expr))), "<input>", "eval")
        value = eval(code, {"__builtins__": TRUSTED_BUILTINS, **bound, **GUARDS})  # noqa: S307
    except Exception:  # noqa: BLE001 - left as written: the sandbox evaluates it
        return None
    node = _literal_node(value)
    if node is None or len(ast.unparse(node)) > 100_000 or identity_matters(value):
        return None
    return node


ORIGINAL = (
    "__rlvr_{}__"  # the harness binds these to the builtins as they were before the program ran
)


class Originals(ast.NodeTransformer):
    """A builtin in a call that goes in (`map(f, xs)`, `sorted(xs, key=f)`) is the real one, not
    whatever the program rebound `builtins.map` to."""

    def __init__(self, splitter: Any, own: ast.AST | None) -> None:
        self.splitter = splitter
        self.own = own  # the name of a builtin-named call that is the program's: left as it is

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if (
            node is self.own
            or node.id not in _BUILTIN_NAMES
            or self.splitter._is_candidate(node.id)
        ):
            return node
        self.splitter.originals.add(node.id)
        return ast.Name(ORIGINAL.format(node.id), ast.Load())


class Fold(ast.NodeTransformer):
    """Inputs reduced to their values before they go in: `square(CASES[0][0])` sends `square(2)`,
    never the table of inputs and expected values that `CASES` is."""

    def __init__(self, splitter: Any, root: ast.expr) -> None:
        self.splitter = splitter
        self.root = root  # the call itself (a builtin-named one of the program's) stays a call

    def visit(self, node: ast.AST) -> ast.AST:
        if (
            node is not self.root
            and isinstance(node, ast.expr)
            and not self.splitter._mentions_candidate(node)
        ):
            try:
                ast.literal_eval(node)
                return node  # already a literal
            except (ValueError, TypeError, SyntaxError, RecursionError):
                pass
            folded = trusted_literal(node, self.splitter.bound)
            if folded is not None:
                return folded
            node = self.generic_visit(node)
            if any(isinstance(n, ast.Subscript) for n in ast.walk(node)):  # a table, sent whole
                raise UnsupportedTests(
                    f"{_line(node)}: input {ast.unparse(node)[:60]} has no value to send"
                )
            return node
        return self.generic_visit(node)


class Inline(ast.NodeTransformer):
    """Replace names bound by `NAME = <literal>` with the literal (and `candidate` by the entry)."""

    def __init__(self, literals: dict[str, ast.expr]) -> None:
        self.literals = literals

    def visit_Name(self, node: ast.Name) -> ast.expr:
        literal = self.literals.get(node.id)
        return node if literal is None else copy.deepcopy(literal)


def program_names(program: str) -> frozenset[str] | None:
    """Names the program binds at module level, read from its syntax tree without running it
    (None when it does not parse). Bindings made at run time (`globals()[...]`) are not seen."""
    try:
        module = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names: set[str] = set()
    stack: list[ast.AST] = list(module.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue  # their bodies are another scope
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        if not isinstance(node, (ast.Lambda, *_SCOPES[1:5])):
            stack.extend(ast.iter_child_nodes(node))
    return frozenset(names)


class Substitute(ast.NodeTransformer):
    """Names replaced by copies of expressions (placeholders by the inputs as written)."""

    def __init__(self, by_name: dict[str, ast.expr]) -> None:
        self.by_name = by_name

    def visit_Name(self, node: ast.Name) -> ast.expr:
        found = self.by_name.get(node.id)
        return node if found is None else ast.copy_location(copy.deepcopy(found), node)


class SubstituteNodes(ast.NodeTransformer):
    """These Name nodes (by id) replaced by copies of expressions."""

    def __init__(self, by_node: dict[int, ast.expr]) -> None:
        self.by_node = by_node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        found = self.by_node.get(id(node))
        return node if found is None else ast.copy_location(copy.deepcopy(found), node)


class InputIdentity(ast.NodeTransformer):
    """`f(xs) is xs` (or `is not`, either way round) for a shared input `xs` becomes
    `_is_input(f(xs), 'xs')`: whether the call returned the very object passed in, as the harness
    saw it in the sandbox (`code_values.returned_inputs`), never two copies compared by identity."""

    def __init__(self, shared: dict[str, ast.expr], program_call: Any) -> None:
        self.shared, self.program_call = shared, program_call

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return node
        for value, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
            if isinstance(other, ast.Name) and other.id in self.shared and self.program_call(value):
                same = _constructed(IS_INPUT, value, ast.Constant(other.id))
                return same if isinstance(node.ops[0], ast.Is) else ast.UnaryOp(ast.Not(), same)
        return node


def evaluation_order(node: ast.AST) -> Iterator[ast.AST]:
    """`node`'s sub-expressions in the order Python evaluates them: a call comes after its
    function and its arguments (`f(xs) == max(xs)` reads the second `xs` after `f` ran)."""
    if not isinstance(node, ast.Call):
        yield node
    children: Any = ast.iter_child_nodes(node)
    if isinstance(node, ast.Dict):  # key, value, key, value (iter_child_nodes gives keys first)
        children = [
            c for pair in zip(node.keys, node.values, strict=True) for c in pair if c is not None
        ]
    for child in children:
        yield from evaluation_order(child)
    if isinstance(node, ast.Call):
        yield node


# What reads an object when it is evaluated (`len(nums)`, `nums[0]`, `nums == ...`), as against
# what holds it for later (a display, `and`/`or`, a conditional, a lazy builtin such as zip).
_CONSUMERS = (ast.Compare, ast.BinOp, ast.UnaryOp, ast.Subscript, ast.Attribute, ast.Call,
              ast.FormattedValue)  # fmt: skip
_LAZY = frozenset(["iter", "reversed", "zip", "map", "filter", "enumerate"])


def _consumer(name: ast.Name, parents: dict[int, ast.AST]) -> ast.AST | None:
    node: ast.AST = name
    while id(node) in parents:
        node = parents[id(node)]
        lazy = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in _LAZY  # fmt: skip
        if isinstance(node, _CONSUMERS) and not lazy:
            return node
    return None


def check_reads_held(node: ast.expr, shared: Any, program_call: Any) -> None:
    """`nums == copy_list(nums)`: Python holds the object `nums` names and reads it only when the
    comparison runs, after the call that may change it. A shared input held so across a program
    call (a comparison, operator, subscript or builtin call that reads it after one) makes the
    tests unsupported: the read as written would not be what Python compares."""
    arguments: set[int] = set()
    for call in ast.walk(node):
        if program_call(call):
            arguments |= set(received(call, shared))  # type: ignore[arg-type]
    parents = {id(c): p for p in ast.walk(node) for c in ast.iter_child_nodes(p)}
    order = list(evaluation_order(node))
    for k, sub in enumerate(order):
        if not (isinstance(sub, ast.Name) and sub.id in shared and id(sub) not in arguments):
            continue
        scope = _consumer(sub, parents) or node
        inside = {id(n) for n in ast.walk(scope)}
        if any(id(later) in inside and program_call(later) for later in order[k + 1 :]):
            raise UnsupportedTests(
                f"{_line(sub)}: input {sub.id} is read by Python after a later program call"
            )


_GUESSABLE = frozenset([None, True, False, 0, 1, "", b""])  # nothing a program learns from


def expected_constants(node: ast.AST, program_call: Any) -> set[Any]:
    """The constants of an assert outside its program calls: its expected values' parts."""
    found: set[Any] = set()
    stack = [node]
    while stack:
        sub = stack.pop()
        if program_call(sub):
            continue
        if isinstance(sub, ast.Constant) and sub.value.__hash__ is not None:
            found.add(sub.value)
        stack.extend(ast.iter_child_nodes(sub))
    return found - _GUESSABLE


def sendable_scopes(node: ast.expr, expected: set[Any], is_candidate: Any) -> bool:
    """Whether the lambdas in a program call (`apply_twice(lambda x: x * 2, 3)`) may go in with
    it: each a direct argument of a call, reading only its parameters and builtins the program
    does not define, without comprehensions or defaults, and holding no constant of the assert's
    expected values (so no answer key goes in inside one). Comprehensions never go in."""
    direct = {id(a) for c in ast.walk(node) if isinstance(c, ast.Call)
              for a in (*c.args, *(k.value for k in c.keywords))}  # fmt: skip
    for scope in (n for n in ast.walk(node) if isinstance(n, _SCOPES)):
        if not isinstance(scope, ast.Lambda) or id(scope) not in direct:
            return False
        arguments = scope.args
        params = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
        params |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a}
        if arguments.defaults or any(arguments.kw_defaults):
            return False
        for sub in ast.walk(scope.body):
            if isinstance(sub, _SCOPES):
                return False
            if (
                isinstance(sub, ast.Name)
                and sub.id not in params
                and (sub.id not in _BUILTIN_NAMES or is_candidate(sub.id))
            ):
                return False
            if isinstance(sub, ast.Constant) and sub.value in expected:
                return False
    return True


def received(call: ast.Call, shared: dict[str, ast.expr]) -> dict[int, str]:
    """The shared inputs a program call receives, anywhere in its arguments (`f(xs)`,
    `f(grid=[xs])`): id of each such Name -> its name."""
    return {
        id(n): n.id for arg in (*call.args, *(k.value for k in call.keywords))
        for n in ast.walk(arg) if isinstance(n, ast.Name) and n.id in shared
    }  # fmt: skip


def reads_beside_calls(trusted: ast.expr, reads: set[str]) -> set[str]:
    """The placeholders among `reads` (inputs read back) that a comparison sets against another
    of the program's values (`f(nums) == max(nums)`, `xs == ys` after `f(xs, ys)`): there a read
    may serve as an expected value."""
    found: set[str] = set()
    for node in ast.walk(trusted):
        if isinstance(node, ast.Compare):
            used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                    and n.id.startswith("_v") and n.id[2:].isdigit()}  # fmt: skip
            if len(used) > 1:
                found |= used & reads
    return found


class ShortCircuit(ast.NodeTransformer):
    """`'z' not in d or lookup(d, 'z') == 0`: an operand of `and`/`or` (or an `if` test) that uses
    nothing of the program is decided out here, and what Python never reaches after it is dropped,
    so a call Python never makes is never made (nor its error counted)."""

    def __init__(self, independent: Any, bound: dict[str, Any]) -> None:
        self.independent, self.bound = independent, bound

    def _truth(self, node: ast.expr) -> bool | None:
        if not self.independent(node):
            return None
        try:
            check_trusted(node, self.bound)
            code = compile(ast.Expression(guard(copy.deepcopy(node))), "<test>", "eval")
            return bool(eval(code, {"__builtins__": TRUSTED_BUILTINS, **self.bound, **GUARDS}))  # noqa: S307
        except Exception:  # noqa: BLE001 - left as written: decided with the rest
            return None

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        self.generic_visit(node)
        stops = isinstance(node.op, ast.Or)  # `or` stops at a true operand, `and` at a false one
        kept: list[ast.expr] = []
        for k, value in enumerate(node.values):
            truth = self._truth(value)
            if truth is None or truth is stops or k == len(node.values) - 1:
                kept.append(value)
            if truth is stops:
                break  # Python never evaluates what follows
        return kept[0] if len(kept) == 1 else ast.BoolOp(node.op, kept)

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        truth = self._truth(node.test)
        return node if truth is None else (node.body if truth else node.orelse)
