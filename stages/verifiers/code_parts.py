"""Which of the tests' literals the program receives as objects, whole or in part.

A list, dict or set the tests pass to a program call (`f(nums)`, `Solution().m(nums)`,
`solution.f(nums)`) is shared: the harness holds it, and reads after the call see what the
program did to it (`shared_inputs`). A part passed by a constant subscript (`f(grid[0])`) is the
same object as that part of the table in Python, so it is shared alone, under a name of its own
(`grid__0`): the rest of the table (another row, an expected value beside the input) never goes
into the sandbox, and each later read of the table reads that part back (`share_parts`). A part
the tests reach other than by constants (`f(grid[i + j])`) that holds a list, dict or set makes
the tests unsupported: which object the program received is not known here."""

from __future__ import annotations

import ast
import builtins
import copy
from typing import Any

from stages.verifiers.code_trusted import UnsupportedTests

_BUILTIN_NAMES = frozenset(dir(builtins))
Path = tuple[Any, ...]


def mutable_literal(node: ast.expr | None) -> bool:
    """A list, dict or set as written: `[1]`, `{}`, `{1}`, or an empty `set()`, `list()`, `dict()`."""
    empty = (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args
             and not node.keywords and node.func.id in ("set", "list", "dict"))  # fmt: skip
    return empty or isinstance(node, (ast.List, ast.Dict, ast.Set))


def _program_calls(root: ast.AST, candidate: set[str]) -> list[ast.Call]:
    """Calls of the program: a plain call, a method of its object, a function of `solution`."""
    return [
        n for n in ast.walk(root) if isinstance(n, ast.Call) and any(
            isinstance(f, ast.Name) and f.id in candidate and f.id not in _BUILTIN_NAMES
            for f in ast.walk(n.func))
    ]  # fmt: skip


def _arguments(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(k.value for k in call.keywords)]


def _whole_names(arg: ast.expr) -> list[ast.Name]:
    """The names an argument hands over as whole objects: bare, starred (`f(*args)`), inside a
    display (`f([xs])`, `f({'k': xs})`); a subscript's root hands over a part (`share_parts`)."""
    found, stack = [], [arg]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            found.append(node)
        elif isinstance(node, ast.Subscript):  # its key hands nothing over whole either
            if not isinstance(_chain(node)[0], ast.Name):
                stack.append(node.value)
        else:
            stack.extend(n for n in ast.iter_child_nodes(node) if isinstance(n, ast.expr))
    return found


def shared_inputs(module: ast.Module, p: Any, candidate: set[str]) -> set[str]:
    """The names of list/dict/set literals the tests pass whole to a program call, anywhere in its
    arguments (Python hands `f([xs])` and `f(*args)` the very objects); one rebound (two objects
    in turn under one name, which the harness holds as one) makes the tests unsupported."""
    shared = {
        a.id for n in _program_calls(module, candidate) for arg in _arguments(n)
        for a in _whole_names(arg)
        if any(mutable_literal(v) for k, v in p.literals.items() if k.split("#")[0] == a.id)
    }  # fmt: skip
    if shared & p.rebound:
        raise UnsupportedTests(f"{', '.join(sorted(shared & p.rebound))}: a rebound input")
    return shared


def _key(index: ast.expr, literals: dict[str, ast.expr]) -> Any:
    """A constant subscript's key (`0`, `-1`, `'a'`, a name bound to one), or None."""
    if isinstance(index, ast.Name) and index.id in literals:
        return _key(literals[index.id], {})
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        inner = _key(index.operand, {})
        return -inner if type(inner) is int else None
    if isinstance(index, ast.Constant) and type(index.value) in (int, str):
        return index.value
    return None


def _step(node: ast.expr, key: Any) -> ast.expr | None:
    """The element of a literal `node` at a constant `key`, or None where it cannot be told."""
    if isinstance(node, (ast.List, ast.Tuple)) and type(key) is int:
        return node.elts[key] if -len(node.elts) <= key < len(node.elts) else None
    if isinstance(node, ast.Dict) and None not in node.keys:
        found = [v for k, v in zip(node.keys, node.values, strict=True)
                 if isinstance(k, ast.Constant) and type(k.value) is type(key) and k.value == key]  # fmt: skip
        keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]  # type: ignore[union-attr]
        return found[0] if len(found) == 1 and len(keys) == len(set(keys)) else None
    return None


def _chain(node: ast.Subscript) -> tuple[ast.Name | None, list[ast.expr]]:
    """`grid[0][1]` -> (grid, [0, 1]): the root name and the indices, outermost last."""
    indices: list[ast.expr] = []
    current: ast.expr = node
    while isinstance(current, ast.Subscript):
        indices.insert(0, current.slice)
        current = current.value
    return (current if isinstance(current, ast.Name) else None), indices


def _walk(literals: dict[str, ast.expr], name: str, indices: list[ast.expr]) -> tuple[ast.expr, Path]:  # fmt: skip
    """How far constant indices lead into the literal `name`: the node reached and its path."""
    node, path = literals[name], ()
    for index in indices:
        key = _key(index, literals)
        found = None if key is None else _step(node, key)
        if found is None:
            break
        node, path = found, (*path, _normal(node, key))
    return node, path


def _normal(node: ast.expr, key: Any) -> Any:
    return key % len(node.elts) if isinstance(node, (ast.List, ast.Tuple)) else key


def _holds_mutable(node: ast.expr, below: bool) -> bool:
    inner = [n for n in ast.walk(node) if n is not node] if below else list(ast.walk(node))
    return any(mutable_literal(n) for n in inner if isinstance(n, ast.expr))


def _chains(roots: list[ast.AST]) -> list[ast.Subscript]:
    """The outermost subscript chains under `roots` (`grid[0][1]`, not its `grid[0]`)."""
    inner = {id(n.value) for r in roots for n in ast.walk(r) if isinstance(n, ast.Subscript)}
    return [n for r in roots for n in ast.walk(r)
            if isinstance(n, ast.Subscript) and id(n) not in inner]  # fmt: skip


def _parts_passed(p: Any, roots: list[ast.AST], candidate: set[str], whole: set[str]) -> dict[str, set[Path]]:  # fmt: skip
    """Literal name -> the paths of the parts program calls receive that hold a list, dict or set."""
    wanted: dict[str, set[Path]] = {}
    calls = [c for r in roots for c in _program_calls(r, candidate)]
    # A test function's local (`row = grid[0]`, then `f(row)`) and a check()'s argument may reach a
    # program call too: shared as well (a read before any call received it is still as written).
    passed = [a for c in calls for a in _arguments(c)]
    passed += [s.value for r in roots for s in ast.walk(r) if isinstance(s, ast.Assign)]
    passed += [a for _, c, _ in p.checks for a in _arguments(c)]
    for chain in _chains(passed):
        name, indices = _chain(chain)
        if name is None or name.id not in p.literals or name.id in whole:
            continue
        node, path = _walk(p.literals, name.id, indices)
        complete = len(path) == len(indices)
        if not _holds_mutable(node, below=not complete):
            continue  # nothing the program could change: the value as written goes in
        if not complete or name.id.split("#")[0] in p.rebound:
            raise UnsupportedTests(f"{ast.unparse(chain)[:60]}: a part of a table the program "
                                   "receives that cannot be placed")  # fmt: skip
        wanted.setdefault(name.id, set()).add(path)
    return wanted


def share_parts(p: Any, candidate: set[str], whole: set[str], taken: set[str]) -> set[str]:
    """Share each part of a literal a program call receives (`f(grid[0])`) under a name of its
    own, rewriting `p.literals` and the tests' reads of it; returns the new names."""
    roots: list[ast.AST] = [*p.bare, *p.functions.values(), *(c for _, c, _ in p.checks)]
    names: set[str] = set()
    for name, paths in _parts_passed(p, roots, candidate, whole).items():
        table = copy.deepcopy(p.literals[name])
        for path in sorted(paths, key=lambda q: (len(q), repr(q))):  # in one order each run
            if any(path[: len(q)] == q for q in paths if q != path):
                continue  # inside a part shared already
            part = f"{name.split('#')[0]}__{len(names)}"
            while part in taken or part in p.literals:
                part += "_"
            parent = _at(table, path[:-1])
            _replace(parent, path[-1], ast.Name(part, ast.Load()), p.literals, part)
            names.add(part)
        p.literals[name] = table
    if names:
        _Reads(p.literals, names).rewrite(roots)
    return names


def _at(node: ast.expr, path: Path) -> ast.expr:
    for key in path:
        node = _step(node, key)  # type: ignore[assignment]
    return node


def _replace(parent: ast.expr, key: Any, by: ast.Name, literals: dict[str, ast.expr],
             part: str) -> None:  # fmt: skip
    """The element of `parent` at `key` replaced by `by`, its literal kept as `literals[part]`."""
    if isinstance(parent, (ast.List, ast.Tuple)):
        literals[part], parent.elts[key] = parent.elts[key], by
        return
    assert isinstance(parent, ast.Dict)
    for k, (key_node, value) in enumerate(zip(parent.keys, parent.values, strict=True)):
        if isinstance(key_node, ast.Constant) and type(key_node.value) is type(key) \
                and key_node.value == key:  # fmt: skip
            literals[part], parent.values[k] = value, by


class _Reads(ast.NodeTransformer):
    """A read of a table with shared parts, by constant subscripts, reads the part by its name
    (`grid[0][1]` -> `grid__0[1]`) or the literal it reaches (`CASES[0][1]` -> `[1, 2, 3]`)."""

    def __init__(self, literals: dict[str, ast.expr], parts: set[str]) -> None:
        self.literals, self.parts = literals, parts

    def rewrite(self, roots: list[ast.AST]) -> None:
        for root in roots:
            self.visit(root)  # in place: the roots are statements and calls, never subscripts

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        name, indices = _chain(node)
        literal = self.literals.get(name.id) if name is not None else None
        if literal is None or not any(isinstance(n, ast.Name) for n in ast.walk(literal)):
            return self.generic_visit(node)
        reached, path = _walk(self.literals, name.id, indices)  # type: ignore[union-attr]
        if not path:
            return self.generic_visit(node)
        out: ast.expr = copy.deepcopy(reached)
        for index in indices[len(path) :]:
            out = ast.Subscript(out, self.visit(index), ast.Load())
        return ast.copy_location(out, node)


def shared_names(
    module: ast.Module, p: Any, candidate: set[str], defines: frozenset[str] | set[str]
) -> set[str]:
    """The tests' names whose list/dict/set the program receives as one object, as in Python: the
    program may change it and later reads see the change (`sort_in_place(xs)` then `assert xs ==
    [...]`). It is held by the harness, never in the program's globals; a read before any call
    received it is the literal as written, out here (`assert f(nums) == expected`). A part passed
    by a subscript (`f(grid[0])`) is shared alone, under a name of its own (`share_parts`)."""
    shared = shared_inputs(module, p, candidate)
    taken = {n.id for n in ast.walk(module) if isinstance(n, ast.Name)} | set(defines) | candidate
    return shared | share_parts(p, candidate, shared, taken)
