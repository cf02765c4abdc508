"""Issue 27, code: the trusted side is bounded. An expected value the tests build past the size
guards, past memory or past the wall clock makes the task unverifiable (stage 2 drops it), quickly:
never a hang, never a failed correct solution, never a pass."""

import ast

import pytest

from stages.verifiers.code_scoring import expected_parts, score_job
from stages.verifiers.code_verifier import CodeVerifier
from stages.verifiers.config import CodeVerifierConfig

RIGHT = "def f(x):\n    return x + 1"


@pytest.fixture(scope="module")
def verifier():
    v = CodeVerifier(CodeVerifierConfig(timeout_s=5.0))
    v.trusted_timeout_s = 2.0
    yield v
    v.close()


@pytest.mark.parametrize(
    "tests",
    [
        "from fractions import Fraction\nassert f(1) == 3 ** Fraction(10**8)",
        "assert f(1) == 2 ** 2 ** 40",
        "assert len(str(f(1))) == len('ab' * 10**9)",
        "assert f(1) == 2 or 'x' * 10**12",
        "import math\nassert f(1) == math.factorial(10**8)",
        "assert f(1) == sum([1] * 10**9)",
        # no size guard catches it: the wall clock does
        "assert f(1) == 2 and not any(x < 0 for x in range(10**7) for y in range(10**7))",
        "assert f(1) == " + "-" * 100_000 + "2",
    ],
)
def test_an_expected_value_past_the_bounds_makes_the_task_unverifiable(verifier, tests):
    verdict = verifier.verify(RIGHT, tests)
    assert not verdict.passed and verdict.status == "parse_error", verdict
    assert verdict.reason.startswith("unverifiable task"), verdict.reason


def test_the_worker_says_why_and_the_verifier_still_pays_right_programs_afterwards(verifier):
    status, why = score_job("assert f(1) == 2 ** 2 ** 40", ["f"], [], [2])
    assert status == "unverifiable" and "past the trusted evaluator's bounds" in why
    assert verifier.verify(RIGHT, "assert f(1) == 2\nassert f(2) == 3 ** 1").passed
    assert not verifier.verify("def f(x):\n    return x", "assert f(1) == 2").passed


def test_a_huge_value_the_program_returns_fails_the_assert_rather_than_the_task(verifier):
    verdict = verifier.verify("def f(x):\n    return 10 ** 12", "assert len('x' * f(1)) == 3")
    assert not verdict.passed and verdict.status == "failed", verdict


def test_expected_parts_are_the_parts_that_use_no_returned_value():
    expr = ast.parse("_v0 == 3 ** 5 and all(y > 2 * 4 for y in _v1)", mode="eval").body
    assert sorted(ast.unparse(p) for p in expected_parts(expr)) == ["2 * 4", "3 ** 5"]


def test_taking_a_huge_test_file_apart_is_bounded_too(verifier):
    """The plan (ast splitting of twenty thousand calls) runs in the bounded worker as well: the
    trainer never parses the tests itself."""
    tests = "assert f(1) == 2" + " and f(1) == 2" * 20_000
    verdict = verifier.verify(RIGHT, tests)
    assert not verdict.passed and verdict.reason.startswith("unverifiable task"), verdict


def test_a_test_file_nested_past_the_parser_is_unverifiable(verifier):
    verdict = verifier.verify(RIGHT, "assert f(1) == " + "1+" * 100_000 + "1")
    assert not verdict.passed and verdict.reason.startswith("unverifiable task"), verdict


def test_an_expected_value_past_the_memory_limit_is_refused_by_the_worker_not_the_trainer():
    """Forty lists of ten million items (3.2 GB) pass every size guard one by one; the worker's
    2 GiB address-space limit stops them with a MemoryError, and the task is unverifiable."""
    verifier = CodeVerifier(CodeVerifierConfig(timeout_s=5.0))
    verifier.trusted_timeout_s = 60.0
    try:
        verdict = verifier.verify(RIGHT, "assert f(1) == len([[0] * 9_999_999 for _ in range(40)])")
    finally:
        verifier.close()
    assert not verdict.passed and verdict.reason.startswith("unverifiable task"), verdict
    assert "MemoryError" in verdict.reason
