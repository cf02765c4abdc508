import pytest

from stages.verifiers.config import ExactMatchConfig, QAVerifierConfig
from stages.verifiers.qa_verifier import (
    ExactMatchVerifier,
    QAVerifier,
    extract_citations,
    normalize_answer,
    retrieval_scores,
    token_f1,
)
from stages.verifiers.types import QAReference

REF = QAReference(
    answer="Steve Jobs", aliases=["Steven Paul Jobs"], supporting_ids=[0, 1], num_hops=2
)


def test_squad_normalisation_drops_case_punctuation_and_articles():
    assert normalize_answer("The  Eiffel Tower!") == "eiffel tower"
    assert token_f1("the cat sat", "a cat sat down") == pytest.approx(0.8)


@pytest.mark.parametrize(
    ("response", "passed"),
    [
        ("<answer>Steve Jobs</answer>", True),
        ("Reasoning...\nAnswer: steven paul jobs.", True),
        ("It was Steve Jobs", False),  # F1 0.67 with the default threshold 0.8
        ("Answer: Steve Wozniak", False),
        ("Answer: Steve Jobs or Steve Wozniak", False),
        ("", False),
    ],
)
def test_exact_match_and_f1_over_answer_and_aliases(response, passed):
    verdict = QAVerifier().verify(response, REF)
    assert verdict.passed is passed, verdict


def test_partial_answers_earn_partial_f1_reward():
    verdict = QAVerifier().verify("Answer: Jobs", REF)
    assert not verdict.passed and verdict.reward == pytest.approx(2 / 3)
    assert QAVerifier(QAVerifierConfig(metric="em")).verify("Answer: Jobs", REF).reward == 0.0


def test_citations_are_scored_against_the_supporting_paragraphs():
    assert extract_citations("<cite>0, 2</cite>") == [0, 2]
    assert extract_citations("As [1] and [paragraph 0] say") == [0, 1]
    assert extract_citations("no citations") is None
    assert retrieval_scores([0, 2], [0, 1]) == (0.5, 0.5, 0.5)
    verifier = QAVerifier(QAVerifierConfig(retrieval_weight=0.5))
    verdict = verifier.verify("<cite>0, 2</cite><answer>Steve Jobs</answer>", REF)
    assert verdict.details["retrieval_precision"] == 0.5
    assert verdict.reward == pytest.approx(0.5 * 1.0 + 0.5 * 0.5)


def test_hop_weighting_raises_the_reward_of_longer_questions():
    verifier = QAVerifier(QAVerifierConfig(hop_weighting=True, hop_weight_per_extra_hop=0.25))
    four_hops = REF.model_copy(update={"num_hops": 4})
    assert verifier.verify("Answer: Steve Jobs", four_hops).reward == pytest.approx(1.5)
    assert verifier.verify("Answer: Steve Jobs", REF).reward == 1.0


def test_a_plain_string_reference_works():
    assert QAVerifier().verify("Answer: Paris", "paris").passed


@pytest.mark.parametrize(
    ("response", "passed"),
    [("321", True), (" 321\n", True), ("123", False), ("32", False), ("", False)],
)
def test_exact_match_compares_the_characters(response, passed):
    assert ExactMatchVerifier().verify(response, "321").passed is passed


def test_exact_match_keeps_leading_zeros_and_can_ignore_case():
    assert not ExactMatchVerifier().verify("21", "021").passed
    assert ExactMatchVerifier(ExactMatchConfig(case_sensitive=False)).verify("ABC", "abc").passed
