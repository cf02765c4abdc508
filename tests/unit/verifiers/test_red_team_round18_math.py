"""Red team round 18 (issue 27): the shared half of the math cases a helper outside the project wrote
against the verifier after round 17 (the held-out half stays outside). Mechanisms: `\\bmod` read as a
note, tiny perturbations of exact references, determinants and norms read as the matrix, a
function's argument and power (`\\ln x^2`, `\\cos 2\\pi t`, `\\ln 10`), d/dx as a fraction, a negative
numerator under a power, and right answers the grammar lacked (e and i as constants, set-builder
notation, restated labelled pairs, equations of a line, number words, gpt-oss's harmony format,
Greek letters, `\\pm` in a fraction, compound units, cents, AMC choices, geometric names, a matrix's
row break before a letter). `test_math_round18_variants.py` holds their near-variants."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round18_math.jsonl")
OPEN: dict[str, str] = {
    "m18-009": "an exact irrational answer against a rounded decimal reference is not paid (as "
    "\\sqrt{2} is not for 1.414214): which digits of e the reference rounded is unsaid",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
