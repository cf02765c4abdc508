"""Round 16 mends to the math verifier (issue 27, red team round 15's open cases). Each wrong
response names the mechanism it must not be paid for; each right one is the near-variant the new
rule must leave paid. Every new pattern also meets a long filler input in bounded time."""

from __future__ import annotations

import time

import pytest

from stages.verifiers.math_exact import rewrite_forms, side_value
from stages.verifiers.registry import build_verifier

VERIFIER = build_verifier({"kind": "math"})

WRONG = [
    # a false equation before the box whose left side the answer grammar cannot compute as written
    ("false_sqrt", "So $\\sqrt{36} = \\boxed{7}$.", "7"),
    ("false_cube_root", "So $\\sqrt[3]{27} = \\boxed{9}$.", "9"),
    ("false_binom", "Hence $\\binom{5}{2} = \\boxed{12}$.", "12"),
    ("false_dbinom", "Hence $\\dbinom{6}{3} = \\boxed{15}$.", "15"),
    ("false_choose", "Hence ${5 \\choose 2} = \\boxed{20}$.", "20"),
    ("false_factorial", "There are $4!$ orders.\n\nTherefore $4! = \\boxed{20}$.", "20"),
    ("false_factorial_sum", "So $(2+2)! = \\boxed{20}$.", "20"),
    ("false_floor", "So $\\lfloor 3.7 \\rfloor = \\boxed{4}$.", "4"),
    ("false_ceil", "So $\\left\\lceil 3.2 \\right\\rceil = \\boxed{3}$.", "3"),
    ("false_abs", "So $|3 - 10| = \\boxed{-7}$.", "-7"),
    ("false_nested", "So $\\lfloor \\sqrt{10.24} \\rfloor ! = \\boxed{24}$.", "24"),
    ("false_scaled_floor", "So $2\\lfloor 3.7 \\rfloor = \\boxed{23}$.", "23"),
    ("false_in_justification", "\\boxed{20}. Since $4! = 20$.", "20"),
]

RIGHT = [
    ("true_sqrt", "So $\\sqrt{36} = \\boxed{6}$.", "6"),
    ("true_binom", "Hence $\\binom{5}{2} = \\boxed{10}$.", "10"),
    ("true_factorial", "There are $4!$ orders.\n\nTherefore $4! = \\boxed{24}$.", "24"),
    ("true_floor", "So $\\lfloor 3.7 \\rfloor = \\boxed{3}$.", "3"),
    ("true_abs", "So $|3 - 10| = \\boxed{7}$.", "7"),
    ("true_scaled_floor", "So $2\\lfloor 3.7 \\rfloor = \\boxed{6}$.", "6"),
    ("true_nested", "So $\\lfloor \\sqrt{10.24} \\rfloor ! = \\boxed{6}$.", "6"),
    ("irrational_root_unjudged", "So $\\sqrt{2} \\cdot \\sqrt{2} = \\boxed{2}$.", "2"),
    ("abs_in_justification", "\\boxed{5}. Since $|{-5}| = 5$.", "5"),
]


@pytest.mark.parametrize(("name", "response", "reference"), WRONG, ids=[w[0] for w in WRONG])
def test_a_wrong_response_is_not_paid(name: str, response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert not verdict.passed, f"{name}: {verdict.reason}"


@pytest.mark.parametrize(("name", "response", "reference"), RIGHT, ids=[r[0] for r in RIGHT])
def test_a_right_response_is_paid(name: str, response: str, reference: str) -> None:
    verdict = VERIFIER.verify(response, reference)
    assert verdict.passed, f"{name}: {verdict.reason}"


def test_forms_beyond_the_bounds_are_left_as_written() -> None:
    assert rewrite_forms("101!") == "101!"  # past MAX_FACTORIAL
    assert rewrite_forms("5!!") == "5!!"  # a double factorial is not read as 5!
    assert rewrite_forms("a != b") == "a != b"
    assert side_value("\\binom{5}{x}") is None
    assert side_value("\\lfloor x \\rfloor") is None
    assert side_value("\\sqrt{10^{400}}") is None
    assert rewrite_forms("1! + " * 200) == "1! + " * 200  # past MAX_TEXT: bounded work


FILLERS = [
    "\\lfloor " * 6000,
    "\\left\\lceil 1" * 4000,
    "\\binom{" * 8000,
    "{1 \\choose " * 5000,
    "(" * 30000 + "!",
    "{" * 30000 + "!",
    "1!" * 15000,
    "x " * 20000 + "= \\boxed{5}",
]


@pytest.mark.parametrize("filler", FILLERS, ids=range(len(FILLERS)))
def test_long_filler_is_read_in_bounded_time(filler: str) -> None:
    start = time.perf_counter()
    VERIFIER.verify(f"So ${filler} = \\boxed{{5}}$.", "5")
    rewrite_forms(filler)
    assert time.perf_counter() - start < 0.2
