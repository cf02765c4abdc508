"""The tests' statements sorted by shape (imports, literals, asserts, test functions, checks),
before `code_tests` splits the asserts: nothing here runs the tests."""

from __future__ import annotations

import ast
import builtins
import copy
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from stages.verifiers.code_globals import check_no_shared_globals
from stages.verifiers.code_implicit import implicit_imports
from stages.verifiers.code_objects import bind_assert, binding
from stages.verifiers.code_raises import raises_assert
from stages.verifiers.code_trusted import (
    UnsupportedTests,
    local_names,
    resolve_import,
    star_exports,
)

STATEMENT = "__statement__"  # marks a call made as a statement: its value is not kept
_BUILTIN_NAMES = frozenset(dir(builtins))


class MissingEntryPoint(Exception):
    """The tests call only builtin names and the program defines none of them."""


def _line(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def is_docstring_or_pass(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Pass) or (
        isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
    )


def assert_call(stmt: ast.stmt) -> ast.Assert | None:
    """`np.testing.assert_allclose(a, b)` as a statement: an assert that the call returns."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name.startswith("assert_"):
            test = ast.Compare(stmt.value, [ast.Is()], [ast.Constant(None)])
            return ast.copy_location(ast.Assert(test=test, msg=None), stmt)
    return None


@dataclass
class _Parsed:
    imports: list[str] = field(default_factory=list)
    import_at: list[tuple[int, int]] = field(default_factory=list)  # each import's (line, col)
    imported: set[str] = field(default_factory=set)
    bound: dict[str, Any] = field(default_factory=dict)  # trusted names the imports bind
    entries: set[str] = field(default_factory=set)  # from solution import ... / check(entry)
    program_modules: set[str] = field(default_factory=set)  # import solution [as s]
    literals: dict[str, ast.expr] = field(default_factory=dict)
    bare: list[ast.Assert] = field(default_factory=list)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    checks: list[tuple[str, ast.Call, dict[str, str]]] = field(default_factory=list)
    # (function, its call, the literals' versions at the call)
    versions: dict[str, str] = field(default_factory=dict)  # NAME -> the key of its last literal
    rebound: set[str] = field(default_factory=set)  # names bound to a literal more than once
    objects: set[str] = field(default_factory=set)  # `s = Stack()`: kept in the sandbox


class Versions(ast.NodeTransformer):
    """A literal's name read as the binding in force where it is read (`n = 3`, an assert,
    `n = 4`, an assert: each assert sees its own `n`); the first binding keeps the plain name."""

    def __init__(self, versions: dict[str, str], skip: set[str] | frozenset[str] = frozenset()):
        self.versions = {k: v for k, v in versions.items() if k != v and k not in skip}

    def visit_Name(self, node: ast.Name) -> ast.Name:
        found = self.versions.get(node.id)
        return node if found is None else ast.copy_location(ast.Name(found, node.ctx), node)

    def read(self, node: ast.AST) -> Any:
        return self.visit(copy.deepcopy(node)) if self.versions else node


def _bind_once(kinds: dict[str, str], stmt: ast.stmt) -> None:
    """A name the tests bind by two kinds of statement (`pi = 3` and `from math import pi`, a
    literal and a `def`) makes them unsupported: which binding a read sees is not tracked across
    kinds (a literal rebound by another literal is: `Versions`)."""
    names: set[str] = set()
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        kind = "import"
        names = {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
        if isinstance(stmt, ast.ImportFrom) and stmt.module != "solution" and len(names) == 0:
            names = star_exports(stmt.module or "")
    elif isinstance(stmt, ast.Assign):
        kind = "assignment"
        names = {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    elif isinstance(stmt, ast.FunctionDef):
        kind, names = "def", {stmt.name}
    for name in names:
        if kinds.setdefault(name, kind) != kind:
            raise UnsupportedTests(f"{_line(stmt)}: {name} is bound by {kinds[name]} and by {kind}")


def _test_function(stmt: ast.FunctionDef, versions: dict[str, str]) -> ast.FunctionDef:
    """A test function of asserts and locals, its defaults read where it is defined."""
    body = [s for s in stmt.body if not is_docstring_or_pass(s)]
    if not all(isinstance(s, ast.Assert) or assert_call(s) or _local(s) for s in body):
        raise UnsupportedTests(f"{_line(stmt)}: {stmt.name}() holds more than asserts")
    fn = copy.copy(stmt)
    fn.args = Versions(versions).read(stmt.args)
    return fn


def _record_import(p: _Parsed, stmt: ast.Import | ast.ImportFrom) -> None:
    """An import of the tests' own (not of the program): sent into the sandbox at its position."""
    p.imports.append(ast.unparse(stmt))
    p.import_at.append((stmt.lineno, stmt.col_offset))
    p.imported |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
    if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
        p.imported |= star_exports(stmt.module or "")  # never the program's names
    p.bound.update(resolve_import(stmt))


def _record_assign(p: _Parsed, stmt: ast.Assign) -> None:
    """`name = ...` at the top: an object the program builds (a binding), else a literal, each
    binding of a name a version of its own (what later statements read is the one before them)."""
    name = stmt.targets[0].id  # type: ignore[attr-defined]
    if bind := binding(Versions(p.versions).read(stmt), set(p.versions) | p.objects):
        p.objects.add(name)
        p.bare.append(bind)
        return
    if name in p.objects:
        raise UnsupportedTests(f"{_line(stmt)}: {name} is bound twice")
    try:
        ast.literal_eval(stmt.value)
    except (ValueError, TypeError, SyntaxError, RecursionError) as e:
        raise UnsupportedTests(f"{_line(stmt)}: {name} is not a literal") from e
    key = name if name not in p.versions else f"{name}#{len(p.literals)}"
    p.rebound |= {name} if name in p.versions else set()
    p.literals[key] = stmt.value
    p.versions[name] = key


def parse(tests: str, reads: frozenset[str] = frozenset()) -> tuple[ast.Module, _Parsed]:
    """The tests sorted by shape; `reads`: the globals the program's functions read, none of
    which the tests may bind (`code_globals`)."""
    try:
        module = ast.parse(tests)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        raise UnsupportedTests(f"the tests do not parse: {e}") from e
    check_no_shared_globals(module, reads)
    p = _Parsed()
    defined = {s.name for s in module.body if isinstance(s, ast.FunctionDef)}
    kinds: dict[str, str] = {}
    for stmt in module.body:
        _bind_once(kinds, stmt)
        if not isinstance(stmt, (ast.Assign, ast.FunctionDef)):
            stmt = Versions(p.versions).read(stmt)
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "solution":
            p.entries |= {a.asname or a.name for a in stmt.names}
        elif isinstance(stmt, ast.Import) and any(a.name == "solution" for a in stmt.names):
            p.program_modules |= {a.asname or a.name for a in stmt.names if a.name == "solution"}
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            _record_import(p, stmt)
        elif isinstance(stmt, ast.Assert):
            p.bare.append(stmt)
        elif (call := assert_call(stmt)) is not None:
            p.bare.append(call)
        elif (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            _record_assign(p, stmt)
        elif isinstance(stmt, ast.FunctionDef):
            p.functions[stmt.name] = _test_function(stmt, p.versions)
        elif (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id in defined
        ):  # fmt: skip
            # `check(f)`, `check(candidate=f)`, `check(f, 3)`, `check(solution.f)`: a test
            # function of the tests', expanded out here with its arguments bound (bind_call),
            # never a statement sent into the sandbox, where `check` may be the program's
            p.checks.append((stmt.value.func.id, stmt.value, dict(p.versions)))
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            # `sort_in_place(xs)`: a call for its effect, which later asserts read
            test = ast.Call(ast.Name(STATEMENT, ast.Load()), [stmt.value], [])
            p.bare.append(ast.copy_location(ast.Assert(test=test, msg=None), stmt))
        elif isinstance(stmt, ast.Try):  # try/except expecting a raise: code_raises
            p.bare.append(raises_assert(stmt))
        elif not is_docstring_or_pass(stmt):
            raise UnsupportedTests(f"{_line(stmt)}: unsupported statement {type(stmt).__name__}")
    return module, p


def _local(stmt: ast.stmt) -> bool:
    """`result = add(2, 3)` in a test function: one name assigned once."""
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name))  # fmt: skip


def asserts_of(fn: ast.FunctionDef) -> list[ast.Assert]:
    """`fn`'s asserts, its locals (`result = add(2, 3)`, then `assert result == 5`) written in
    where they are read. A local must be read exactly once, after it is bound, and at most one
    local may be more than a literal, so every program call is made once and in the order written;
    anything else is unsupported."""
    pending: dict[str, ast.expr] = {}
    reads: dict[str, int] = {}
    asserts: list[ast.Assert] = []
    computed: list[str] = []  # the local that is more than a literal: read by the next assert
    loads = Counter(n.id for s in fn.body for n in ast.walk(s)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))  # fmt: skip
    kept: set[str] = set()
    for stmt in fn.body:
        found = stmt if isinstance(stmt, ast.Assert) else assert_call(stmt)
        node = stmt.value if _local(stmt) else found  # type: ignore[attr-defined]
        if node is not None and set(pending) & local_names(node):
            raise UnsupportedTests(f"{_line(stmt)}: a local of {fn.name}() rebound in a scope")
        if _local(stmt):
            name = stmt.targets[0].id  # type: ignore[attr-defined]
            if name in reads:
                raise UnsupportedTests(f"{_line(stmt)}: {name} is assigned twice in {fn.name}()")
            reads[name] = 0
            value = _Locals(pending, reads).visit(copy.deepcopy(stmt.value))  # type: ignore[attr-defined]
            if loads[name] > 1 and isinstance(value, ast.Call) and not _is_literal(value):
                # read twice: the call's result is kept in the sandbox (code_objects) under a
                # name of this function's, and each read reads it there, as Python reads it
                kept.add(name)
                asserts.append(bind_assert(value, f"{name}__local_of_{fn.name}", stmt))
                pending[name] = ast.Name(f"{name}__local_of_{fn.name}", ast.Load())
                continue
            computed += [] if _is_literal(stmt.value) else [name]  # type: ignore[attr-defined]
            pending[name] = value
        elif found is not None:
            asserts.append(_Locals(pending, reads).visit(copy.deepcopy(found)))
            if any(reads[n] == 0 for n in computed):
                raise UnsupportedTests(f"{_line(stmt)}: {fn.name}() reads a local out of order")
    if len(computed) > 1 or any(n != 1 for k, n in reads.items() if k not in kept):
        raise UnsupportedTests(f"{_line(fn)}: {fn.name}() has locals not read exactly once")
    return asserts


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return False
    return True


class _Locals(ast.NodeTransformer):
    def __init__(self, pending: dict[str, ast.expr], reads: dict[str, int]) -> None:
        self.pending, self.reads = pending, reads

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id not in self.pending:
            return node
        if not isinstance(node.ctx, ast.Load):
            raise UnsupportedTests(f"{_line(node)}: a local of the test rebound")
        self.reads[node.id] += 1
        return ast.copy_location(copy.deepcopy(self.pending[node.id]), node)


def candidate_names(module: ast.Module, p: Any, defines: frozenset[str] | set[str]) -> set[str]:
    """The names the tests take from the program: free names that are neither builtins nor bound
    by the tests themselves (their imports, literals, functions, or modules they use without
    importing, which `p.bound` gains), plus the entry points the tests name."""
    local = local_names(module)
    names = {n.id for n in ast.walk(module) if isinstance(n, ast.Name)} - local
    bound_by_tests = p.imported | set(p.literals) | set(p.functions) | p.program_modules
    implicit = implicit_imports(module, names - bound_by_tests - _BUILTIN_NAMES - p.entries)
    p.bound.update(implicit)
    bound_by_tests |= set(implicit)
    candidate = {n for n in names if n not in _BUILTIN_NAMES and n not in bound_by_tests}
    entries = {
        a.id for _, call, _ in p.checks for a in (*call.args, *(k.value for k in call.keywords))
        if isinstance(a, ast.Name) and a.id not in bound_by_tests
    }  # fmt: skip
    candidate |= p.entries | entries | p.program_modules
    if not candidate:
        called = {
            n.func.id for n in ast.walk(module)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _BUILTIN_NAMES
        }  # fmt: skip
        if called and not called & set(defines):
            raise MissingEntryPoint(
                f"the tests call only builtin names ({', '.join(sorted(called))}) and the program "
                "defines none of them"
            )
    return candidate


def bind_call(fn: ast.FunctionDef, call: ast.Call | None) -> dict[str, ast.expr]:
    """What each parameter of the tests' function `fn` is bound to by `call` (None: called with no
    arguments, as pytest calls `test_*`), as Python binds it: positional, keyword or its default.
    A default is the tests' (`def test_x(*, expected=9)`), evaluated out here like any expected
    value, never a name the program binds. A parameter left unbound (a fixture), `*args`,
    `**kwargs` or a starred argument make the tests unsupported."""
    a = fn.args
    args = call.args if call is not None else []
    keywords = call.keywords if call is not None else []
    if a.vararg or a.kwarg or any(isinstance(x, ast.Starred) for x in args):
        raise UnsupportedTests(f"{_line(fn)}: {fn.name}() with *args or **kwargs")
    positional = [p.arg for p in (*a.posonlyargs, *a.args)]
    if len(args) > len(positional):
        raise UnsupportedTests(f"{_line(call)}: {fn.name}() given too many arguments")
    bound: dict[str, ast.expr] = dict(zip(positional, args, strict=False))
    by_keyword = {p.arg for p in (*a.args, *a.kwonlyargs)}
    for k in keywords:
        if k.arg is None or k.arg not in by_keyword or k.arg in bound:
            raise UnsupportedTests(f"{_line(call)}: {fn.name}() given argument {k.arg}")
        bound[k.arg] = k.value
    defaults = dict(zip(positional[len(positional) - len(a.defaults) :], a.defaults, strict=True))
    defaults |= {p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d}
    for name in (*positional, *(p.arg for p in a.kwonlyargs)):
        if name not in bound and name not in defaults:
            raise UnsupportedTests(f"{_line(fn)}: {fn.name}() takes {name} (a fixture)")
        bound.setdefault(name, defaults.get(name))  # type: ignore[arg-type]
    return bound
