"""Globals the tests would set for the program (red team round 19). MBPP and HumanEval run the
program and then the tests in one namespace, so a name the tests bind at module level (`MOD = 5`,
`LIMIT = 4`, a helper `def` or `class`) is what the program's functions read when called later.
The verifier never runs the tests' statements beside the program (a constant of the tests may be
an answer key: `EXPECTED = 5`), so where the program's functions read such a name the task is
unverifiable, naming it, never a failed right program."""

from __future__ import annotations

import ast
import symtable

from stages.verifiers.code_dynamic_globals import EVERY_NAME, reads_globals_dynamically
from stages.verifiers.code_trusted import UnsupportedTests


def function_global_reads(program: str) -> frozenset[str]:
    """Names the program's functions, methods, lambdas and comprehensions read as globals: read
    at call time, after the tests' module level has run. Module-level reads run before the tests
    and are left out. Read from the symbol table, never by running the program."""
    try:
        top = symtable.symtable(program, "solution.py", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    names: set[str] = {EVERY_NAME} if reads_globals_dynamically(program) else set()
    stack = [(table, False) for table in top.get_children()]  # (table, inside a function)
    while stack:
        table, in_function = stack.pop()
        is_class = table.get_type() == "class"
        stack.extend((child, in_function or not is_class) for child in table.get_children())
        if is_class and not in_function:
            continue  # a module-level class body runs at definition, before the tests
        # a class body inside a function runs when the function is called (round 20)
        names |= {s.get_name() for s in table.get_symbols() if s.is_global() and s.is_referenced()}
    return frozenset(names)


def _tests_bind(module: ast.Module) -> dict[str, int]:
    """Each name the tests' module level binds (assignment, def, class), with its line."""
    bound: dict[str, int] = {}
    for stmt in module.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.setdefault(stmt.name, stmt.lineno)
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.setdefault(node.id, stmt.lineno)
    return bound


def check_no_shared_globals(module: ast.Module, reads: frozenset[str]) -> None:
    """UnsupportedTests where the tests bind a name the program's functions read as a global."""
    every = EVERY_NAME in reads  # the program reads globals by globals(), eval, exec, ...
    clash = sorted((line, name) for name, line in _tests_bind(module).items()
                   if every or name in reads)  # fmt: skip
    if clash:
        line, name = clash[0]
        raise UnsupportedTests(
            f"line {line}: the tests bind {name}, which the program's functions read as a global"
            + (" (through globals(), eval, exec or the like)" if every else "")
            + " (in one namespace the tests' binding would be the program's; it is never sent in)"
        )
