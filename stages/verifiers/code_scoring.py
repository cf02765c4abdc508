"""The trusted side of a code check, bounded in time and memory.

The tests are task data, hostile like everything else: an expected value may be `3 ** Fraction(10**8)`,
`'x' * 10**12` or a literal nested a million deep, and a test file may hold twenty thousand calls:
taking them apart or evaluating them in the trainer would hang or exhaust it. So the tests are
planned (`code_tests.plan`) and every assert's trusted part is evaluated in a worker process of its own
(`pool.HardTimeoutPool`) under a wall-clock limit (TRUSTED_TIMEOUT_S) and an address-space limit
(TRUSTED_MEMORY_BYTES). Whose fault:

- an expected value (a part of an assert that uses none of the program's values) past the size
  guards, out of memory, too deep, or a job past the time limit: the tests cannot be checked, so
  the task is unverifiable (stage 2 drops it) and no solution, right or wrong, is paid;
- an operation on the program's values past the size guards: that assert fails (`code_trusted`)."""

from __future__ import annotations

import ast
import functools
import re
import resource
from dataclasses import dataclass
from typing import Any

from stages.verifiers.code_tests import MissingEntryPoint, TestPlan, UnsupportedTests, plan
from stages.verifiers.code_trusted import (
    GUARDS,
    TRUSTED_BUILTINS,
    Refused,
    Unverifiable,
    evaluate,
    local_names,
)
from stages.verifiers.code_values import (
    CandidateError,
    UnsupportedValue,
    decode_all,
    returned_inputs,
)

TRUSTED_TIMEOUT_S = 10.0
TRUSTED_MEMORY_BYTES = 2 * 1024**3
_PLACEHOLDER = re.compile(r"_v\d+")  # a value the program returned
_TOO_BIG = (Refused, MemoryError, RecursionError, OverflowError, TimeoutError)  # a runaway re
Scored = tuple[
    str, Any
]  # ("scored", [index of each unit's first failed assert, or -1]) | ("unverifiable", why)


def _limit_memory() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft > TRUSTED_MEMORY_BYTES:
        resource.setrlimit(resource.RLIMIT_AS, (TRUSTED_MEMORY_BYTES, hard))


def _independent(node: ast.AST, local: set[str]) -> bool:
    """Whether `node` uses none of the program's values (no `_v<i>`, no lambda or loop variable)."""
    return not any(
        isinstance(n, ast.Name) and (_PLACEHOLDER.fullmatch(n.id) or n.id in local)
        for n in ast.walk(node)
    )


def expected_parts(expr: ast.expr) -> list[ast.expr]:
    """The largest parts of an assert that use none of the program's values and compute something
    (a bare constant or name computes nothing)."""
    local = local_names(expr)
    found: list[ast.expr] = []
    stack: list[ast.AST] = [expr]
    while stack:  # iterative: a test nested deep must not recurse here
        node = stack.pop()
        if isinstance(node, ast.expr) and _independent(node, local):
            if not isinstance(node, (ast.Constant, ast.Name, ast.Attribute, ast.Lambda)):
                found.append(node)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _expected_problem(test_plan: TestPlan) -> str | None:
    """Why an expected value of the tests cannot be computed within the bounds, or None."""
    namespace: dict[str, Any] = {"__builtins__": TRUSTED_BUILTINS, **test_plan.modules, **GUARDS}
    for unit in test_plan.units:
        for expr in unit.asserts:
            for part in expected_parts(expr):
                code = compile(ast.fix_missing_locations(ast.Expression(part)), "<test>", "eval")
                try:
                    eval(code, dict(namespace))  # noqa: S307 - the task's own expected value
                except _TOO_BIG as e:
                    shown = ast.unparse(part)[:80]
                    return f"the expected value {shown} is past the trusted evaluator's bounds ({type(e).__name__})"
                except Exception:  # noqa: S110 - a type error or the like: the assert decides
                    pass
    return None


@functools.lru_cache(maxsize=32)
def _checked_plan(tests: str, defines: frozenset[str], reads: frozenset[str]) -> TestPlan | str:
    test_plan = plan(tests, defines, reads)
    return _expected_problem(test_plan) or test_plan


@dataclass(frozen=True)
class PlanSummary:
    """What the verifier needs of a plan, as plain data: what goes into the sandbox, and for each
    unit its name and the call indices (`_v<i>`) each assert reads, in order."""

    imports: list[str]
    calls: list[str]
    own: list[str]
    program_modules: list[str]
    originals: list[str]
    bindings: list[list[str]]
    keep: list[int]
    take: list[list[int]]
    groups: list[list[Any]]
    units: list[tuple[str, list[list[int]]]]
    objects: list[list[Any]]
    raising: list[int]
    unplaced: list[int]


def _placeholders(expr: ast.expr) -> list[int]:
    return [
        int(n.id[2:])
        for n in ast.walk(expr)
        if isinstance(n, ast.Name) and _PLACEHOLDER.fullmatch(n.id)
    ]


def _summary(test_plan: TestPlan) -> PlanSummary:
    return PlanSummary(
        test_plan.imports, test_plan.calls, test_plan.own, test_plan.program_modules,
        test_plan.originals, test_plan.bindings, test_plan.keep, test_plan.take, test_plan.groups,
        [(u.name, [_placeholders(a) for a in u.asserts]) for u in test_plan.units],
        test_plan.objects, test_plan.raising, test_plan.unplaced,
    )  # fmt: skip


def plan_job(tests: str, defines: list[str], reads: list[str]) -> tuple[str, Any]:
    """Runs in the worker: ("plan", PlanSummary), or ("unsupported" | "missing", why)."""
    try:
        checked = _checked_plan(tests, frozenset(defines), frozenset(reads))
    except UnsupportedTests as e:
        return ("unsupported", str(e))
    except MissingEntryPoint as e:
        return ("missing", str(e))
    except (MemoryError, RecursionError) as e:
        return ("unsupported", f"the tests are past the trusted side's bounds ({type(e).__name__})")
    if isinstance(checked, str):
        return ("unsupported", checked)
    return ("plan", _summary(checked))


def job(kind: str, *args: Any) -> Any:
    """The worker's one entry point (`pool.HardTimeoutPool` takes one function); only here, in the
    worker process, is the address space limited."""
    _limit_memory()
    return plan_job(*args) if kind == "plan" else score_job(*args)


def _first_failure(
    asserts: list[ast.expr],
    values: list[Any],
    modules: dict[str, Any],
    returned: dict[int, str | int],
) -> int:
    for k, expr in enumerate(asserts):
        used = [values[i] for i in _placeholders(expr)]
        if any(isinstance(v, CandidateError) for v in used):
            return k
        if not evaluate(expr, values, modules, returned):
            return k
    return -1


def _overdrawn(units: list[Any], failures: list[int], drawn: list[list[Any]]) -> int | None:
    """A call whose iterator the asserts evaluated read less far than the sandbox drew it
    (`zip(range(2), gen())` draws gen twice in Python), with calls after it: the code it ran
    past Python's draws may have changed what they see (a log, a counter). Its index, or None."""
    evaluated: set[int] = set()
    for unit, failed in zip(units, failures, strict=True):
        for expr in unit.asserts if failed < 0 else unit.asserts[: failed + 1]:
            evaluated |= set(_placeholders(expr))
    later = len(drawn) - 1
    return next((i for i in sorted(evaluated) if i < later and any(
        not r.drawn_as_python() for r in drawn[i])), None)  # fmt: skip


def score_job(tests: str, defines: list[str], reads: list[str], tagged: list[Any]) -> Scored:
    """Runs in the worker: each unit's first failed assert, or why the tests cannot be checked.
    `tagged`: the program's values as the sandbox reported them (plain JSON, decoded here)."""
    drawn: list[list[Any]] = []  # every generator of each value, wherever it sits (round 20)
    values = decode_all(tagged, drawn)  # the caller decoded them once already: they decode
    try:
        checked = _checked_plan(tests, frozenset(defines), frozenset(reads))
        if isinstance(checked, str):
            return ("unverifiable", checked)
        returned = returned_inputs(tagged, checked.calls)
        unsupported = next((v for v in values if isinstance(v, UnsupportedValue)), None)
        if unsupported is not None:
            return ("unverifiable", unsupported.message)
        failures = [_first_failure(u.asserts, values, checked.modules, returned)
                    for u in checked.units]  # fmt: skip
        overdrawn = _overdrawn(checked.units, failures, drawn)
        if overdrawn is not None:
            return ("unverifiable", f"the sandbox drew the iterator call {overdrawn} returned "
                    "further than Python would, before later calls")  # fmt: skip
        return ("scored", failures)
    except (UnsupportedTests, MissingEntryPoint, Unverifiable) as e:
        return ("unverifiable", str(e))
    except (MemoryError, RecursionError) as e:
        return ("unverifiable", f"the trusted evaluation ran out of bounds ({type(e).__name__})")
