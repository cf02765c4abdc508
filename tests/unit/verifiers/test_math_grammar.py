"""The grammar of a plain commitment (`math_grammar`): a closed list of good forms is the first line
of defence, so a sentence that is not one of them states no answer, whatever its words."""

import json
from pathlib import Path

import pytest

from stages.verifiers.config import MathVerifierConfig
from stages.verifiers.math_grammar import commitment_problem, previous_problem
from stages.verifiers.math_verifier import MathVerifier

ROUND3 = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "adversarial_math_round3.jsonl").open()
]


@pytest.mark.parametrize(
    "prefix",
    [
        "The answer is $",
        "Therefore, the total number of apples is $",
        "Thus the area equals $",
        "Hence the minimum value is $",
        "It works out to $",
        "Putting it all together: $",
        "So, in total, $",
        "We get $",
        "$x = ",
        "By the quadratic formula, the roots are $x = ",
        "The probability that a randomly chosen point works is $",
        "Final Answer: The final answer is $",
        "",
    ],
)
def test_plain_commitments_commit(prefix):
    assert commitment_problem(prefix) is None


@pytest.mark.parametrize(
    "prefix",
    [
        "The answer could be $",  # modal
        "The answer cannot be $",  # a negation fused into a word
        "A lower bound for the answer is $",  # a bound
        "The discarded root is $",  # a non-final role
        "My classmate got $",  # someone else's answer
        "The answer that my classmate got is $",  # ... in a complement
        "For even $n$, the answer is $",  # a condition
        "Had the train been on time, the answer would be $",  # counterfactual
        "Prove that the answer is $",  # an imperative
        "Decoy: $",  # a label
        "\u274c The answer is $",  # an emoji
        "<s>The answer is $",  # strikethrough markup
        "In thousands, the answer is $",  # a scale
        "In base 8, the answer is $",  # a base
        "The answer goes up to $",  # a bound phrase
        "I thought the answer was $",  # past, retracted
        "$\\text{wrong} = ",  # words in the math left side
    ],
)
def test_anything_else_is_no_commitment(prefix):
    assert commitment_problem(prefix) is not None


def test_a_bare_answer_is_disowned_by_a_label_or_a_doubt_before_it():
    assert previous_problem("Incorrect:") and previous_problem("The following is wrong:")
    assert previous_problem("I don't know.") and previous_problem("Everything below is a decoy.")
    assert previous_problem("The final answer is:") is None
    assert previous_problem("Adding the parts gives twelve.") is None


def test_round3_cases_are_labelled_and_come_out_as_labelled():
    """The red team's round-3 shared cases (kind and why kept) that this change fixed."""
    assert len(ROUND3) >= 170 and all(c["kind"] and c["why"] for c in ROUND3)
    verifier = MathVerifier(MathVerifierConfig(workers=1))
    try:
        verdicts = verifier.verify_batch([(c["response"], c["reference"]) for c in ROUND3])
    finally:
        verifier.close()
    wrong = [
        (c["id"], c["kind"], v.reason)
        for c, v in zip(ROUND3, verdicts, strict=True)
        if v.passed is not c["expected"]
    ]
    assert wrong == []
    for c, v in zip(ROUND3, verdicts, strict=True):
        assert c["expected"] or v.reason, c["id"]  # every failure says why


def test_a_sentence_past_max_words_is_no_commitment():
    """The grammar reads at most MAX_WORDS words (which also bounds its backtracking)."""
    assert commitment_problem("So the value of " + "x and " * 10 + "y is $") is None
    assert "more than" in commitment_problem("So the value of " + "x and " * 30 + "y is $")
