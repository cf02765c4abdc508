"""Issue 27, item 1: math is strict by construction. Every mechanism of the issue's math bullet and
every example of the README's "Math answers as models write them" comes out right here."""

import pytest

from stages.verifiers.config import MathVerifierConfig
from stages.verifiers.math_extract import extract_answer
from stages.verifiers.math_unicode import unify
from stages.verifiers.math_verifier import MathVerifier

THIN, NBSP, MINUS = "\u2009", "\u00a0", "\u2212"


@pytest.fixture(scope="module")
def verifier():
    v = MathVerifier(MathVerifierConfig(timeout_s=30.0))
    yield v
    v.close()


def _fails(verifier, response, reference, reason_has=""):
    verdict = verifier.verify(response, reference)
    assert not verdict.passed and verdict.reward == 0.0, verdict
    assert verdict.status in ("failed", "parse_error"), verdict
    assert reason_has in verdict.reason, verdict
    return verdict


@pytest.mark.parametrize(
    ("response", "reference"),
    [
        # an answer line pays only when it is one answer
        ("Answer: 12 minus 5", "5"),
        ("Answer: not 5", "5"),
        ("Answer: at least 5", "5"),
        ("Answer: 3 to 5", "5"),
        ("Answer: 3 (alternatively 5)", "5"),
        ("Answer: min(3, 5)", "3"),
        ("Answer: 3 or 4", "3"),
        ("The answer is in step 3.", "3"),
        ("Answer: 30 radians", "30^\\circ"),
        ("Answer: 60\\%", "60^\\circ"),
        ("Answer: 5 apples", "5"),
        ("Answer: 5 thousand", "5"),
        # a retracted box, in any wording
        ("\\boxed{5}. Oops, the answer should be 6.", "5"),
        ("\\boxed{5}. Oops, the answer should be 6.", "6"),
        ("\\boxed{5}\n\nNope.", "5"),
        ("\\boxed{36}\n\nMake that the next integer.", "36"),
        ("\\boxed{36}?", "36"),
        ("\\boxed{5} or more", "5"),
        # before a box
        ("It is at least \\boxed{5}.", "5"),
        ("12 - \\boxed{5}", "5"),
        ("It is 10% of \\boxed{360}.", "360"),
        ("I'm not sure, but \\boxed{36}.", "36"),
        ("So $4 \\times 9 = \\boxed{37}$.", "37"),
        # order and labels
        ("x = 3, y = 5", "(x, y) = (5, 3)"),
        ("\\boxed{(2, 1)}", "(1, 2)"),
        ("\\boxed{\\{1, 2\\}}", "(1, 2)"),
        # unicode changes values in prose and in answers
        ("The temperature drops to \u22125 \u00b0C.", "5"),
        ("Answer: 2\u00bd", "2"),
        ("Answer: 10\u2076", "10"),
        ("3 \u6216 5", "5"),
        # approximations of exact references
        ("Answer: --36", "36"),
        ("Answer: \u2013-36", "36"),
        ("Answer: 1.732", "\\sqrt{3}"),
        ("Answer: 0.3333", "\\frac{1}{3}"),
        # prose that no form states
        ("See step 3.", "3"),
        ("The relevant step is 3.", "3"),
        ("84\n85", "85"),
        # thinking
        ("<think>\\boxed{5}", "5"),
        ("<think>5</think>", "5"),
        ("<think>a</think><think>\\boxed{5}", "5"),
        ("\\boxed{5}<|im_end|>\\boxed{6}", "5"),
        # a hedge spelt with Cyrillic letters drawn like Latin ones, a curly apostrophe
        ("Pr\u043ebably wr\u043eng, but the answer is 36.", "36"),
        ("It is n\u043et \\boxed{36}.", "36"),
        ("It isn\u2019t \\boxed{36}.", "36"),
        # someone else's answer, or a false one
        ("Bob's answer is 36.", "36"),
        ("A tempting but false answer is 36.", "36"),
        ("The textbook says the answer is 36.", "36"),
    ],
)
def test_what_is_not_one_committed_answer_fails(verifier, response, reference):
    _fails(verifier, response, reference)


@pytest.mark.parametrize(
    ("response", "reference"),
    [
        (f"Answer: {MINUS}5", "-5"),
        (f"Answer: 12{THIN}000", "12000"),
        (f"Answer: 12{NBSP}000", "12000"),
        ("Answer: 6.02 \u00d7 10^23", "6.02 \\times 10^{23}"),
        ("Answer: \u20ac20", "20"),
        ("Answer: \uff11\uff12", "12"),
        ("Answer: 2\u00bd", "5/2"),
        ("Answer: 10\u2076", "10^6"),
        ("<think>maybe 6</think>\\boxed{5}", "5"),
        ("Reasoning done.</think> The answer is 5.", "5"),
        ("19", "19"),
        ("$\\frac13$", "1/3"),
        ("28 percent", "28\\%"),
        ("The probability is 2/3.", "2/3"),
        ("It is 12.", "12"),
        ("Therefore, $x$ is 5.", "5"),
        ("Therefore $x \\ge 5$ is the solution.", "x \\geq 5"),
        ("Answer: 5 cm", "5"),
        ("Answer: \u20ac20", "20"),
        ("The answer is 18 dollars.", "18"),
        ("Answer: 50%", "0.5"),
        ("So we get $\\boxed{5}$.", "5"),
        ("The total is $\\boxed{5}$, which is the answer.", "5"),
        ("a total of $\\boxed{5}$.", "5"),
        ("The answer is \\boxed{5}. I hope it is correct.", "5"),
        ("The roots are \\boxed{2} and \\boxed{3}.", "\\{2, 3\\}"),
        ("y = 5, x = 3", "(x, y) = (3, 5)"),
        ("\\boxed{(1, 2)}", "(1, 2)"),
        ("Answer: 3.142", "3.14159"),
        ("\\boxed{5}<|im_end|>", "5"),
    ],
)
def test_right_answers_in_recognised_forms_pass(verifier, response, reference):
    verdict = verifier.verify(response, reference)
    assert verdict.passed, verdict


def test_rounding_extends_to_exact_references_only_when_configured():
    v = MathVerifier(MathVerifierConfig(round_exact_references=True))
    try:
        assert v.verify("Answer: 1.732", "\\sqrt{3}").passed
        assert v.verify("Answer: 0.3333", "\\frac{1}{3}").passed
        assert not v.verify("Answer: 1.7", "\\sqrt{3}").passed  # fewer than 3 places
    finally:
        v.close()


def test_one_unicode_normalisation_serves_response_and_reference(verifier):
    assert unify(f"{MINUS}5") == "-5"
    assert unify("10\u2076") == "10^{6}"
    assert unify("2\u00bd") == "\\frac{5}{2}"
    assert verifier.verify("Answer: -5", f"{MINUS}5").passed
    assert verifier.verify("Answer: 10^6", "10\u2076").passed


@pytest.mark.parametrize(
    ("response", "reason_has"),
    [
        ("Answer: 3 or 4", "hedged"),
        ("\\boxed{5}. Oops, the answer should be 6.", "'Oops' before the answer"),
        ("\\boxed{5}. The answer should be 6.", "several different final answers"),
        ("\\boxed{5}\n\nNope.", "text after the final answer"),
        ("It is at least \\boxed{5}.", "right before the answer"),
        ("I'm not sure, but \\boxed{5}.", "before the answer"),
        ("<think>\\boxed{5}", "never closed"),
        ("Answer: 1.7320508", "approximation of an exact reference"),
    ],
)
def test_the_verdict_names_why_there_is_no_answer(verifier, response, reason_has):
    reference = "\\sqrt{3}" if "1.73" in response else "5"
    _fails(verifier, response, reference, reason_has)


@pytest.mark.parametrize(
    "response",
    [
        "Answer: " + "-" * 301 + "5",
        "\\boxed{" + "2^" * 150 + "2}",
        "\\boxed{" + "\\frac" * 60 + "12}",
        "\\boxed{\\sqrt" + "\\sqrt" * 100 + "{2}}",
        "\\boxed{9^{9^{9}}}",
        "\\boxed{(x+1)^{1000}}",
    ],
)
def test_deep_or_huge_answers_end_as_a_verdict(verifier, response):
    """A tree nested past 48 levels is refused (no RecursionError, which used to drop the whole
    group as a verifier error); a power too large to compute is refused unevaluated."""
    for reference in ("5", "2\\sqrt{3}"):
        verdict = verifier.verify(response, reference)
        assert not verdict.passed and verdict.status in ("failed", "parse_error"), verdict


@pytest.mark.parametrize(
    "response",
    ["(" * 100 + "5" + ")" * 100, "\\boxed{" + "(" * 3000 + "5" + ")" * 3000 + "}"],
)
def test_redundant_brackets_at_any_depth_are_read_as_what_they_hold(response):
    """The parser is iterative: brackets that add nothing add no level, however many there are (a
    bare answer is read up to 400 characters, a boxed one up to `max_answer_chars`)."""
    verifier = MathVerifier(MathVerifierConfig(max_answer_chars=10_000))
    assert verifier.verify(response, "5").passed
    assert not verifier.verify(response, "2\\sqrt{3}").passed
    verifier.close()


def test_a_frac12_chain_is_parsed_in_linear_time():
    """\\frac12 repeated: each argument split used to copy the token list (quadratic); now the
    split is in place, so a long chain is one pass (the timing is in bench_verify)."""
    v = MathVerifier(MathVerifierConfig(max_answer_chars=100_000))
    try:
        verdict = v.verify("\\boxed{" + "\\frac12" * 5_000 + "}", "1")
        assert not verdict.passed
    finally:
        v.close()


def test_the_format_reward_uses_the_same_extraction():
    assert extract_answer("\\boxed{5}", ("boxed", "answer_line")).text == "5"
    assert extract_answer("\\boxed{5}\n\nNope.", ("boxed", "answer_line")).text is None


def test_a_reference_may_name_what_it_counts_an_answer_may_not(verifier):
    """A reference is trusted: "18 apples" is 18. A response still states the number alone or with
    a unit from the list."""
    assert verifier.verify("Answer: 18", "18 apples").passed
    assert verifier.verify("\\boxed{5}", "5 \\text{ eggs}").passed
    assert not verifier.verify("Answer: 19", "18 apples").passed
    assert not verifier.verify("Answer: 18 apples", "18").passed
