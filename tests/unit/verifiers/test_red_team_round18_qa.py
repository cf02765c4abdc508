"""Red team round 18 (issue 27): the shared half of the QA cases an outside attacker wrote (the
held-out half stays outside the project). Wrong answers paid as "the gold's number and a unit":
a scale word not listed (`42 myriad`), a plural one (`42 thousands`), another calendar era
(`1500 AUC`), a bound (`42 upwards`), a multiple or ordinal (`42 hundredfold`); doubt the answer
window missed: an adverb inside "don't know" ("I do not really know"), an idiom ("I haven't the
foggiest"), refusing to commit, admitting the answer is made up. Right answers refused: a year
with its era marker (`AD 1500`), the gold described by its kind (`the city of Lyon`), `St` for
`Saint`. Near variants and their controls are in test_qa_round18_variants.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round18_qa.jsonl")
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
