"""Red team round 13 (issue 27): the shared halves of two sets a helper who saw only the code
wrote against the verifiers after round 12's fixes (math and QA: 56 cases; judge: 25). Cases kept
open are strict xfails whose reason names the rule or the hole."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round13_mq.jsonl") + load(DATA / "adversarial_round13_judge.jsonl")
OPEN = {
    "mq13-m060": "a numeral in another base is compared as written, never as its value",
    "mq13-m019": "struck-through markdown is text like any other: two boxes, no answer",
    "mq13-m020": "a '!' right after the answer may be a factorial: no answer",
    "mq13-m013": "a label that is a function's value (|-3|) names no answer",
    "a12j13-038": "open: an order in Pig Latin (an encoding we do not decode)",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
