"""Issue 27, item 1: parsing is iterative and linear; no input raises anything but MathParseError.
Deep input is read on an explicit stack, so thousands of brackets, \\frac chains, nested boxes and
sign runs never reach the interpreter's recursion limit (which used to surface as a verifier error
and drop the whole group). A tree deeper than MAX_DEPTH is refused with a reason, never raised."""

import sys

import pytest

from stages.verifiers.config import MathVerifierConfig
from stages.verifiers.math_parse import MAX_DEPTH, MathParseError, parse_answer
from stages.verifiers.math_verifier import MathVerifier

DEEP = 5 * sys.getrecursionlimit()  # far past what recursion could take


def test_redundant_brackets_of_any_depth_parse_to_what_they_hold():
    assert parse_answer("(" * DEEP + "5" + ")" * DEEP) == parse_answer("5")
    assert parse_answer("{" * DEEP + "x+1" + "}" * DEEP) == parse_answer("x+1")


def test_a_run_of_signs_is_read_in_a_loop():
    assert parse_answer("-" * 2 + "5") == ("neg", ("neg", parse_answer("5")))
    assert parse_answer("+" * DEEP + "5") == parse_answer("5")


def test_a_long_frac12_chain_is_one_flat_product():
    node = parse_answer("\\frac12" * DEEP)
    assert node[0] == "mul" and len(node[1]) == DEEP


@pytest.mark.parametrize(
    "text",
    [
        "\\frac{1}{" * DEEP + "2" + "}" * DEEP,
        "\\sqrt{" * DEEP + "2" + "}" * DEEP,
        "2^{" * DEEP + "2" + "}" * DEEP,
        "2^" * DEEP + "2",
        "-(" * DEEP + "5" + ")" * DEEP,
        "1/" * DEEP + "2",
        "(" * DEEP + "5",  # unbalanced as well as deep
        "[" * DEEP + "1, 2" + ")" * DEEP,
    ],
)
def test_a_deep_tree_is_refused_with_a_reason_never_a_recursion_error(text):
    with pytest.raises(MathParseError):
        parse_answer(text)


def test_the_depth_bound_is_on_the_tree_just_past_it_is_refused():
    just = "\\sqrt{" * (MAX_DEPTH - 1) + "2" + "}" * (MAX_DEPTH - 1)
    parse_answer(just)
    with pytest.raises(MathParseError, match="nested deeper"):
        parse_answer("\\sqrt{" + just + "}")


@pytest.mark.parametrize(
    "response",
    [
        "\\boxed{" * DEEP + "5" + "}" * DEEP,
        "\\boxed{" + "\\frac{1}{" * DEEP + "2" + "}" * DEEP + "}",
        "\\boxed{" + "\\frac12" * DEEP + "}",
        "Answer: " + "(" * DEEP + "5" + ")" * (DEEP - 1),
    ],
)
def test_the_verifier_gives_deep_answers_a_clean_verdict(response):
    verifier = MathVerifier(MathVerifierConfig(max_answer_chars=1_000_000))
    verdict = verifier.verify(response, "5")
    verifier.close()
    # A loaded machine may run past the verifier's wall-clock limit: a timeout is a clean
    # verdict too (never a pass, never an exception).
    assert not verdict.passed and verdict.status in ("failed", "parse_error", "timeout"), verdict
