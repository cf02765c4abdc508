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
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from stages.verifiers.code_aliasing import one_object_twice
from stages.verifiers.code_conditional import check_unconditional
from stages.verifiers.code_groups import call_group, unpacked_display
from stages.verifiers.code_identity import IS_SAME, SameIdentity, UndecidableIdentity
from stages.verifiers.code_inputs import (
    Fold,
    Inline,
    InputIdentity,
    Originals,
    ShortCircuit,
    Substitute,
    SubstituteNodes,
    check_reads_held,
    evaluation_order,
    expected_constants,
    program_names,
    reads_beside_calls,
    received,
    sendable_scopes,
)
from stages.verifiers.code_objects import BIND, split_binding
from stages.verifiers.code_parse import STATEMENT as _STATEMENT
from stages.verifiers.code_parse import MissingEntryPoint, Versions, bind_call, candidate_names
from stages.verifiers.code_parse import asserts_of as _asserts_of
from stages.verifiers.code_parse import parse as _parse
from stages.verifiers.code_parts import mutable_literal, shared_names
from stages.verifiers.code_raises import RAISES, split_raises
from stages.verifiers.code_sandboxed import iterator_draws, reads_program_object, whole_in_sandbox
from stages.verifiers.code_trusted import (
    IS_INPUT,
    UnsupportedTests,
    check_trusted,
    evaluate,
    guard,
    local_names,
)

__all__ = ["MissingEntryPoint", "TestPlan", "UnsupportedTests", "evaluate", "plan", "program_names"]

_BUILTIN_NAMES = frozenset(dir(builtins))
_PLAIN_ATTRIBUTES = frozenset(
    a for t in (str, bytes, list, tuple, dict, set, frozenset, int, float, complex) for a in dir(t)
)


@dataclass
class Unit:
    name: str
    asserts: list[ast.expr] = field(default_factory=list)  # with candidate parts as _v<i> names


@dataclass
class TestPlan:
    """What goes into the sandbox (`imports`, `calls`, `own`) and what stays here (`units`)."""

    imports: list[str]
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


def _line(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


class _Splitter:
    def __init__(self, candidate: set[str], bound: dict[str, Any], objects: set[str],
                 defines: frozenset[str]) -> None:  # fmt: skip
        self.candidate = candidate  # the program's names (non-builtin, or named as the entry)
        self.bound = bound  # what the trusted side's imports bind
        self.objects = objects  # program names whose methods run in the sandbox
        self.defines = defines
        self.shadow: set[int] = set()  # ids of builtin-named calls that are the program's here
        self.calls: list[str] = []
        self.own: set[str] = set()
        self.originals: set[str] = set()  # builtins the calls that go in use, as they were
        self.shared: dict[str, ast.expr] = {}  # list/dict/set literals the program receives
        self.passed: set[str] = set()  # shared names a program call has received so far
        self.mutable_reads: list[tuple[str, str]] = []  # (placeholder, shared name) in an assert
        self.tests_functions: set[str] = set()  # the tests' own functions: never sent in
        self.keep: set[int] = set()  # calls whose results the harness keeps for `is` checks
        self.take: dict[int, int] = {}  # call index -> items to draw from the iterator it returns
        self.expected: set[Any] = set()  # the constants of the assert's expected values
        self.bound_objects: dict[int, str] = {}  # call index -> the tests' name for its result
        self.kept: set[str] = set()  # names bound to such results (`s = Stack()`)
        self.raising: set[int] = set()  # calls of a try statement (code_raises)

    def _is_candidate(self, name: str) -> bool:
        return name in self.candidate

    def _mentions_candidate(self, node: ast.AST) -> bool:
        local = local_names(node)
        return any(
            (isinstance(n, ast.Name) and self._is_candidate(n.id) and n.id not in local)
            or id(n) in self.shadow
            for n in ast.walk(node)
        )

    def _placeholder(self, node: ast.expr, keep_value: bool = True) -> ast.Name:
        if not sendable_scopes(node, self.expected, self._is_candidate):
            raise UnsupportedTests(
                f"{_line(node)}: a candidate call with a lambda or comprehension"
            )
        if any(isinstance(n, ast.Name) and n.id in self.tests_functions for n in ast.walk(node)):
            raise UnsupportedTests(f"{_line(node)}: a function of the tests' around a program call")
        self.own |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                     and n.id in _BUILTIN_NAMES and self._is_candidate(n.id)}  # fmt: skip
        self.own |= {n.func.id for n in ast.walk(node) if id(n) in self.shadow}  # type: ignore[attr-defined]
        if isinstance(node, ast.Name) and node.id in self.shared:
            self.mutable_reads.append((f"_v{len(self.calls)}", node.id))
        root = copy.deepcopy(node)
        own = root.func if id(node) in self.shadow and isinstance(root, ast.Call) else None
        source = ast.unparse(Originals(self, own).visit(Fold(self, root).visit(root)))
        self.calls.append(source if keep_value else f"({source}, None)[1]")
        return ast.copy_location(ast.Name(id=f"_v{len(self.calls) - 1}", ctx=ast.Load()), node)

    def assert_expr(self, node: ast.expr) -> ast.expr:
        """Split one assert, deciding first which builtin-named calls are the program's in it:
        where it calls nothing else of the program, those on plain inputs on one side of a
        comparison: `sorted("cba") == list("abc")` calls the program's `sorted` against the
        trusted `list`, and, where the program redefines `list` too, also the program's `list`
        against the trusted `sorted`."""
        self.mutable_reads = []
        self.expected = expected_constants(node, self._program_call)
        node = ShortCircuit(self._independent, self.bound).visit(node)
        check_unconditional(node, self._program_call, self._independent)
        node = InputIdentity(self.shared, self._program_call).visit(node)
        check_reads_held(node, self.shared, self._program_call)
        node, passed = self._read_unpassed_as_written(node)
        trusted = self._split_assert(node)
        self.passed |= passed
        identity = SameIdentity()
        try:
            trusted = identity.visit(trusted)
        except UndecidableIdentity as e:
            raise UnsupportedTests(f"identity between parts of the program's values: {e}") from e
        self.keep |= identity.keep
        reads = dict(self.mutable_reads)
        beside = reads_beside_calls(trusted, set(reads))
        if beside:
            # An input read after a call could change it, compared with another of the program's
            # values, serves as an expected value: it must hold both as the program left it
            # (Python) and as the tests wrote it (no answer key the program rewrote).
            as_written = Substitute({k: self.shared[reads[k]] for k in beside})
            trusted = ast.BoolOp(ast.And(), [trusted, as_written.visit(copy.deepcopy(trusted))])
        return trusted

    def _independent(self, node: ast.AST) -> bool:
        """Uses nothing of the program: no name of its, not even a builtin's it redefines."""
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        return not self._mentions_candidate(node) and not names & self.defines

    def _program_call(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and any(
            isinstance(n, ast.Name) and n.id in self.candidate and n.id not in self.shared
            for n in ast.walk(node.func)
        )

    def _read_unpassed_as_written(self, node: ast.expr) -> tuple[ast.expr, set[str]]:
        """A shared input no program call received before it is read (in Python's order) is
        read as the tests wrote it, out here: only the calls that receive it send it in, and
        no read of it is the program's until then."""
        arguments: dict[int, str] = {}
        for call in ast.walk(node):
            if self._program_call(call):
                arguments |= received(call, self.shared)  # type: ignore[arg-type]
        seen, unpassed = set(self.passed), {}
        for sub in evaluation_order(node):
            if self._program_call(sub):
                seen |= set(received(sub, self.shared).values())  # type: ignore[arg-type]
            elif isinstance(sub, ast.Name) and sub.id in self.shared and id(sub) not in arguments:
                unpassed |= {} if sub.id in seen else {id(sub): self.shared[sub.id]}
        return SubstituteNodes(unpassed).visit(node), set(arguments.values())

    def _split_assert(self, node: ast.expr) -> ast.expr:
        self.shadow = set()
        if self._mentions_candidate(node):
            return self.split(node)
        sides = [node.left, *node.comparators] if isinstance(node, ast.Compare) else [node]
        calls = [found for side in sides if (found := self._own_builtin_calls(side))]
        owned = [{id(c) for c in found} for found in calls]
        if len(owned) < 2 or len({c.func.id for found in calls for c in found}) == 1:  # type: ignore[attr-defined]
            # One builtin name the program redefines, on every side (`sum(123) == sum(321)`):
            # Python calls the program's everywhere, so no side is the trusted builtin's.
            self.shadow = set().union(*owned)
            return self.split(node)
        # Builtins the program redefines on both sides: each side in turn is the program's
        # against the others as the trusted builtins, and both readings must hold.
        readings = []
        for ids in owned:
            self.shadow = ids
            readings.append(self.split(node))
        return ast.BoolOp(ast.And(), readings)

    def _own_builtin_calls(self, node: ast.expr) -> list[ast.Call]:
        def defined(n: ast.AST) -> bool:
            return (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                    and n.func.id in _BUILTIN_NAMES and n.func.id in self.defines)  # fmt: skip

        return [
            n for n in ast.walk(node) if defined(n)
            and not any(defined(a) for arg in (*n.args, *n.keywords) for a in ast.walk(arg))
        ]  # fmt: skip

    def _object_call(self, node: ast.expr) -> bool:
        """An attribute or method of the program's object, not of a plain value: it runs in the
        sandbox (`Solution().two_sum(...)`, `make_point(1, 2).x`, `make_counter().increment()`),
        while `f(x).startswith('ab')` runs out here over the value f returned."""
        root = _root_name(node)
        if root is None or not self._mentions_candidate(node):
            return False
        attribute = node.func if isinstance(node, ast.Call) else node
        of_object = (
            self._is_candidate(root)  # not a module's (`np.array(f(x)).shape` stays out here)
            and isinstance(attribute, ast.Attribute)
            and self._mentions_candidate(attribute.value)
            # a field read, not a method called (a namedtuple's `count`), goes in too
            and (
                attribute.attr not in _PLAIN_ATTRIBUTES
                or not (isinstance(node, ast.Call) or attribute.attr.startswith("_"))
            )
        )
        return of_object or (self._is_candidate(root) and root in self.objects)

    def split(self, node: ast.expr) -> ast.expr:
        if not self._mentions_candidate(node):
            return node
        if isinstance(node, ast.Name) or self._object_call(node) or self._whole(node):
            return self._placeholder(node)
        if isinstance(node, ast.Call):
            return self._split_call(node)
        if isinstance(node, ast.Compare):
            return ast.Compare(
                self.split(node.left), node.ops, [self.split(c) for c in node.comparators]
            )
        if isinstance(node, ast.BoolOp):
            return ast.BoolOp(node.op, [self.split(v) for v in node.values])
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(node.op, self.split(node.operand))
        if isinstance(node, ast.BinOp):
            return ast.BinOp(self.split(node.left), node.op, self.split(node.right))
        if isinstance(node, ast.IfExp):
            return ast.IfExp(self.split(node.test), self.split(node.body), self.split(node.orelse))
        if isinstance(node, ast.Subscript):
            return ast.Subscript(self.split(node.value), self.split(node.slice), ast.Load())
        if isinstance(node, ast.Attribute):
            return ast.Attribute(self.split(node.value), node.attr, ast.Load())
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            unpacked = unpacked_display(node, self._is_candidate)
            if unpacked is not None:
                return self.split(unpacked)
            return type(node)(elts=[self.split(e) for e in node.elts], ctx=ast.Load())
        if isinstance(node, ast.Dict):  # key, value, key, value: Python's order of calls
            pairs = [
                (k and self.split(k), self.split(v))
                for k, v in zip(node.keys, node.values, strict=True)
            ]
            return ast.Dict([k for k, _ in pairs], [v for _, v in pairs])
        if isinstance(node, ast.JoinedStr):  # an f-string: formatted out here, bounded
            return ast.JoinedStr([self.split(v) for v in node.values])
        if isinstance(node, ast.FormattedValue):
            spec = node.format_spec and self.split(node.format_spec)
            return ast.FormattedValue(self.split(node.value), node.conversion, spec)
        raise UnsupportedTests(f"{_line(node)}: {type(node).__name__} around a candidate call")

    def _whole(self, node: ast.expr) -> bool:
        return whole_in_sandbox(
            node, self._mentions_candidate, self._program_call, self._is_candidate
        )

    def _reads_program_object(self, node: ast.Call) -> bool:
        def program_value(n: ast.AST) -> bool:  # `next(g)`, `len(s)`: an object kept in there
            return self._program_call(n) or isinstance(n, ast.Name) and n.id in self.kept

        return reads_program_object(node, self._is_candidate, program_value)

    def _split_call(self, node: ast.Call) -> ast.expr:
        func = node.func
        if isinstance(func, ast.Name) and func.id == BIND:
            return split_binding(self, node)
        if isinstance(func, ast.Name) and func.id == RAISES:
            return split_raises(self, node)
        if isinstance(func, ast.Name) and func.id == _STATEMENT:
            # run for its effect: only an error it raises fails the unit
            done = self._placeholder(node.args[0], keep_value=False)
            return ast.Subscript(ast.Tuple([done, ast.Constant(True)], ast.Load()),
                                 ast.Constant(1), ast.Load())  # fmt: skip
        if (isinstance(func, ast.Name) and self._is_candidate(func.id)) or id(node) in self.shadow:
            return self._placeholder(node)
        if self._reads_program_object(node):
            return self._placeholder(node)
        # A program function passed to map/filter or as a key: the call goes in (inputs only).
        as_function = [k.value for k in node.keywords if k.arg == "key"]
        if isinstance(func, ast.Name) and func.id in ("map", "filter") and node.args:
            as_function.append(node.args[0])
        if any(isinstance(a, ast.Name) and self._is_candidate(a.id) for a in as_function):
            return self._placeholder(node)
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise UnsupportedTests(f"{_line(node)}: starred arguments around a candidate call")
        if isinstance(func, ast.Attribute):  # a method of a value, or a module's function
            func = ast.Attribute(self.split(func.value), func.attr, ast.Load())
        args = [self.split(a) for a in node.args]
        self.take |= iterator_draws(node, args, self.bound, self._program_call, self._is_candidate)
        keywords = [ast.keyword(arg=k.arg, value=self.split(k.value)) for k in node.keywords]
        return ast.Call(func=func, args=args, keywords=keywords)


def _splitter(p: Any, candidate: set[str], shared: set[str], defines: Iterable[str]) -> _Splitter:
    """The splitter of the asserts of the tests `p` parsed: classes and the program's modules are
    objects; `shared` inputs keep their literal."""
    objects = {n for n in candidate if n[:1].isupper()} | p.program_modules
    splitter = _Splitter(candidate, p.bound, objects, frozenset(defines))
    splitter.shared = {name: p.literals[name] for name in shared}
    splitter.tests_functions = set(p.functions)
    return splitter


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
    splitter = _splitter(p, candidate, shared, defines)

    groups: list[list[Any]] = []

    def unit(name: str, asserts: list[ast.Assert], bind: dict[str, ast.expr]) -> Unit:
        inline = Inline({**literals, **bind})
        exprs = []
        for a in asserts:
            one_object_twice(a.test, candidate, literals)
            first = len(splitter.calls)
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
        return unit(name, asserts, bind)

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
    units = [u for u in units if u.asserts]
    own = sorted(splitter.own | (p.entries & _BUILTIN_NAMES))
    bindings = [[name, ast.unparse(p.literals[name])] for name in sorted(shared)]
    return TestPlan(
        p.imports, splitter.calls, units, p.bound, own, sorted(p.program_modules),
        originals=sorted(splitter.originals), bindings=bindings, keep=sorted(splitter.keep),
        take=sorted([k, n] for k, n in splitter.take.items()), groups=groups,
        objects=sorted([k, n] for k, n in splitter.bound_objects.items()),
        raising=sorted(splitter.raising),
    )  # fmt: skip
