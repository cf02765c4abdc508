"""Red team round 17 (issue 27): the shared half of 70 math cases a helper outside the project wrote
against the verifier after round 16 (the held-out half stays outside). Mechanisms: doubt further
back than the answer's sentence, in another language, paraphrased, after the box, as an emoji or
split by markup; units written `\\mathrm{~cm}`; functions the parser lacked; answer labels and
phrases in other languages before a box; and many stray `</think>` tags (quadratic). All 35 are closed
(`test_math_round17_variants.py` holds their near-variants)."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round17_math.jsonl")
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
