"""Issue 27, second pass: where the strict rules refused right answers as models write them, each
rule was relaxed by a precise form. Every relaxed rule is checked on both sides here: the right
answer in that form passes, and the look-alike that would pay a wrong answer still fails."""

import pytest

from stages.verifiers.config import MathVerifierConfig
from stages.verifiers.math_context import strip_filler, unescaped
from stages.verifiers.math_verifier import MathVerifier


@pytest.fixture(scope="module")
def verifier():
    v = MathVerifier(MathVerifierConfig(timeout_s=30.0))
    yield v
    v.close()


# (rule, right answer that passes, reference, look-alikes that must fail for the same reference)
RULES = [
    (
        "a justification after the final answer",
        "The answer is \\boxed{5}. This is because 2 + 3 = 5.",
        "5",
        [
            "\\boxed{5}. This is because 2 + 3 = 6.",
            "\\boxed{5}. Because we need 6.",
            "\\boxed{5}. Because it is actually the next integer.",
            "\\boxed{5}. This works because we exchange p and q.",
            "\\boxed{5}. Because 2 + 3 = 5. Make that 6.",
            "\\boxed{5}. Since 2 + 3 = 5 cm.",
            "\\boxed{5}. Because $2+3 = 5$ is false.",
            "\\boxed{5}. This is because the answer is 6.",
            "\\boxed{5}. Indeed, six.",
        ],
    ),
    (
        "a boxed count's noun",
        "Thus, there are $\\boxed{2}$ distinct possible values for $B$.",
        "2",
        [
            "There are \\boxed{2} values less than the answer.",
            "There are \\boxed{2} thousand values.",
            "There are \\boxed{2} apples.",
            "There are \\boxed{2} solutions for part b.",
            "There are \\boxed{2} values, but 3 in all.",
        ],
    ),
    (
        "the same value restated in the answer's sentence",
        "So the probability is \\boxed{\\frac{1}{2}}, or 50%.",
        "\\frac{1}{2}",
        [
            "So the probability is \\boxed{\\frac{1}{2}}, or 60%.",
            "\\boxed{\\frac{1}{2}} (or 0.6)",
            "\\boxed{\\frac{1}{2}} = \\frac{1}{3}",
            "\\boxed{\\frac{1}{2}}, or 50% of 3.",
        ],
    ),
    (
        "two boxes of one value",
        "\\boxed{\\frac{1}{2}} or equivalently \\boxed{0.5}",
        "0.5",
        ["\\boxed{\\frac{1}{2}} or equivalently \\boxed{0.6}", "\\boxed{0.5} or \\boxed{0.6}"],
    ),
    (
        "one variable's solutions joined by 'or'",
        "\\boxed{x = 3 \\text{ or } x = -3}",
        "\\pm 3",
        [
            "\\boxed{x = 3 \\text{ or } x = 3 \\text{ or } x = 4}",
            "\\boxed{x = 3 \\text{ or } y = -3}",
        ],
    ),
    (
        "a pronoun and a closed verb",
        "She has \\boxed{18} dollars left.",
        "18",
        [
            "She has \\boxed{18} more.",
            "She thinks \\boxed{18}.",
            "She had \\boxed{18}.",
            "She needs \\boxed{18} dollars each.",
            "Teacher has \\boxed{18}.",
            "WolframAlpha has \\boxed{18}.",
            "They have \\boxed{18} thousand.",
        ],
    ),
    (
        "a congruence before a box",
        "Then, $129^{34}+96^{38} \\equiv \\boxed{9} \\pmod{11}.$",
        "9",
        ["Then, $129^{34}+96^{38} \\equiv \\boxed{9} + 11 \\pmod{11}.$"],
    ),
    (
        "a label naming what follows",
        "Special matrix: $ \\left[\\begin{array}{cc}1 & 2 \\\\3 & 4\\end{array}\\right] $",
        "\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}",
        [
            "Wrong matrix: $\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}$",
            "Matrix with errors: $\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}$",
        ],
    ),
    (
        "a power of ten is a number",
        "\\boxed{10^6}",
        "1000000",
        ["\\boxed{10^5}", "\\boxed{10^{3} \\cdot 10^{3}}"],
    ),
    (
        "a response escaped as a string",
        "So the coordinates are $\\\\boxed{\\\\left( 3, \\\\frac{\\\\pi}{2} \\\\right)}.$",
        "(3, \\frac{\\pi}{2})",
        ["So $\\\\boxed{\\\\left( 3, \\\\frac{\\\\pi}{2} \\\\right)}$. Oops, \\\\boxed{4}."],
    ),
    (
        "a lead naming a step of working",
        "After simplification: $\\boxed{\\frac{\\sqrt{3}}{3}}$",
        "\\frac{1}{\\sqrt{3}}",
        [
            "After a mistake, $\\boxed{\\frac{\\sqrt{3}}{3}}$",
            "After step 1, $\\boxed{\\frac{\\sqrt{3}}{3}}$",
        ],
    ),
    (
        "an operand before '=' is no label",
        "So $a + b = \\boxed{7}$.",
        "7",
        ["So $a + b = \\boxed{7} + 1$.", "So $3 + 5 = \\boxed{7}$."],
    ),
    (
        "a unit after a box in an answer line",
        "The answer is $\\boxed{5}$ meters.",
        "5",
        ["The answer is $\\boxed{5}$ thousand.", "The answer is $\\boxed{5}$ or 6."],
    ),
    (
        "a check with a check mark",
        "The answer is $\\boxed{42}$.\n\nTo verify: $6 \\times 7 = 42$. \u2713",
        "42",
        ["The answer is $\\boxed{42}$.\n\nTo verify: $6 \\times 7 = 43$. \u2713"],
    ),
    (
        "a step of working that gives the answer",
        "Evaluating at $x = 2$ gives $\\boxed{7}$.",
        "7",
        [
            "Solving the wrong equation gives $\\boxed{7}$.",
            "Using step 1 gives $\\boxed{7}$.",
            "Setting x = 8 gives $\\boxed{7}$ less.",
            "Taking the draft value gives $\\boxed{7}$.",
        ],
    ),
    (
        "each of the problem's things, or a pronoun, and a closed verb",
        "In total she spent $\\boxed{\\$7}$. Each friend pays $\\boxed{\\$7}$.",
        "7",
        ["Each friend pays at least $\\boxed{7}$.", "She spent not $\\boxed{7}$."],
    ),
    (
        "working before an aligned chain",
        "We use the distance formula: \\begin{align*} d &= \\sqrt{117} = \\boxed{3\\sqrt{13}}."
        " \\end{align*}",
        "3\\sqrt{13}",
        [
            "We use a wrong formula: \\begin{align*} d &= \\boxed{3\\sqrt{13}}. \\end{align*}",
            "We use my guess: \\begin{align*} d &= \\boxed{3\\sqrt{13}}. \\end{align*}",
        ],
    ),
]


@pytest.mark.parametrize(("rule", "right", "reference", "wrong"), RULES, ids=[r[0] for r in RULES])
def test_each_relaxed_rule_pays_its_form_and_not_its_look_alikes(
    verifier, rule, right, reference, wrong
):
    verdict = verifier.verify(right, reference)
    assert verdict.passed, (rule, verdict)
    for response in wrong:
        verdict = verifier.verify(response, reference)
        assert not verdict.passed and verdict.reward == 0.0, (rule, response, verdict)


def test_chat_sign_offs_are_closing_formulae_but_bounded():
    note = (
        " [Note: The solution provided is correct, but it's always a good idea to double-check the"
        " calculations and reasoning, especially for more complex problems. If you have any"
        " questions or need further clarification, please feel free to ask. Thank you!]"
    )
    assert strip_filler("\\boxed{5}." + note * 3 + " [Note") == "\\boxed{5}."
    many = "\\boxed{5}." + " Thank you!" * 100_000  # bounded: stripped at most 32 times
    assert strip_filler(many).startswith("\\boxed{5}. Thank you!")


def test_only_a_response_escaped_throughout_is_unescaped():
    assert unescaped("$\\\\frac{1}{2}$\\n") == "$\\frac{1}{2}$\n"
    mixed = "a \\\\ b \\frac12 \\\\boxed{3}"  # a LaTeX row break next to a real command
    assert unescaped(mixed) == mixed


def test_an_exact_answer_matches_only_a_float_reference_of_six_places(verifier):
    assert verifier.verify("\\boxed{\\frac{1}{3}}", "0.333333").passed
    assert not verifier.verify("\\boxed{\\frac{1}{3}}", "0.333").passed  # may be exact as written
    assert not verifier.verify("\\boxed{\\frac{1}{3}}", "0.333334").passed
    assert not verifier.verify("\\boxed{\\frac{355}{113}}", "\\pi").passed


@pytest.mark.parametrize(
    "response",
    [
        "\\renewcommand{\\pi}{3}\nSo the area is $\\boxed{\\pi}$.",
        "\\iffalse \\fi The answer is $\\boxed{\\pi}$.",
        "<think>a</think>\\boxed{4}<think>b</think>\\boxed{\\pi}",
        # lead's review of the round-4 holdout: verbatim text is shown, never typeset
        "\\begin{verbatim}\n\\boxed{\\pi}\n\\end{verbatim}",
        "\\begin{lstlisting}\n\\boxed{\\pi}\n\\end{lstlisting}",
        "The answer: \\verb|\\boxed{\\pi}|",
    ],
)
def test_redefined_hidden_or_earlier_visible_answers_leave_no_answer(verifier, response):
    verdict = verifier.verify(response, "\\pi")
    assert not verdict.passed and verdict.reason, verdict


def test_hiding_commands_are_found_by_whole_name_and_bounded(verifier):
    assert verifier.verify(
        "So $\\left( 3, 5 \\right)$ is $\\boxed{\\left(3, 5\\right)}$.", "(3, 5)"
    ).passed
    assert not verifier.verify("\\gdef\\x{5} \\boxed{5}", "5").passed
    flood = "\\lets" * 200_000 + "\\boxed{5}"  # "let" more than MAX_NAME_HITS times: no answer
    assert not verifier.verify(flood, "5").passed


@pytest.mark.parametrize(
    "response",
    [
        "So the answer is $\\boxed{5}$.\n\nThis works because both sides balance.",
        "The answer is $\\boxed{5}$. Because I erred.",
        "The answer is $\\boxed{5}$. Check: mismatch.",
        "The answer is $\\boxed{5}$. Because c'est faux.",
    ],
)
def test_a_justification_that_states_no_value_is_text_after_the_answer(response):
    """Red team round 5: a word list of retractions never ends ("erred", "untrue", "mismatch",
    French), so a justification must state mathematics: a sentence with no value is no answer."""
    verdict = MathVerifier().verify(response, "5")
    assert not verdict.passed and "text with no value" in verdict.reason, verdict.reason
