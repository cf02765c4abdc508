"""Red team round 12, judge (issue 27): the shared half of 78 cases a helper who saw only the code
wrote against the rubric verifier after round 11 (other chat templates' role names, orders to the
grader in more languages or with no grader named, grades as CSV, LaTeX, XML attributes and
foreign JSON keys, hidden CSS classes and LaTeX phantoms, look-alike brackets around control
tokens, reasons that contradict a passing grade; honest look-alikes of each). The held-out half
stays with the attacker. Cases kept open are strict xfails whose reason names the hole."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

CASES = load(Path(__file__).parent / "data" / "adversarial_round12_judge.jsonl")
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
