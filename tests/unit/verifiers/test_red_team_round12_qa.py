"""Red team round 12 (issue 27, item 5), QA: the 21 shared QA cases of a helper who saw only the
code. Wrong answers it had paid: a digit group's leading zeros stripped in a phone or part number
(`1-800-555-100` for `1-800-555-0100`), a version after a lowercase name read as a decimal
(`jQuery 1.1` for `jQuery 1.10`). Right answers it had failed: abbreviations, currency, number and
time forms, spelling variants, a gold's disambiguator, an honorific, Eastern Arabic digits
(`qa_forms`). The held-out cases are not here. Cases kept open are strict xfails naming the rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

CASES = load(Path(__file__).parent / "data" / "adversarial_round12_qa.jsonl")
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
