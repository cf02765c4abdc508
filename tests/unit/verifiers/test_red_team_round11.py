"""Red team round 11 (issue 27): 106 cases a helper who saw only the code wrote against the rules
added after round 9 (unit conversion, mixed numbers, function labels, justifications, doubt; QA
places, number words, bound signs; code identity reports; judge hidden text, grader orders, role
turns, contradicting reasons). No held-out split: the set measured the new rules, and every case
is a test here. Cases kept open are strict xfails whose reason names the rule or the hole."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

CASES = load(Path(__file__).parent / "data" / "adversarial_round11.jsonl")
_STRICT_EXPLAIN = (
    "a justification's equation must be one the grammar evaluates: else it proves nothing"
)
_WEAK_FORMS = "only the listed joins make an answer line ('Answer =>' and '## Answer =' are not)"
_NO_GAZETTEER = "a gold that is also a region does not lose its locator (no gazetteer)"
_CHECKBOX = "an unchecked box anywhere leaves the choice open (no reading of which box is ticked)"
OPEN = {
    "a11-math-009": "'pt' is a pint only spelled out (pt is also a point)",
    "a11-math-011": "\\exp without brackets is no answer: its argument's end is unsaid",
    **{f"a11-math-{n:03d}": _STRICT_EXPLAIN for n in (16, 17, 18)},
    **{f"a11-math-{n:03d}": _WEAK_FORMS for n in (26, 27)},
    "a11-math-028": "doubt anywhere before the answer voids it, a shrug included",
    **{f"a11-qa-{n:03d}": _NO_GAZETTEER for n in (5, 6, 7)},
    **{f"a11-qa-{n:03d}": _CHECKBOX for n in (8, 9, 10)},
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
