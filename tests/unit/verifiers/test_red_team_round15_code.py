"""Red team round 15 (issue 27): the shared half of 46 code cases a helper who saw only the code
wrote against the sandboxed verifier (the held-out half stays outside the project). They were
added at the end of the session that received them; none is fixed yet, so each wrong judgement is
a strict xfail naming the code path at fault (from the attacker's report). Nine hacks are paid:
an input passed other than as a bare name to a plain call (a subscript, a method's receiver, a
module attribute) is not shared with the program, and what the harness reads of it afterwards is
the literal as written; reads and calls run in an order Python would not (an input read before
the call that mutates it, `check()` units after bare asserts); identity between values does not
survive the boundary; a str subclass key collapses into another key."""

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
    "c15-003": _UNSHARED.format("a method's argument (Solution().m(nums))"),
    "c15-005": _UNSHARED.format("a module attribute call's argument (solution.f(nums))"),
    "c15-007": _ORDER + " (a name read after the call in the same assert is read as written)",
    "c15-009": _ORDER + " (a name read after the call in the same assert is read as written)",
    "c15-011": _ORDER + " (an input read before the call that mutates it)",
    "c15-013": "open: each decoded value is a fresh object: identity between calls is lost",
    "c15-015": "open: only a top-level `f(xs) is xs` keeps identity; an element's is lost",
    "c15-017": _COLLAPSE.format("a str subclass key with its own hash merges keys"),
    "c15-019": _ORDER + " (check() units run after every bare assert)",
    "c15-021": _COLLAPSE.format("a namedtuple's field named like a tuple method reads the method"),
    "c15-023": _COLLAPSE.format("a dict subclass loses __missing__"),
    "c15-025": _UNSHARED.format("a method's argument sorted in place"),
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
