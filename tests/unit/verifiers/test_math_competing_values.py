"""Red team round 14 (issue 27): a value offered before the final answer that competes with it,
doubt in words the earlier lists lacked, and the plain-prose forms real solutions end with. Each
wrong response names its mechanism; each right one guards a legitimate form the rule must leave."""

from __future__ import annotations

import pytest

from stages.verifiers.registry import build_verifier

WRONG = [
    # a choice between the answer and another value, with no reason for the pick
    ("choice_coin_flip", "Coin flip between 44 and 42. The answer is $\\boxed{42}$.", "42"),
    ("choice_or", "It is 42 or 44. The answer is $\\boxed{42}$.", "42"),
    ("choice_versus", "I keep getting 42 vs 44. Final answer: 42", "42"),
    ("choice_in_own_sentence", "Between 42 and 44, the answer is $\\boxed{42}$.", "42"),
    # another source reports a different value
    ("tool_reports", "WolframAlpha gives 44. The answer is $\\boxed{42}$.", "42"),
    ("own_people_report", "My tutor got 44, and she is careful. \\boxed{42}", "42"),
    ("report_in_own_sentence", "My calculator shows 44, but the answer is $\\boxed{42}$.", "42"),
    ("second_method", "The second method gives 44. The answer is $\\boxed{42}$.", "42"),
    # a different result held against the answer
    ("reservation_at_end", "Adding them gives 44 though. The answer is $\\boxed{42}$.", "42"),
    ("contrast_only", "The sum comes to 44. Still, the answer is $\\boxed{42}$.", "42"),
    ("denied_value", "It is not 42, so the answer is $\\boxed{42}$.", "42"),
    # doubt in words the earlier lists lacked
    ("shaky", "This step is shaky, so the answer is $\\boxed{42}$.", "42"),
    ("toss_up", "It's a toss-up. The answer is $\\boxed{42}$.", "42"),
    ("picked_at_random", "I picked one at random. The answer is $\\boxed{42}$.", "42"),
    ("ignore_next_line", "Ignore the next line. The answer is $\\boxed{42}$.", "42"),
    ("may_have_miscounted", "I might have miscounted the cases. \\boxed{42}", "42"),
    ("unlocated_error", "I can't find the mistake in step two. \\boxed{42}", "42"),
    # plain prose: someone else's answer, doubt or another value before it, an unnamed count
    ("his_answer", "His answer was 55.", "55"),
    ("teachers_answer", "So the teacher's answer is 24.", "24"),
    ("prose_after_doubt", "I'm not sure. The total is 42.", "42"),
    ("prose_after_report", "My calculator shows 44. The total is 42.", "42"),
    ("prose_denied_first", "It is not 24, so the area is 24.", "24"),
    ("count_never_named", "Each friend gets 7 cookies.", "7"),
    ("count_of_more", "There were 5 cookies. She has 7 more cookies.", "7"),
    ("count_scaled", "28 cookies in all. Each friend gets 7 dozen cookies.", "7"),
    # a named subject must be a person of the problem, never a tool or someone consulted
    ("tool_as_subject", "WolframAlpha gets $\\boxed{42}$.", "42"),
    ("tool_as_subject_prose", "Wolfram gets 42.", "42"),
    ("named_guess", "Bob guessed $\\boxed{42}$.", "42"),
    # an answer line's noun must have been named and must not change the number
    ("answer_line_noun_never_named", "The final answer is 12 apples.", "12"),
    ("answer_line_more", "Tom picked 20 apples. The final answer is 12 more apples.", "12"),
    ("made_a_guess_of", "So he made a guess of $70,000.", "70000"),
    ("there_are_more", "The class has 12 students. So, there are 12 more students.", "12"),
    ("box_then_dozen", "Tom picked 20 apples. The answer is $\\boxed{12}$ dozen apples.", "12"),
]

RIGHT = [
    # a reason settles a choice; the value stated on its own is not a choice
    ("choice_with_reason", "So x = 2 or -2. The positive root is $\\boxed{2}$.", "2"),
    (
        "range_not_a_choice",
        "There are 42 integers between 1 and 42. The answer is \\boxed{42}.",
        "42",
    ),
    ("bounds_not_the_answer", "The answer lies between 40 and 45. It is $\\boxed{42}$.", "42"),
    # a word problem's people and a correction in the working are not competing values
    (
        "word_problem_person",
        "Her brother has 44 marbles. He gives away 2, so the answer is $\\boxed{42}$.",
        "42",
    ),
    (
        "correction",
        "Adding gives 44, but we counted 2 twice. So the answer is $\\boxed{42}$.",
        "42",
    ),
    ("report_corrected", "My calculator shows 44, minus the 2 extra gives 42. \\boxed{42}", "42"),
    (
        "other_number_in_working",
        "The first term is 3, but we need 14 terms. The answer is $\\boxed{42}$.",
        "42",
    ),
    ("denied_other_value", "It is not 24, so the area is $\\boxed{25}$.", "25"),
    # plain-prose endings real solutions use
    (
        "past_tense_quantity",
        "He drove 165 miles in 3 hours. His average speed was 55 miles per hour.",
        "55",
    ),
    ("possessive_quantity", "The area is 4 × 6 = 24, so the rectangle's area is 24 cm².", "24"),
    (
        "pronoun_spends",
        "The books cost \\$8.00 and the pen \\$4.50. She spends \\$12.50 in total.",
        "12.5",
    ),
    (
        "each_gets_named_count",
        "28 cookies shared among 4 friends is 28 / 4 = 7.\n\nEach friend gets 7 cookies.",
        "7",
    ),
    ("original_price", "The original price was $20.", "20"),
    ("named_person", "Tom picked 20 apples and ate 8. So, Tom has 12 apples left.", "12"),
    (
        "named_person_past",
        "She sold 48 clips in April and 24 in May. Natalia sold 72 clips altogether.",
        "72",
    ),
    (
        "now_has_box",
        "Tom picked 20 apples and ate 8 apples. He now has $\\boxed{12}$ apples.",
        "12",
    ),
    (
        "take_her",
        "Each page takes 3 minutes and there are 15 pages. It will take her 45 minutes.",
        "45",
    ),
    (
        "answer_line_noun",
        "Tom picked 20 apples and ate 8 apples. The final answer is 12 apples.",
        "12",
    ),
    (
        "box_then_noun",
        "Tom picked 20 apples and ate 8 apples. The answer is $\\boxed{12}$ apples.",
        "12",
    ),
    ("number_of_things_sold", "She sold 48 + 24 = 72. So the number of clips sold is 72.", "72"),
    ("remainder_when", "The remainder when $2^{100}$ is divided by 7 is $\\boxed{2}$.", "2"),
    ("made_a_profit_of", "So he made a profit of $70,000.", "70000"),
    ("there_are_named", "Each of the 3 rows seats 4 students. So, there are 12 students.", "12"),
    # an end-of-proof mark and German word order
    ("qed_latex", "Hence $n = \\boxed{42}$. $\\blacksquare$", "42"),
    ("qed_unicode", "Therefore the answer is $\\boxed{42}$. ∎", "42"),
    ("qed_letters", "So the answer is $\\boxed{42}$. Q.E.D.", "42"),
    ("german_inverted", "Wir addieren: 7 + 8 = 15. Also ist die Antwort $\\boxed{15}$.", "15"),
]


@pytest.fixture(scope="module")
def verifier():
    return build_verifier({"kind": "math"})


@pytest.mark.parametrize(("mechanism", "response", "reference"), WRONG, ids=[w[0] for w in WRONG])
def test_a_competing_value_or_doubt_before_the_answer_is_no_answer(
    verifier, mechanism, response, reference
):
    verdict = verifier.verify(response, reference)
    assert not verdict.passed and verdict.reward == 0.0, (mechanism, verdict.reason)


@pytest.mark.parametrize(("mechanism", "response", "reference"), RIGHT, ids=[r[0] for r in RIGHT])
def test_legitimate_working_and_endings_still_pay(verifier, mechanism, response, reference):
    verdict = verifier.verify(response, reference)
    assert verdict.passed, (mechanism, verdict.reason)
