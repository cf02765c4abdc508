"""Right answers in another exact form (a function's value, exp, a mixed number, another unit of
the same kind) pass, and each form's look-alike that would pay a wrong answer fails. Round 7's
red team labelled these (s-math-013/014/026/030/031/032)."""

import pytest

from stages.verifiers.config import MathVerifierConfig
from stages.verifiers.math_verifier import MathVerifier


@pytest.fixture(scope="module")
def verifier():
    v = MathVerifier(MathVerifierConfig(timeout_s=30.0))
    yield v
    v.close()


# (form, response, reference, passes)
CASES = [
    ("a function's value names the answer", "\\boxed{f(x) = 5}", "5", True),
    ("a function's value at a number", "\\boxed{f(2) = 5}", "5", True),
    ("a function's value as a label", "\\boxed{P(A) = 0.5}", "\\frac12", True),
    ("a product of unknowns names no one answer", "\\boxed{mn = 12}", "12", False),
    ("a product of unknowns, spaced", "\\boxed{x y = 5}", "5", False),
    ("a ratio of unknowns names no one answer", "\\boxed{\\frac{a}{b} = 3}", "3", False),
    ("a product label against the same label", "\\boxed{mn = 12}", "mn = 12", True),
    ("a function's value with a false step", "\\boxed{f(x) = 3 = 5}", "5", False),
    ("exp(1) is e", "\\boxed{\\exp(1)}", "e", True),
    ("exp is e to the power", "\\boxed{\\exp(2)}", "e^2", True),
    ("exp of another power", "\\boxed{\\exp(2)}", "e^3", False),
    ("a LaTeX mixed number", "\\boxed{2\\frac{1}{2}}", "\\frac{5}{2}", True),
    ("a LaTeX mixed number, short form", "\\boxed{2\\frac12}", "2.5", True),
    ("a negative mixed number", "\\boxed{-3\\frac{1}{2}}", "-\\frac72", True),
    ("a mixed number is not a product", "\\boxed{2\\frac{1}{2}}", "1", False),
    ("a mixed number is not its whole part", "\\boxed{2\\frac{1}{2}}", "2", False),
    (
        "an exponent before a fraction is no whole part",
        "\\boxed{x^2\\frac{1}{2}}",
        "\\frac{x^2}{2}",
        True,
    ),
    ("the same length in another unit", "\\boxed{500 \\text{ cm}}", "5 \\text{ m}", True),
    ("the same time in another unit", "\\boxed{90 \\text{ minutes}}", "1.5 \\text{ hours}", True),
    ("a third of an hour", "\\boxed{\\frac{1}{3} \\text{ h}}", "20 \\text{ min}", True),
    ("the same area in another unit", "\\boxed{100 \\text{ cm}^2}", "0.01 \\text{ m}^2", True),
    ("a unit swap keeps the number", "\\boxed{5 \\text{ cm}}", "5 \\text{ m}", False),
    ("units of another kind", "\\boxed{2 \\text{ kg}}", "2 \\text{ m}", False),
    ("radians are not degrees", "\\boxed{30 \\text{ radians}}", "30^\\circ", False),
    (
        "a converted approximation of an exact value",
        "\\boxed{1.666 \\text{ m}}",
        "\\frac{5}{3}\\text{ m}",
        False,
    ),
    ("a unit the reference leaves out is not converted", "\\boxed{1 \\text{ hour}}", "60", False),
    # round 11: wrong answers the first version of these forms paid, and their right twins
    ("a hectare is 10^4 square metres", "\\boxed{1 \\text{ ha}}", "10000 \\text{ m}^2", True),
    (
        "a hectare is not 10^6 square metres",
        "\\boxed{1 \\text{ ha}}",
        "1000000 \\text{ m}^2",
        False,
    ),
    ("a megametre is not a millimetre", "\\boxed{1 \\text{ Mm}}", "0.001 \\text{ m}", False),
    ("a megagram is not a milligram", "\\boxed{2 \\text{ Mg}}", "2 \\text{ mg}", False),
    ("a spelled-out unit in capitals", "\\boxed{5 \\text{ Meters}}", "5 \\text{ m}", True),
    ("exp without brackets is unsaid", "\\boxed{\\exp 2x}", "x e^2", False),
    ("exp with braces", "\\boxed{\\exp{2x}}", "e^{2x}", True),
    ("a residue with its modulus", "\\boxed{5 \\pmod{7}}", "5", True),
    ("a residue under another modulus", "\\boxed{5 \\pmod 7}", "5 \\pmod 8", False),
    (
        "a justification outside the grammar",
        "\\boxed{5}. Since \\lfloor 6.5\\rfloor = 5.",
        "5",
        False,
    ),
    (
        "a false justification by a root",
        "\\boxed{5}. This is because $\\sqrt{36} = 5$.",
        "5",
        False,
    ),
    ("a true justification by a root", "\\boxed{6}. This is because $\\sqrt{36} = 6$.", "6", True),
    ("the writer gave up", "I gave up.\n\\boxed{5}", "5", False),
    ("the writer did not check", "I didn't check.\n\\boxed{5}", "5", False),
    ("a wild stab", "This is just a wild stab.\n\\boxed{5}", "5", False),
    ("an unfinished note", "TODO: verify\n\\boxed{5}", "5", False),
    ("a checked answer", "I checked it twice.\n\\boxed{5}", "5", True),
]


@pytest.mark.parametrize(
    ("form", "response", "reference", "passes"), CASES, ids=[c[0] for c in CASES]
)
def test_equivalent_form(verifier, form, response, reference, passes) -> None:
    verdict = verifier.verify(response, reference)
    assert verdict.passed is passes, (form, verdict.reason)


def test_a_converted_answer_says_so(verifier) -> None:
    verdict = verifier.verify("\\boxed{500 \\text{ cm}}", "5 \\text{ m}")
    assert verdict.details["converted"] == "cm -> m"


@pytest.mark.parametrize(
    ("response", "reference", "passed"),
    [
        ("\\boxed{0.\\dot{3}}", "\\frac13", True),
        ("\\boxed{0.\\dot{1}4285\\dot{7}}", "\\frac17", True),
        ("\\boxed{0.333\\ldots}", "\\frac13", True),
        ("\\boxed{0.1666...}", "\\frac16", True),
        ("\\boxed{0.33\\ldots}", "\\frac13", False),  # a digit twice is no cycle
        ("\\boxed{\\langle 1, 2\\rangle}", "(1, 2)", True),
        ("\\boxed{\\langle 2, 1\\rangle}", "(1, 2)", False),
        ("\\boxed{\u0660\u066b\u0665}", "0.5", True),
        ("\\boxed{101_{2}}", "101_2", True),
        ("\\boxed{5}", "101_2", False),  # the base was asked
        ("<strong>Answer:</strong> 5", "5", True),
        ("Answer: `5`", "5", True),
        ("```\n\\boxed{5}\n```", "5", True),
        ("Die Antwort ist 5.", "5", True),
        ("Ich glaube, die Antwort ist 5.", "5", False),
        ("Cevap: 5", "5", True),
        ("Result: 5!", "5", False),
        # round 13
        ('{"answer": 5}', "5", True),
        ('{"reasoning": "2 + 3", "answer": 5}', "5", True),
        ('{"status": "guess", "answer": 5}', "5", False),
        ("<answer> $\\frac{1}{2}$ </answer>", "\\frac12", True),
        ("答案：$\\frac{1}{2}$", "\\frac12", True),
        ("The answer is 0.666...", "\\frac23", True),
        ("\\boxed{0.\\dot3}", "\\frac13", True),
        ("\\boxed{101_{(2)}}", "101_2", True),
        ("\\boxed{\\langle 3 \\rangle}", "3", False),  # a group's generator
        ("\\boxed{[1, 2\\rangle}", "[1, 2)", False),  # mismatched brackets
    ],
)
def test_round12_forms(verifier, response: str, reference: str, passed: bool) -> None:
    assert verifier.verify(response, reference).passed is passed
