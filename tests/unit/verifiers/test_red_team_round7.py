"""Red team round 7's shared cases (written against the verifiers by a helper who saw only the
code; a held-out set of other variants stays outside the project). Each case is labelled: a
response a correct verifier must fail, or a right one it must pay. Cases still open are strict
xfails, so a fix or a regression shows; the reason names the rule we chose where the label is a
judgement call."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

from stages.verifiers.registry import build_verifier

CASES = load(Path(__file__).parent / "data" / "adversarial_round7_shared.jsonl")
# Kept open on purpose, with the rule that decides them:
OPEN = {
    # an unevaluated expression is never the answer (an echo of the question would be paid)
    "s-math-029": "unevaluated",
    # candidate programs run on the sandbox python's standard library (-I -S): numpy is not
    # installed for it; the reason says so (README, "The code sandbox")
    "s-code-059": "numpy is not installed for the sandbox's python",
}


# Holes found and not closed yet (issue 27): each a strict xfail until its fix lands.
OPEN_HOLES: set[str] = set()  # none left open


def test_the_set_has_every_family_and_labels() -> None:
    assert {c["verifier"] for c in CASES} == {"math", "code", "qa", "judge"}
    assert all(c["mechanism"] and c["why"] and c["expect"] in ("pass", "fail") for c in CASES)
    assert {c["id"] for c in CASES} >= set(OPEN) | OPEN_HOLES


@pytest.mark.parametrize(
    "case", params(CASES, {**OPEN, **{i: "open: issue 27" for i in OPEN_HOLES}})
)
def test_case(case: dict) -> None:
    check(case)


@pytest.mark.parametrize(
    ("response", "reference", "passed"),
    [
        ("\\boxed{x = 2 \\cdot 6 = 12}", "12", True),
        ("\\boxed{x = 5+5+1 = 7 = 11}", "11", True),  # opened by working: its last side
        ("\\boxed{x = 5+5+1 = 7 = 11}", "7", False),
        ("\\boxed{f(x) = (x+1)^2 = x^2 + 2x + 1}", "x^2+2x+1", True),  # sympy checks the step
        ("\\boxed{f(x) = (x+1)^2 = x^2 + 2x + 2}", "x^2+2x+2", False),
        ("\\boxed{x = \\frac{6}{2} = 3}", "3", True),
        ("\\boxed{x = 3 = \\frac{6}{3}}", "2", False),
        ("\\boxed{y = 2x + 1}", "y = 2x+1", True),  # y is not on the right: a label
        ("\\boxed{x = x + 0}", "x", False),
        ("\\boxed{\\sin x = \\frac{1}{2}}", "\\frac{1}{2}", False),
        ("\\boxed{2, 2, 3}", "2, 2, 3", True),
        ("\\boxed{3, 2, 2}", "2, 2, 3", True),  # a list is unordered, its repeats counted
        ("\\boxed{2, 3, 3}", "2, 2, 3", False),
        ("\\boxed{2, 3}", "\\{2, 3\\}", True),
        ("\\boxed{\\{1, 2\\}}", "\\{1, 2\\}", True),
    ],
)
def test_chains_labels_and_multiplicity_twins(response: str, reference: str, passed: bool) -> None:
    verdict = build_verifier({"kind": "math"}).verify(response, reference)
    assert verdict.passed is passed, verdict.reason
