"""Red team round 17 (issue 27): the shared half of the QA cases an outside attacker wrote (the
held-out half stays outside the project): doubt in French and Chinese, two candidates named
without either/or ("both remain candidates", "fit Lyon as well as Grenoble"), hedges in other
words ("just picking the likelier city", "going purely on gut feel"), the gold denied before the
answer line ("Lyon is ruled out"); and right answers refused: certainty read as doubt ("No doubt
about it: Lyon", "I'm certain. Answer: Lyon"), `Canberra, not Sydney` read as negating the gold,
a title holding a hedge word ("Maybe Tomorrow"), golds of punctuation only (`!!!`, `...`) and a
number with its noun (`1,500 people`). Other instances of each mechanism, with the controls each
rule keeps, are in test_qa_round17_variants.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round17_qa.jsonl")
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
