"""Red team round 12, math (issue 27): 53 cases a helper who saw only the code wrote against the
verifier after round 11 (half of its set; the other half stays outside the project). Most wrong
answers paid were weak answer forms ("Result: 5. No wait, it's 6.", "I don't know.\nFinal: 5",
"I guess <answer>5</answer>"): a weak form's final now ends with its first sentence and its
prefix is checked like a box's. Cases kept open are strict xfails whose reason names the rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

CASES = load(Path(__file__).parent / "data" / "adversarial_round12_math.jsonl")
OPEN = {
    "a12m-095": "'0,5' with no space is a decimal comma (0.5), never the list {0, 5}",
    "a12m-101": "a unit written in \\mathrm with thin spaces and a power (m\\,s^{-1}) is not read",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
