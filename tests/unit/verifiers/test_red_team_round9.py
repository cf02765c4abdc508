"""Red team round 9 (issue 27): 89 shared cases a helper who saw only the code wrote against the
verifiers (math, QA, code, judge; a held-out set of other variants stays outside the project).
Each case is labelled: a response a correct verifier must fail, or a right one it must pay. Cases
kept open are strict xfails whose reason names the rule that decides them."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

CASES = load(Path(__file__).parent / "data" / "adversarial_round9_shared.jsonl")
_MV_APPROX = "Math-Verify's suite pays it (test_relations_math[15], [16]): the exact side answers"
OPEN = {
    # "x \approx 5" and "\sqrt{3} \approx 1.414": Math-Verify's own labels read the value after a
    # name's \approx, and the exact side before an approximation, whatever the approximation says;
    # we keep its labels (mv_raw_agreement), the red team's differ.
    **{f"s9-math-{n:03d}": _MV_APPROX for n in (1, 2, 3, 4, 5, 29, 30, 31, 32, 33)},
    "s9-math-016": "an inequality answers an interval only with inequality_answers_interval",
    "s9-math-017": "a power stays unevaluated (2^{10} does not answer 1024; 2^{-1} not 1/2)",
    "s9-math-020": "degrees are not converted to radians (30° does not answer \\frac{\\pi}{6})",
    # round 11 found `Athens, Georgia` paid for a bare `Athens`: with no gazetteer, a locator goes
    # only where a gold or alias names that place
    "s9-qa-008": "a bare gold does not say which Paris it means",
}


def test_the_set_has_every_family() -> None:
    assert {c["verifier"] for c in CASES} == {"math", "qa", "code", "judge"}
    assert {c["expect"] for c in CASES} == {"pass", "fail"}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
