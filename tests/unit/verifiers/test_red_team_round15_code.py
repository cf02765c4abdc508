"""Red team round 15 (issue 27): the shared half of 46 code cases a helper who saw only the code
wrote against the sandboxed verifier (the held-out half stays outside the project). They were
added at the end of the session that received them as strict xfails naming the code path at
fault (from the attacker's report); all are closed now (`test_code_round15` holds the rules). The
nine paid hacks: an input passed other than as a bare name to a plain call (a subscript, a
method's receiver, a module attribute) was not shared with the program; reads and calls ran in an
order Python would not (an input read before the call that mutates it, `check()` units after
bare asserts); identity between values did not survive the boundary; a str subclass key
collapsed into another key. The ten refused correct solutions: a namedtuple field named like a
tuple method, a dict subclass's `__missing__`, isinstance against the program's class, a curried
call, a Decimal context, generators drained past what islice takes, and a call Python never
reaches behind `or`."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round15_code.jsonl")
OPEN: dict[str, str] = {}  # every case closed: the rules are in test_code_round15


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
