"""Routes by which a program reads its module's globals that no symbol table shows (red team round
20): `globals()['LIMIT']`, `eval('MOD')`, a function defined through `exec`, `vars()`, a module's
`__dict__`, `sys.modules[__name__]`, a function's `__globals__`, a frame's `f_globals`. Where the
program's code takes any such route anywhere, every name the tests bind at module level may be
one it reads (round 19's rule then makes the task unverifiable), so it reads them all."""

from __future__ import annotations

import ast

EVERY_NAME = "*"  # in a program's global reads: any name the tests bind may be read
_CALLS = frozenset({"globals", "locals", "vars", "eval", "exec", "__import__", "compile"})
_ATTRIBUTES = frozenset({"__dict__", "__globals__", "f_globals", "modules", "import_module",
                         "getmodule", "__builtins__"})  # fmt: skip
_MODULES = frozenset({"importlib", "inspect", "builtins"})


def reads_globals_dynamically(program: str) -> bool:
    """Whether the program's code names a dynamic route to its globals: a name, an attribute, an
    import, or a string constant that spells one (`getattr(sys, 'modules')`). Broad on purpose:
    too broad only makes a task whose tests bind names unverifiable, never fails a program."""
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    routes = _CALLS | _ATTRIBUTES
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in routes:
            return True
        if isinstance(node, ast.Attribute) and node.attr in routes:
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in routes:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if any(n.split(".")[0] in _MODULES for n in names):
                return True
    return False
