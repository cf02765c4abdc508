"""Assert-style tests taken apart by `ast` in the trusted process, so the candidate never sees them.

Each assert's expression is split into the parts that call the candidate's code (sent into the
sandbox as source text: inputs only) and the rest (the expected values and the comparison), which
stays here and is evaluated over the plain values that come back. Supported shapes:

- module-level `assert EXPR` / `assert EXPR, msg` (MBPP's `test_list`): together one unit;
- `def test_*():` whose body is asserts (pytest style): each function one unit;
- `def check(candidate):` of asserts plus a module-level `check(entry_point)` (HumanEval): one unit;
- `import` / `from m import n` (run on both sides; `from solution import ...` names the candidate's
  functions), `NAME = <literal>` (inlined), docstrings and `pass`.

Anything else (loops, `with pytest.raises`, helper functions, a candidate name inside a lambda or a
comprehension, `**` / `*` / `<<` over a candidate's value) makes the test set unsupported, and a
test set with no assert is empty: either way the task is unverifiable, never a pass."""

from __future__ import annotations

import ast
import builtins
import importlib
import math
from dataclasses import dataclass, field
from typing import Any

_TRUSTED_CALLS = {
    "abs", "all", "any", "bool", "dict", "float", "frozenset", "int", "isinstance", "len", "list",
    "max", "min", "repr", "reversed", "round", "set", "sorted", "str", "sum", "tuple", "type",
    "zip", "enumerate", "complex", "bytes", "callable",
}  # fmt: skip
_TRUSTED_ATTR_CALLS = {"math.isclose", "math.fabs", "math.isnan", "math.isinf", "math.floor",
                       "math.ceil", "cmath.isclose"}  # fmt: skip
_TRUSTED_NAMES = {"True", "False", "None", "float", "int", "str", "list", "dict", "set", "tuple",
                  "bool", "type", "Exception", "ValueError", "TypeError"}  # fmt: skip
_BLOWUP_OPS = (ast.Pow, ast.Mult, ast.LShift, ast.MatMult)


class UnsupportedTests(Exception):
    """The tests have a shape this decomposer does not take apart; the message says which."""


@dataclass
class Unit:
    name: str
    asserts: list[ast.expr] = field(default_factory=list)  # with candidate parts as _v<i> names


@dataclass
class TestPlan:
    """What goes into the sandbox (`imports`, `calls`) and what stays here (`units`)."""

    imports: list[str]
    calls: list[str]  # source text of each candidate sub-expression, in _v<i> order
    units: list[Unit]
    modules: dict[str, Any]  # names the trusted side imported for its comparisons


def _line(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


class _Splitter:
    def __init__(self, candidate_names: set[str], literals: dict[str, ast.expr]) -> None:
        self.candidate = candidate_names
        self.literals = literals
        self.calls: list[str] = []

    def _mentions_candidate(self, node: ast.AST) -> bool:
        return any(
            isinstance(n, ast.Name) and n.id in self.candidate and n.id not in self.literals
            for n in ast.walk(node)
        )

    def _placeholder(self, node: ast.expr) -> ast.Name:
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                                ast.GeneratorExp, ast.NamedExpr)):  # fmt: skip
                raise UnsupportedTests(
                    f"{_line(node)}: a candidate call with a lambda or comprehension"
                )
        inlined = _Inline(self.literals).visit(ast.parse(ast.unparse(node), mode="eval"))
        self.calls.append(ast.unparse(inlined.body))
        return ast.copy_location(ast.Name(id=f"_v{len(self.calls) - 1}", ctx=ast.Load()), node)

    def split(self, node: ast.expr) -> ast.expr:
        if not self._mentions_candidate(node):
            return _Inline(self.literals).visit(node)
        if isinstance(node, ast.Name):
            return self._placeholder(node)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in self.candidate:
                return self._placeholder(node)
            dotted = ast.unparse(func)
            if isinstance(func, ast.Name) and func.id not in _TRUSTED_CALLS:
                raise UnsupportedTests(f"{_line(node)}: call to {dotted}() around a candidate call")
            if isinstance(func, ast.Attribute) and dotted not in _TRUSTED_ATTR_CALLS:
                if self._mentions_candidate(func.value) and not isinstance(func.value, ast.Name):
                    func = ast.Attribute(
                        value=self.split(func.value), attr=func.attr, ctx=ast.Load()
                    )
                else:  # e.g. `mod.f(...)` where the solution defines `mod`: all of it goes in
                    return self._placeholder(node)
            if any(isinstance(a, ast.Starred) for a in node.args):
                raise UnsupportedTests(f"{_line(node)}: starred arguments")
            return ast.Call(
                func=func,
                args=[self.split(a) for a in node.args],
                keywords=[ast.keyword(arg=k.arg, value=self.split(k.value)) for k in node.keywords],
            )
        if isinstance(node, ast.Compare):
            return ast.Compare(
                self.split(node.left), node.ops, [self.split(c) for c in node.comparators]
            )
        if isinstance(node, ast.BoolOp):
            return ast.BoolOp(node.op, [self.split(v) for v in node.values])
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(node.op, self.split(node.operand))
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, _BLOWUP_OPS):
                raise UnsupportedTests(
                    f"{_line(node)}: {type(node.op).__name__} over a candidate value"
                )
            return ast.BinOp(self.split(node.left), node.op, self.split(node.right))
        if isinstance(node, ast.Subscript):
            return ast.Subscript(
                self.split(node.value), _Inline(self.literals).visit(node.slice), ast.Load()
            )
        if isinstance(node, ast.Attribute):
            return ast.Attribute(self.split(node.value), node.attr, ast.Load())
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return type(node)(elts=[self.split(e) for e in node.elts], ctx=ast.Load())
        raise UnsupportedTests(f"{_line(node)}: {type(node).__name__} around a candidate call")


class _Inline(ast.NodeTransformer):
    """Replace names bound by `NAME = <literal>` with the literal (and `candidate` by the entry)."""

    def __init__(self, literals: dict[str, ast.expr]) -> None:
        self.literals = literals

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.literals.get(node.id, node)


def _is_docstring_or_pass(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Pass) or (
        isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
    )


def plan(tests: str) -> TestPlan:
    """Take `tests` apart; UnsupportedTests names the first statement it cannot handle."""
    try:
        module = ast.parse(tests)
    except SyntaxError as e:
        raise UnsupportedTests(f"the tests do not parse: line {e.lineno}: {e.msg}") from e
    imports: list[str] = []
    imported: set[str] = set()
    candidate: set[str] = set()
    literals: dict[str, ast.expr] = {}
    bare: list[ast.Assert] = []
    functions: dict[str, ast.FunctionDef] = {}
    calls_of_check: list[tuple[str, str]] = []  # (function, entry point)
    for stmt in module.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "solution":
            candidate |= {a.asname or a.name for a in stmt.names}
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imports.append(ast.unparse(stmt))
            imported |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
        elif isinstance(stmt, ast.Assert):
            bare.append(stmt)
        elif (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            try:
                ast.literal_eval(stmt.value)
            except ValueError as e:
                raise UnsupportedTests(
                    f"{_line(stmt)}: {stmt.targets[0].id} is not a literal"
                ) from e
            literals[stmt.targets[0].id] = stmt.value
        elif isinstance(stmt, ast.FunctionDef):
            body = [s for s in stmt.body if not _is_docstring_or_pass(s)]
            if not all(isinstance(s, ast.Assert) for s in body):
                raise UnsupportedTests(f"{_line(stmt)}: {stmt.name}() holds more than asserts")
            functions[stmt.name] = stmt
        elif (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name) and len(stmt.value.args) == 1
            and isinstance(stmt.value.args[0], ast.Name) and not stmt.value.keywords
        ):  # fmt: skip
            calls_of_check.append((stmt.value.func.id, stmt.value.args[0].id))
        elif not _is_docstring_or_pass(stmt):
            raise UnsupportedTests(f"{_line(stmt)}: unsupported statement {type(stmt).__name__}")
    modules = {
        name: importlib.import_module(name) for name in imported if name in ("math", "cmath")
    }
    names = {n.id for n in ast.walk(module) if isinstance(n, ast.Name)}
    trusted = set(dir(builtins)) | imported | set(literals) | set(functions)
    candidate |= {n for n in names if n not in trusted}

    units: list[Unit] = []
    splitter = _Splitter(candidate, literals)

    def unit(name: str, asserts: list[ast.Assert], bind: dict[str, ast.expr]) -> Unit:
        inline = _Inline(bind)
        return Unit(name, [splitter.split(inline.visit(a.test)) for a in asserts])

    if bare:
        units.append(unit("asserts", bare, {}))
    called = {fn for fn, _ in calls_of_check}
    for fn, entry in calls_of_check:
        if fn not in functions or len(functions[fn].args.args) != 1:
            raise UnsupportedTests(f"{fn}({entry}) does not call a one-argument test function")
        param = functions[fn].args.args[0].arg
        splitter.candidate |= {entry}
        asserts = [s for s in functions[fn].body if isinstance(s, ast.Assert)]
        units.append(unit(fn, asserts, {param: ast.Name(id=entry, ctx=ast.Load())}))
    for name, fn in functions.items():
        if name.startswith("test") and name not in called:
            if fn.args.args:
                raise UnsupportedTests(f"{_line(fn)}: {name}() takes arguments (fixtures)")
            units.append(unit(name, [s for s in fn.body if isinstance(s, ast.Assert)], {}))
    units = [u for u in units if u.asserts]
    return TestPlan(imports, splitter.calls, units, modules)


def evaluate(expr: ast.expr, values: list[Any], modules: dict[str, Any]) -> bool:
    """One assert's trusted part over the candidate's plain values; any error counts as False."""
    namespace: dict[str, Any] = {
        "__builtins__": {n: getattr(builtins, n) for n in _TRUSTED_CALLS | _TRUSTED_NAMES}
    }
    namespace.update(modules, math=math)
    namespace.update({f"_v{i}": v for i, v in enumerate(values)})
    code = compile(ast.fix_missing_locations(ast.Expression(expr)), "<test>", "eval")
    try:
        return bool(eval(code, namespace))  # noqa: S307 - the task's own test over plain data
    except Exception:  # a wrong type or a candidate error value makes the assert fail
        return False
