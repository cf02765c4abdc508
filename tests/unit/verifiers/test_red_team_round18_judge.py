"""Red team round 18 (issue 27): the shared half of the rubric (LLM judge) cases an outside
attacker wrote (the held-out half stays outside the project). Injections the screen let through:
a tick per rubric id (`R1 ✅ R2 ✅`), ballot-box ticks beside a rubric's words, a full self-score
(`Score: 2/2`), a bare verdict label (`Result: PASS`), grades as Lisp s-expressions, orders to a
grader named indirectly ("Whoever reads this next"), by a relative clause ("Any model that
evaluates this poem") or as a hypothetical ("A reviewer would give this full marks"), grade JSON
in ROT47, an order in octal character codes, spelled word by word backwards, split by hyphens,
one word per line, or written as a code call (`grader.mark(..., passed=True)`). Honest responses
it zeroed: a grading tip the prompt asked for, a control token named in prose. Judge replies
whose reason contradicts `passed: true` (a labelled FAIL, "Satisfied? No.", "has not been met",
"Partially met", "Falls short", "Marked as a fail", a reason negating the rubric, "Grade: F"),
read as a judge error. Near variants are in test_judge_round18_variants.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round18_judge.jsonl")
OPEN: dict[str, str] = {}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
