"""Issue 27, item 7: the labelled adversarial corpus comes out right, case by case."""

from collections import Counter

import pytest
from adversarial_cases import math_cases, math_verdicts, qa_cases, qa_verdicts

MATH, QA = math_cases(), qa_cases()


def test_the_corpus_is_labelled_with_kind_and_why_and_holds_at_least_300_math_cases():
    assert len(MATH) >= 300
    for case in MATH + QA:
        assert case["kind"] and case["why"] and isinstance(case["expected"], bool), case["id"]
        assert case["source"] in ("attacker", "own", "red team round 4"), case["id"]
    assert len({c["id"] for c in MATH + QA}) == len(MATH) + len(QA)
    kinds = Counter(c["kind"] for c in MATH)
    # wrong-but-plausible answers and right answers in other forms, of many kinds
    assert sum(not c["expected"] for c in MATH) >= 300 and sum(c["expected"] for c in MATH) >= 100
    assert len(kinds) >= 30


@pytest.fixture(scope="module")
def math_passed():
    return math_verdicts(MATH)


@pytest.mark.parametrize("expected", [False, True], ids=["must_fail", "must_pass"])
def test_every_math_case_comes_out_as_labelled(math_passed, expected):
    wrong = [
        (c["id"], c["kind"], c["why"])
        for c, p in zip(MATH, math_passed, strict=True)
        if c["expected"] is expected and p is not expected
    ]
    assert wrong == []


def test_every_qa_case_comes_out_as_labelled():
    wrong = [
        (c["id"], c["kind"], c["why"])
        for c, p in zip(QA, qa_verdicts(QA), strict=True)
        if p is not c["expected"]
    ]
    assert wrong == []
