"""Red team round 18 (issue 27): the shared half of the code cases an outside attacker wrote against
the sandboxed verifier after round 17 (the held-out half stays outside the project). Fixed: an
assert's calls are a group, each value read as Python first reads it (after the later calls,
at its call, or unverifiable where it changed: 001-005, 031-035), an iterator that changed an item
after yielding it is unverifiable (007/009), one string hash seed on both sides (011), a set that
iterates otherwise out here or a set's pop() is unverifiable (017), a builtin comes back by name
(037/039), `[*f(x)]` reads as list(f(x)) (027). Now verifiable (round 19b, was a strict xfail): a
module-level binding of the program's object, kept in the sandbox (019, `code_objects`), a test
function's local read twice, kept the same way (021), try/except/else (023, `code_raises`), an
`array.array`, rebuilt out here from its typecode and items (025)."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round18_code.jsonl")
_SET_ORDER = (
    "unverifiable, not failed: the rebuilt set iterates otherwise than the program's (a large "
    "table it shrank), and which item pop() takes depends on the program's own table"
)
OPEN: dict[str, str] = {
    "c18-013": _SET_ORDER,
    "c18-015": _SET_ORDER,
    "c18-029": "unverifiable, not failed: two iterators of one assert that Python draws in "
    "turn (zip) cannot be drawn that way in the sandbox, which draws each whole",
    "c18-041": "unverifiable: a value that contains itself is not encoded (nested past 100)",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
