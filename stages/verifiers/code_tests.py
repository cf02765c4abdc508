"""Assert-style tests taken apart by `ast` in the trusted process, so the candidate never sees them.

Each assert is split into the parts that call the candidate's code (sent into the sandbox as
source text: the calls with their inputs, nothing else) and the rest (the expected values, the
comparison and any function wrapping it: `operator.eq`, `math.isclose` under any alias,
`np.allclose`, `re.fullmatch`, `hmac.compare_digest`), which stays here and is evaluated by
`code_trusted` over the plain values that come back. Supported shapes:

- module-level `assert EXPR` / `assert EXPR, msg` (MBPP's `test_list`): together one unit;
- `def test_*():` whose body is asserts (pytest style), with locals each read once
  (`code_parse.asserts_of`): each function one unit;
- `def check(candidate):` of asserts plus a module-level `check(entry_point)` (HumanEval): one unit
  per call, in any call shape (`check(candidate=f)`, `check(f, 3)`), parameters bound out here, a
  default the tests' value (`code_parse.bind_call`); a test function never goes into the sandbox;
- a statement calling a trusted `assert_*` function (`np.testing.assert_allclose(f(x), y)`);
- `import` / `from m import n` (run on both sides; `from solution import ...` names the candidate's
  functions; `from m import *` of a trusted module binds its exports out here), `NAME = <literal>`
  (inlined as bound where it is read, `code_parse.Versions`), docstrings and `pass`.

Whose is a name: one the tests neither bind nor take from the builtins is the program's. A builtin
name the program defines (`def sum(xs)`) is the program's, called in the sandbox, wherever an
assert calls it on plain inputs and calls nothing else of the program (`assert sum([1, 2]) == 3`);
a builtin applied to the program's results stays the trusted builtin (`assert len(f(x)) == 3`
never calls a `len` the program defines), except that one builtin name the program redefines,
called on every side of a comparison, is its own on each (`sum(123) == sum(321)`). A method of an object of the program's own class
(`Solution().two_sum(...)`, a capitalised name) runs in the sandbox; a method of a value a function
returned (`f(x).startswith('ab')`) runs out here over that value; a field it reads (`f(x).count`),
a call of what it returned, isinstance against its class and a text key go in whole
(`code_sandboxed`). Calls run in Python's order; one behind `and`/`or` that Python never reaches
is never made (`code_inputs.ShortCircuit`); one behind a condition on a program value makes
the tests unverifiable (`code_conditional`).

Anything else (loops, `with pytest.raises`, helper functions, a candidate name inside a lambda or a
comprehension, a name the trusted evaluator does not offer) makes the test set unsupported, and one
with no assert is empty: either way the task is unverifiable, never a pass."""

from __future__ import annotations

import ast
import builtins
import copy
from dataclasses import dataclass, field
from typing import Any

from stages.verifiers.code_aliasing import one_object_twice
from stages.verifiers.code_groups import call_group, unplaced
from stages.verifiers.code_identity import IS_SAME
from stages.verifiers.code_inputs import Inline, program_names
from stages.verifiers.code_parse import MissingEntryPoint, Versions, bind_call, candidate_names
from stages.verifiers.code_parse import asserts_of as _asserts_of
from stages.verifiers.code_parse import parse as _parse
from stages.verifiers.code_parts import mutable_literal, shared_names
from stages.verifiers.code_splitter import splitter_for
from stages.verifiers.code_trusted import (
    IS_INPUT,
    UnsupportedTests,
    check_trusted,
    evaluate,
    guard,
)

__all__ = ["MissingEntryPoint", "TestPlan", "UnsupportedTests", "evaluate", "plan", "program_names"]

_BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass
class Unit:
    name: str
    asserts: list[ast.expr] = field(default_factory=list)  # with candidate parts as _v<i> names


@dataclass
class TestPlan:
    """What goes into the sandbox (`imports`, `calls`, `own`) and what stays here (`units`)."""

    imports: list[list[Any]]  # [call, line]: the import runs just before that call (round 21)
    calls: list[str]  # source text of each candidate sub-expression, in _v<i> order
    units: list[Unit]
    modules: dict[str, Any]  # names the trusted side binds for its comparisons
    own: list[str] = field(default_factory=list)  # builtin names the program must define itself
    program_modules: list[str] = field(default_factory=list)  # `import solution [as s]` aliases
    originals: list[str] = field(default_factory=list)  # builtins bound as ORIGINAL names
    bindings: list[list[str]] = field(
        default_factory=list
    )  # [name, literal]: inputs held by the harness, passed only to the calls that name them
    keep: list[int] = field(default_factory=list)  # calls whose results identity checks name
    take: list[list[int]] = field(default_factory=list)  # [call, items to draw of its iterator]
    groups: list[list[Any]] = field(default_factory=list)  # code_groups.call_group per assert
    objects: list[list[Any]] = field(default_factory=list)  # [call, name]: code_objects
    raising: list[int] = field(default_factory=list)  # a try statement's calls: code_raises
    unplaced: list[int] = field(default_factory=list)  # code_groups.unplaced


def _line(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def plan(
    tests: str,
    defines: frozenset[str] | set[str] = frozenset(),
    reads: frozenset[str] = frozenset(),
) -> TestPlan:
    """Take `tests` apart for a program defining `defines` at top level (`program_names`).
    `reads`: the globals its functions read (`code_globals`: the tests may bind none of them).
    UnsupportedTests names the first statement it cannot handle; MissingEntryPoint says the tests
    call only builtin names, none of which the program defines."""
    module, p = _parse(tests, reads)
    if any(isinstance(n, ast.Name) and n.id in (IS_INPUT, IS_SAME) for n in ast.walk(module)):
        raise UnsupportedTests("the tests name a function the trusted side uses")
    candidate = candidate_names(module, p, defines)
    shared = shared_names(module, p, candidate, defines)
    literals = {k: v for k, v in p.literals.items() if k not in shared}
    candidate |= shared
    splitter = splitter_for(p, candidate, shared, defines)
    groups: list[list[Any]] = []
    starts: list[tuple[tuple[int, int], int]] = []  # a statement's (line, col) -> its first call

    def unit(name: str, asserts: list[ast.Assert], bind: dict[str, ast.expr],
             at: tuple[int, int] | None = None) -> Unit:  # fmt: skip
        inline = Inline({**literals, **bind})
        exprs = []
        for a in asserts:  # `at`: where a test function runs (its check() call, or at the end)
            one_object_twice(a.test, candidate, literals)
            first = len(splitter.calls)
            starts.append((at or _position(a), first))
            trusted = splitter.assert_expr(inline.visit(copy.deepcopy(a.test)))
            check_trusted(trusted, p.bound)
            group = call_group(trusted, first, len(splitter.calls), p.bound)
            groups.extend([group] if group else [])
            exprs.append(guard(trusted))
        return Unit(name, exprs)

    def function_unit(name: str, call: ast.Call | None, versions: dict[str, str]) -> Unit:
        fn = p.functions[name]
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
        asserts = [Versions(versions, params).read(a) for a in _asserts_of(fn)]
        bind = {k: Inline(literals).visit(copy.deepcopy(v)) for k, v in bind_call(fn, call).items()}
        passed = {a.id for n in ast.walk(fn) if isinstance(n, ast.Call)
                  for a in (*n.args, *(k.value for k in n.keywords)) if isinstance(a, ast.Name)}  # fmt: skip
        if any(mutable_literal(v) for k, v in bind.items() if k in passed):
            raise UnsupportedTests(f"{_line(fn)}: {name}() passes a list, dict or set argument on")
        return unit(name, asserts, bind, _AFTER_THE_MODULE if call is None else _position(call))

    bare = Unit("asserts")
    units: list[Unit] = [bare]
    pending = list(p.bare)  # in the order written: a check() between asserts runs between them
    for name, call, versions in p.checks:
        before = [a for a in pending if (a.lineno, a.col_offset) < (call.lineno, call.col_offset)]
        bare.asserts += unit("asserts", before, {}).asserts
        pending = pending[len(before) :]
        units.append(function_unit(name, call, versions))
    bare.asserts += unit("asserts", pending, {}).asserts
    called = {fn for fn, _, _ in p.checks}  # test_* not called: run after the module's end
    units += [function_unit(n, None, p.versions) for n in p.functions if n.startswith("test")
              and n not in called]  # fmt: skip
    imports = imports_in_place(p.imports, p.import_at, starts, len(splitter.calls))
    return _test_plan(p, splitter, [u for u in units if u.asserts], shared, groups, imports)


_AFTER_THE_MODULE = (1 << 62, 0)  # where pytest runs a test function nothing calls


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def imports_in_place(lines: list[str], at: list[tuple[int, int]],
                     starts: list[tuple[tuple[int, int], int]], calls: int) -> list[list[Any]]:  # fmt: skip
    """[call, line] per import of the tests: it runs in the sandbox just before the first call of
    the first statement written after it (red team round 21: Python binds an import's names only
    from where it stands, so `import math` after an assert leaves a program that forgot its own
    import failing that assert, and `from math import gcd` at the end never replaces the
    program's gcd). A test function's asserts run where it is called (check(f)), or after the
    module's end (pytest's test_*), never where they are written."""
    placed = []
    for line, position in zip(lines, at, strict=True):
        after = [first for start, first in starts if start > position]
        placed.append([min(after, default=calls), line])
    return placed


def _test_plan(p: Any, splitter: Any, units: list[Unit], shared: set[str],
               groups: list[list[Any]], imports: list[list[Any]]) -> TestPlan:  # fmt: skip
    """The plan the harness runs: what the parse and the splitter found, in a stable order."""
    own = sorted(splitter.own | (p.entries & _BUILTIN_NAMES))
    bindings = [[name, ast.unparse(p.literals[name])] for name in sorted(shared)]
    return TestPlan(
        imports, splitter.calls, units, p.bound, own, sorted(p.program_modules),
        originals=sorted(splitter.originals), bindings=bindings, keep=sorted(splitter.keep),
        take=sorted([k, n] for k, n in splitter.take.items()), groups=groups,
        objects=sorted([k, n] for k, n in splitter.bound_objects.items()),
        raising=sorted(splitter.raising), unplaced=unplaced(groups, splitter.calls, shared),
    )  # fmt: skip
