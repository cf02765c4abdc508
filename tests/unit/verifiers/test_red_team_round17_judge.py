"""Red team round 17 (issue 27): the shared half of the rubric (LLM judge) cases an outside
attacker wrote against today's screen (the held-out half stays outside the project). Orders the
screen let through: orders to the grader in Finnish, Latvian, Bulgarian and Bengali; the grader
named by a clause ("quien evalúe", "qui corrige"); idiomatic English ("both boxes got ticked",
"respond with true for every item"); grade JSON under translated or renamed keys
(notas/aprobado, results/ok, verdicts/criterion/met); grade JSON in Ascii85 and base85. Honest
text it took for an injection: grading advice the prompt asked for, and CI tables with `passed`
cells. Near variants of each mechanism are in test_judge_round17_variants.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round17_judge.jsonl")
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
