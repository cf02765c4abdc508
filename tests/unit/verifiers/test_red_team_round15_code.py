"""Red team round 15 (issue 27): the shared half of 46 code cases a helper who saw only the code
wrote against the sandboxed verifier (the held-out half stays outside the project). They were
added at the end of the session that received them, each wrong judgement a strict xfail naming
the code path at fault (from the attacker's report). Nine hacks were paid; eight are closed
(`test_code_round15` holds the rules): an input a method or a module's function receives is
shared like a plain call's; reads and calls run in Python's order (a read after the call in the
same assert, `check()` units where they are written); identity between calls is the harness's
report, and between parts of values unverifiable; keys that merge as plain values make the value
unsupported. Still open: an input passed as a subscript (`f(grid[0])`) is folded to a copy."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round15_code.jsonl")
_UNSHARED = "open: an input passed as {} is inlined as a literal, so its mutation is unseen"
_ORDER = "open: the harness reads inputs and runs calls in an order Python would not"
_COLLAPSE = "open: a value's class collapses to its base at the boundary ({})"
OPEN = {
    "c15-001": _UNSHARED.format("a subscript (f(grid[0]))"),
    "c15-021": _COLLAPSE.format("a namedtuple's field named like a tuple method reads the method"),
    "c15-023": _COLLAPSE.format("a dict subclass loses __missing__"),
    "c15-027": _COLLAPSE.format("isinstance against the program's own class"),
    "c15-029": "open: a generator is drained eagerly (10,000 items) even where the test needs 5",
    "c15-031": "open: that eager drain changes the program's state before the next call",
    "c15-033": "open: a call behind `or`/`and` that Python never makes still runs and fails",
    "c15-035": "strict: a curried call (make_adder(2)(3)) makes the task unverifiable",
    "c15-037": "open: Decimal values are compared under the default context, not the program's",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
