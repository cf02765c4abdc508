"""Which code of a response runs: one rule for what is executed and what the tests see.

A response's code is its fenced Python blocks (``` or ~~~, info string empty or `python`, `py`,
`python3`, `py3` in any case, with attributes after it), else, when it has no fence and does not
parse as a whole, its Markdown indented code blocks, else the whole response. One block runs:
the last that defines every name the tests use which any block defines, together with the blocks
that bind a name it reads and does not bind (a helper in a block of its own; never a builtin's
name), in the response's order. The others never run, so none of them may change what the tests
call: a block is refused (CodeBlocksDisagree) where another block

- binds a tested name another way (`def add` here, `add = lambda ...` or `add.__code__ = ...`
  there), or binds a global the running block's functions read another way;
- rewrites names dynamically (`globals()`, `exec`, `setattr`, `__code__`, `builtins`, ...);
- does not parse yet seems to bind a tested name (`add = ...`, `def add`).

REPL transcripts (```pycon, `>>>` lines), indented blocks beside fences and code in blockquotes
take part in that check, and never run. A usage example that only calls the solution is fine."""

from __future__ import annotations

import ast
import builtins
import copy
import re
from dataclasses import dataclass

_BUILTINS = frozenset(dir(builtins))  # a builtin a block reads is the builtin: never a helper's
RUNNABLE = {"", "python", "py", "python3", "py3"}
TRANSCRIPTS = {"pycon", "python-repl", "ipython", "ipython3", "pytb"}
_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n]*)$")
_QUOTE = re.compile(r"^[ \t]{0,3}> ?")
_INFO_WORD = re.compile(r"[{.]*([A-Za-z0-9_+-]*)")
_PROGRAM_MODULES = {"solution", "main", "__main__"}  # what a usage example imports the program as
# Names and attributes through which a block can rebind what another block defined.
_DYNAMIC_NAMES = {"exec", "eval", "compile", "globals", "locals", "vars", "setattr", "delattr",
                  "__import__", "builtins", "__builtins__"}  # fmt: skip
_DYNAMIC_ATTRIBUTES = {"__code__", "__globals__", "__dict__", "__defaults__", "__kwdefaults__",
                       "__closure__", "__wrapped__", "__call__", "__class__", "modules"}  # fmt: skip


class CodeBlocksDisagree(ValueError):
    """Blocks of one response give a tested name different code: no one answer."""


@dataclass(frozen=True)
class Block:
    text: str
    runnable: bool  # a candidate to run (a Python fence, or an indented block without fences)


def code_blocks(response: str, depth: int = 0) -> tuple[list[Block], bool]:
    """Every code block of `response` in order, and whether it has a fenced Python block."""
    lines = response.replace("\r\n", "\n").split("\n")
    blocks: list[Block] = []
    outside: list[str | None] = []  # the lines outside fences (None for a fence's lines)
    fenced = False
    i = 0
    while i < len(lines):
        opened = _OPEN.match(lines[i])
        if opened is None or (opened["fence"][0] == "`" and "`" in opened["info"]):
            outside.append(lines[i])
            i += 1
            continue
        fence, indent = opened["fence"], len(opened["indent"].expandtabs(4))
        # CommonMark: a closing fence is indented at most 3 columns past its opener's, or it is
        # a line of the block (a renderer shows what follows it as code, so must we)
        closing = re.compile(rf"^ {{0,{indent + 3}}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body, i = [], i + 1
        while i < len(lines) and not closing.match(lines[i].expandtabs(4)):
            body.append(_dedent(lines[i], indent))
            i += 1
        outside += [None] * (len(body) + 2)
        i += 1
        language = _INFO_WORD.match(opened["info"].strip()).group(1).lower()
        if language in RUNNABLE:
            blocks.append(Block("\n".join(body) + "\n", runnable=True))
            fenced = True
        elif language in TRANSCRIPTS:
            blocks.append(Block(_transcript("\n".join(body)), runnable=False))
    indented = _indented_blocks(outside)
    if fenced:
        blocks += [Block(b, runnable=False) for b in indented]
    else:
        blocks += [Block(b, runnable=True) for b in indented]
    quoted = "\n".join(_QUOTE.sub("", ln) for ln in outside if ln is not None and _QUOTE.match(ln))
    if quoted and depth < 4:  # code in a blockquote: shown as code, never run
        blocks += [Block(b.text, runnable=False) for b in code_blocks(quoted, depth + 1)[0]]
    return blocks, fenced


def _dedent(line: str, width: int) -> str:
    cut = 0
    while cut < len(line) and cut < width and line[cut] in " \t":
        cut += 1
    return line[cut:]


def _transcript(text: str) -> str:
    """The code typed at a `>>>` prompt (its output dropped)."""
    typed = [ln[4:] for ln in text.split("\n") if ln.startswith((">>> ", "... "))]
    return "\n".join(typed) + "\n"


def _indented_blocks(lines: list[str | None]) -> list[str]:
    """Markdown indented code blocks: lines indented 4 or more after a blank line (or the start),
    blank lines inside kept, dedented by 4."""
    blocks: list[str] = []
    current: list[str] = []
    previous_blank = True
    for line in [*lines, None]:
        is_code = line is not None and line.strip() != "" and _indent(line) >= 4
        if current and (line is None or (line.strip() and not is_code)):
            blocks.append("\n".join(current).rstrip("\n") + "\n")
            current = []
        if is_code and (current or previous_blank):
            current.append(_dedent(line.expandtabs(4), 4))
        elif current and line is not None and not line.strip():
            current.append("")
        previous_blank = line is None or not line.strip()
    return blocks


def _indent(line: str) -> int:
    spaced = line.expandtabs(4)
    return len(spaced) - len(spaced.lstrip(" ")) if line.strip() else 0


def tested_names(tests: str) -> set[str]:
    """The names the tests read and do not bind themselves (`math` in `import math` is theirs)."""
    try:
        module = ast.parse(tests)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    read = {n.id for n in ast.walk(module) if isinstance(n, ast.Name)}
    own = set().union(*(_bound_here(n) for n in ast.walk(module)))
    own |= {a.arg for n in ast.walk(module) if isinstance(n, ast.arguments)
            for a in (*n.posonlyargs, *n.args, *n.kwonlyargs, n.vararg, n.kwarg) if a}  # fmt: skip
    return read - own


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _bound_here(node: ast.AST) -> set[str]:
    """The names one node binds or rebinds in its own scope or through `global`."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return {node.id}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return set(node.names)
    if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(
        node.ctx, (ast.Store, ast.Del)
    ):
        root = node.value
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
            root = root.func if isinstance(root, ast.Call) else root.value
        return {root.id} if isinstance(root, ast.Name) else set()
    return set()


def _bindings(module: ast.Module, names: set[str]) -> dict[str, tuple[str, ...]]:
    """Per name of `names`, the top-level statements that bind or change it anywhere inside them
    (a def, an assignment, `add.__code__ = ...`, a function declaring it global), as dumps."""
    found: dict[str, list[str]] = {}
    for stmt in module.body:
        if isinstance(stmt, ast.ImportFrom) and (
            stmt.level or (stmt.module or "").split(".")[0] in _PROGRAM_MODULES
        ):
            continue  # `>>> from solution import add`: the program's own name, not another
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):  # `import math` beside `import math, re`
            source = getattr(stmt, "module", None) or ""
            for alias in stmt.names:
                name = (alias.asname or alias.name).split(".")[0]
                if name in names:
                    found.setdefault(name, []).append(f"import {source}:{alias.name}")
            continue
        touched = set().union(*(_bound_here(n) for n in ast.walk(stmt))) & names
        for name in touched:
            found.setdefault(name, []).append(_behaviour(stmt))
    return {name: tuple(dumps) for name, dumps in found.items()}


def _behaviour(stmt: ast.stmt) -> str:
    """`stmt`'s dump without what does not change what it does: functions' docstrings and
    annotations (the same function documented or typed in a later block is the same answer)."""
    stmt = copy.deepcopy(stmt)
    for node in ast.walk(stmt):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
            for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs,
                        node.args.vararg, node.args.kwarg):  # fmt: skip
                if arg is not None:
                    arg.annotation = None
            body = node.body
            if (
                len(body) > 1
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                node.body = body[1:]
    return ast.dump(stmt)


def _dynamic(module: ast.Module) -> str | None:
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and node.id in _DYNAMIC_NAMES:
            return node.id
        if isinstance(node, ast.Attribute) and node.attr in _DYNAMIC_ATTRIBUTES:
            return node.attr
    return None


def _globals_read(module: ast.Module) -> set[str]:
    """The free names the functions and classes of `module` read: its helpers, constants and
    modules (not a function's parameters or its own locals)."""
    free: set[str] = set()
    for stmt in module.body:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for scope in [stmt, *(n for n in ast.walk(stmt) if isinstance(n, ast.Lambda))]:
            nodes = list(ast.walk(scope))
            local = {a.arg for n in nodes if isinstance(n, ast.arguments)
                     for a in (*n.posonlyargs, *n.args, *n.kwonlyargs, n.vararg, n.kwarg) if a}  # fmt: skip
            local |= {
                n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
            free |= {n.id for n in nodes if isinstance(n, ast.Name)
                     and isinstance(n.ctx, ast.Load)} - local  # fmt: skip
    return free


def _seems_to_bind(text: str, names: set[str]) -> str | None:
    """A tested name that text which does not parse seems to bind: `def add`, `add = ...`,
    `add.x += ...`, `import ... as add`, `global add`."""
    for name in sorted(names):
        word = re.escape(name)
        statement = rf"\b(?:def|class|global)\s+{word}\b|\bimport\b[^\n]*\bas\s+{word}\b"
        assignment = rf"\b{word}\s*(?:[.\[][^\n=]*)?[-+*/%&|^@]?=(?!=)"
        if re.search(f"{statement}|{assignment}", text):
            return name
    return None


def _top_names(module: ast.Module) -> set[str]:
    """The names a module's own statements bind at top level (not inside its functions)."""
    names: set[str] = set()
    for stmt in module.body:
        defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
        nodes = [stmt] if isinstance(stmt, defs) else ast.walk(stmt)
        names |= set().union(*(_bound_here(n) for n in nodes))
    return names


def _with_helpers(parsed: list[tuple[Block, ast.Module | None]], chosen: int,
                  runnable: list[int]) -> list[int]:  # fmt: skip
    """The chosen block and, in the response's order, the runnable blocks that bind a name it
    (or a helper so taken) reads and does not bind itself (`is_prime` in a block of its own): one
    program, as the blocks read together. A helper that rewrites names dynamically, or two taken
    blocks that bind one name differently, is refused (CodeBlocksDisagree)."""
    included, tops = [chosen], {i: _top_names(parsed[i][1]) for i in runnable}  # type: ignore[arg-type]
    wanted = _globals_read(parsed[chosen][1]) - tops[chosen] - _BUILTINS  # type: ignore[arg-type]
    while wanted:
        name = wanted.pop()
        givers = [i for i in runnable if i not in included and name in tops[i]]
        if not givers or any(name in tops[i] for i in included):
            continue  # a builtin, or the program's NameError, as Python would have it
        module = parsed[givers[-1]][1]
        if (how := _dynamic(module)) is not None:  # type: ignore[arg-type]
            raise CodeBlocksDisagree(f"a helper code block rewrites names ({how})")
        included.append(givers[-1])
        wanted |= _globals_read(module) - set().union(*(tops[i] for i in included)) - _BUILTINS  # type: ignore[arg-type]
    for name in set().union(*(tops[i] for i in included)):
        bound = {_bindings(parsed[i][1], {name}).get(name) for i in included if name in tops[i]}  # type: ignore[arg-type]
        if len(bound) > 1:
            raise CodeBlocksDisagree(f"two code blocks define {name} differently")
    return sorted(included)


def extract_code(response: str, tests: str = "") -> str:
    """The one block of `response` that runs (see the module's rule); CodeBlocksDisagree where
    the blocks do not give the tested names one definition."""
    blocks, fenced = code_blocks(response)
    if not fenced and (_parse(response) is not None or not any(b.runnable for b in blocks)):
        return response
    wanted = tested_names(tests)
    parsed = [(b, _parse(b.text)) for b in blocks]
    binds = [_bindings(m, wanted) if m is not None else {} for _, m in parsed]
    defined = set().union(*(set(b) for b in binds))
    runnable = [i for i, (b, m) in enumerate(parsed) if b.runnable and m is not None]
    if not defined or not runnable:
        return [b for b in blocks if b.runnable][-1].text
    covering = [i for i in runnable if defined <= set(binds[i])]
    if not covering:
        raise CodeBlocksDisagree(
            f"no one code block defines every tested name ({', '.join(sorted(defined))})"
        )
    included = _with_helpers(parsed, covering[-1], runnable)
    module = ast.Module([s for i in included for s in parsed[i][1].body], [])  # type: ignore[union-attr]
    watched = wanted | _globals_read(module)
    watched_bindings = _bindings(module, watched)
    for i, (block, other) in enumerate(parsed):
        if i in included:
            continue
        if other is None:
            if (name := _seems_to_bind(block.text, wanted)) is not None:
                raise CodeBlocksDisagree(f"a code block that does not parse rebinds {name}")
            continue
        for name, dumps in _bindings(other, watched).items():
            if dumps != watched_bindings.get(name):
                raise CodeBlocksDisagree(f"two code blocks define {name} differently")
        if (how := _dynamic(other)) is not None:
            raise CodeBlocksDisagree(f"a code block that does not run rewrites names ({how})")
    return "".join(blocks[i].text for i in included)
