import pytest

from stages.verifiers.config import MathVerifierConfig
from stages.verifiers.math_normalise import normalise
from stages.verifiers.math_parse import MathParseError, parse_answer
from stages.verifiers.math_verifier import MathVerifier


@pytest.fixture(scope="module")
def verifier():
    # A limit no honest check comes near even on a loaded machine (1 s timed out x^2+2x+1 under a
    # load of 14 on 2 cores): these tests judge verdicts; the tests about the limit set their own.
    v = MathVerifier(MathVerifierConfig(timeout_s=30.0))
    yield v
    v.close()


@pytest.mark.parametrize(
    ("response", "reference"),
    [
        ("19", "19"),
        ("-4", "-4"),
        ("So the answer is \\boxed{\\frac{1}{2}}.", "0.5"),
        ("\\boxed{\\dfrac12}", "1/2"),
        ("#### 1,000", "1000"),
        ("The answer is $12.50.", "12.5"),
        ("Answer: 50%", "0.5"),
        ("Answer: 1.5e3", "1500"),
        ("Answer: 1.5 \\times 10^{3}", "1500"),
        ("x = 3", "3"),
        ("Answer: 3", "x = 3"),
        ("37+48=85", "85"),
        ("\\boxed{2\\sqrt{3}}", "\\sqrt{12}"),
        ("\\boxed{\\frac{\\pi}{2}}", "\\pi/2"),
        ("\\boxed{(1, -2)}", "(1,-2)"),
        ("\\boxed{\\{3, 1\\}}", "\\{1, 3\\}"),
        ("\\boxed{x^2+2x+1}", "(x+1)^2"),
        ("Answer: 3.142", "3.14159"),
        ("\\boxed{90^\\circ}", "90"),
        ("\\boxed{5 \\text{ cm}}", "5"),
    ],
)
def test_equivalent_forms_pass(verifier, response, reference):
    verdict = verifier.verify(response, reference)
    assert verdict.passed, verdict
    assert verdict.reward == 1.0 and verdict.status == "ok"


@pytest.mark.parametrize(
    ("response", "reference", "status"),
    [
        ("20", "19", "failed"),
        ("-19", "19", "failed"),
        ("Answer: 37+48", "85", "failed"),
        ("\\boxed{37+48}", "85", "failed"),
        ("37+48", "85", "failed"),
        ("3 or 4", "3", "failed"),
        ("The answer is 3 or 4.", "4", "failed"),
        ("Answer: 3\nAnswer: 4", "4", "failed"),
        ("\\boxed{3} and then \\boxed{4}", "4", "failed"),
        ("84 85", "85", "failed"),
        ("", "85", "parse_error"),
        ("I don't know", "85", "parse_error"),
        ("\\boxed{(2, 1)}", "(1, 2)", "failed"),
        ("\\boxed{2}", "(1, 2)", "failed"),
        ("\\boxed{y = 3}", "x = 3", "failed"),
        ("Answer: 0.3", "\\frac{1}{3}", "failed"),
        ("Answer: 0.333", "\\frac{1}{3}", "failed"),
        ("Answer: 1.414", "\\sqrt{2}", "failed"),
        ("\\boxed{x^2+1}", "(x+1)^2", "failed"),
    ],
)
def test_wrong_hedged_conflicting_and_echoed_answers_fail(verifier, response, reference, status):
    verdict = verifier.verify(response, reference)
    assert not verdict.passed and verdict.reward == 0.0
    assert verdict.status == status, verdict


@pytest.mark.parametrize(
    "payload",
    [
        "__import__('os').system('touch {marker}')",
        "\\boxed{{__import__('os').system('touch {marker}')}}",
        "Answer: exec(\"open('{marker}', 'w')\")",
        "\\boxed{{eval(\"open('{marker}','w')\")}}",
        "\\boxed{{(lambda: open('{marker}', 'w'))()}}",
        "Answer: ().__class__.__bases__[0].__subclasses__()",
    ],
)
def test_python_injection_strings_are_never_executed(verifier, tmp_path, payload):
    marker = tmp_path / "pwned"
    response = payload.format(marker=marker)
    for reference in ("85", "x + 1", "\\sqrt{2}"):
        verdict = verifier.verify(response, reference)
        assert not verdict.passed
    assert not marker.exists()


def test_the_parser_rejects_anything_outside_the_grammar():
    for text in ("__import__", "os.system('x')", "a[0]", "x.y", "lambda: 1", "'s'", "x := 1"):
        with pytest.raises(MathParseError):
            parse_answer(normalise(text))


@pytest.mark.parametrize(
    "bomb", ["\\boxed{9**9**9**9}", "\\boxed{9^{9^{9^{9}}}}", "\\boxed{(10^{10^{10}})!}"]
)
def test_exponent_blowups_end_as_a_verdict_and_the_verifier_recovers(bomb):
    # The verifier's own limit ends a blow-up as a "timeout" verdict (how long that takes is
    # measured by tests/benchmarks/bench_verify.py: no wall clock in unit tests). 2 s: the bombs
    # never finish, and the honest checks around them finish inside it even under load.
    v = MathVerifier(MathVerifierConfig(timeout_s=2.0))
    try:
        assert v.verify("\\boxed{\\sqrt{8}}", "2\\sqrt{2}").details["path"] == "sympy"
        verdict = v.verify(bomb, "\\sqrt{2}")
        assert not verdict.passed and verdict.status in ("timeout", "parse_error", "failed")
        if verdict.status == "timeout":
            assert "exceeded 2.0s" in verdict.reason
        assert v.verify("\\boxed{\\sqrt{8}}", "2\\sqrt{2}").passed
    finally:
        v.close()


@pytest.mark.parametrize("reference", ["85", "2\\sqrt{3}", "x + 1"])
def test_an_echoed_blowup_fails_without_any_computation(verifier, reference):
    """9^(9^9) has 370 million digits: against an irrational reference sympy would compute it
    until the worker is killed, so it is refused before any arithmetic."""
    for bomb in ("Answer: 9**9**9**9", "\\boxed{9^{9^{9}}}"):
        verdict = verifier.verify(bomb, reference)
        assert not verdict.passed and verdict.status == "failed"
        # Decided by the fast path (never sent to sympy's worker), for a reason needing no arithmetic.
        assert verdict.details["path"] == "fast"
        assert verdict.reason == "a power too large to compute or expand (never computed)"


def test_a_batch_keeps_order_and_mixes_fast_and_symbolic_paths(verifier):
    items = [
        ("19", "19"),
        ("\\boxed{2\\sqrt{2}}", "\\sqrt{8}"),
        ("18", "19"),
        ("\\boxed{2\\pi}", "\\pi + \\pi"),
    ]
    verdicts = verifier.verify_batch(items)
    assert [v.passed for v in verdicts] == [True, True, False, True]
    assert [v.details["path"] for v in verdicts] == ["fast", "sympy", "fast", "sympy"]


def test_an_unparseable_reference_is_a_verdict_not_an_exception(verifier):
    verdict = verifier.verify("3", "three hundred and \\weird{x}")
    assert verdict.status == "parse_error" and "reference" in verdict.reason


def test_rounding_an_exact_reference_is_wrong_unless_configured():
    """decimal_rounding_places serves decimal references; round_exact_references extends it to
    exact ones (Math-Verify's float_rounding does so for every reference)."""
    default, rounding = (
        MathVerifier(),
        MathVerifier(MathVerifierConfig(round_exact_references=True)),
    )
    try:
        for response, reference in [
            ("Answer: 0.333", "\\frac{1}{3}"),
            ("Answer: 1.414", "\\sqrt{2}"),
        ]:
            assert default.verify(response, reference).reason == (
                "a decimal approximation of an exact reference"
            )
            assert rounding.verify(response, reference).passed
    finally:
        default.close()
        rounding.close()


def test_extraction_order_is_configurable():
    v = MathVerifier(MathVerifierConfig(extraction=["answer_line"]))
    assert not v.verify("it is 19", "19").passed
    assert v.verify("Answer: 19", "19").passed
