"""Red team round 14 (issue 27): the shared half of 60 math cases a helper who saw only the code
wrote against the verifier after round 13's fixes (the held-out half stays outside the project).
What stays open is a strict xfail naming the hole or the strict rule that decides it."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round14_math.jsonl")
_DOUBT = "open: doubt or a competing value in prose before the box, in words no list names"
_PROSE = "strict: a plain-prose sentence with no answer form states no final answer"
OPEN = {
    **{f"m14-{n:03d}": _DOUBT for n in (1, 3, 5, 7, 9, 11, 13, 15, 17, 23)},
    **{f"m14-{n:03d}": _PROSE for n in (37, 39, 41, 43, 45, 47, 55)},
    "m14-049": "strict: 'At first' before the answer reads as a revision",
    "m14-051": "open: German inverted order 'Also ist die Antwort \\boxed{15}'",
    "m14-053": "strict: a step reference before the answer reads as a cue",
    "m14-057": "open: a QED mark after the box is text after the final answer",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
