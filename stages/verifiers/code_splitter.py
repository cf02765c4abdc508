"""The splitter of one assert: which of its parts are the program's (sent into the sandbox as
calls with their inputs, `_v<i>` placeholders out here) and which stay on the trusted side (the
expected values and the comparison). `code_tests.plan` runs it over every assert of the tests, in
the order written; the rules of whose a name is are in `code_tests`' docstring."""

from __future__ import annotations

import ast
import builtins
import copy
from collections.abc import Iterable
from typing import Any

from stages.verifiers.code_conditional import check_unconditional
from stages.verifiers.code_groups import unpacked_display
from stages.verifiers.code_identity import SameIdentity, UndecidableIdentity
from stages.verifiers.code_inputs import (
    Fold,
    InputIdentity,
    Originals,
    ShortCircuit,
    Substitute,
    SubstituteNodes,
    check_reads_held,
    evaluation_order,
    expected_constants,
    reads_beside_calls,
    received,
    sendable_scopes,
)
from stages.verifiers.code_objects import BIND, split_binding
from stages.verifiers.code_parse import STATEMENT as _STATEMENT
from stages.verifiers.code_raises import RAISES, split_raises
from stages.verifiers.code_sandboxed import iterator_draws, reads_program_object, whole_in_sandbox
from stages.verifiers.code_trusted import UnsupportedTests, local_names

_BUILTIN_NAMES = frozenset(dir(builtins))
_PLAIN_ATTRIBUTES = frozenset(
    a for t in (str, bytes, list, tuple, dict, set, frozenset, int, float, complex) for a in dir(t)
)


def _line(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


class Splitter:
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


def splitter_for(p: Any, candidate: set[str], shared: set[str], defines: Iterable[str]) -> Splitter:
    """The splitter of the asserts of the tests `p` parsed: classes and the program's modules are
    objects; `shared` inputs keep their literal."""
    objects = {n for n in candidate if n[:1].isupper()} | p.program_modules
    splitter = Splitter(candidate, p.bound, objects, frozenset(defines))
    splitter.shared = {name: p.literals[name] for name in shared}
    splitter.tests_functions = set(p.functions)
    return splitter
