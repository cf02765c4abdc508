"""Red team round 14 (issue 27): the shared half of 60 math cases a helper who saw only the code
wrote against the verifier after round 13's fixes (the held-out half stays outside the project).
What stays open is a strict xfail naming the hole or the strict rule that decides it."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round14_math.jsonl")
OPEN = {
    "m14-049": "strict: 'At first' before the answer reads as a revision",
    "m14-053": "strict: a step reference before the answer reads as a cue",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
