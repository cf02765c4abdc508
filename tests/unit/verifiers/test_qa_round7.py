"""Red team round 7 against the QA verifier (issue 27): the mechanisms of its shared cases, each
with the shared example and twins written here (other wordings of the same hole), and the right
answers it failed. A held-out set with other variants stays outside the project, so these test the
mechanisms: every wrong case fails, with a reward under the pass threshold but for token F1's
partial credit for a word added to a long gold, and 0 where the response withdraws or does not
commit to its answer; every right case passes with reward 1."""

from __future__ import annotations

import pytest

from stages.verifiers.qa_verifier import QAVerifier, extract_citations, extract_qa_answer
from stages.verifiers.types import QAReference

RSPCA = "Royal Society for the Prevention of Cruelty to Animals"

# (kind, response, gold, why): each must fail. "shared" marks the red team's own example.
WRONG = [
    # several committed answers that disagree: no answer (only the last was read)
    ("conflicting_finals", "<answer>London</answer> <answer>Paris</answer>", "Paris", "shared"),
    ("conflicting_finals", "Answer: London\nAnswer: Paris", "Paris", "shared"),
    ("conflicting_finals", "<answer>Milan</answer>\n<answer>Rome</answer>", "Rome", "shared"),
    ("conflicting_finals", "Answer: London\n<answer>Paris</answer>", "Paris", "a line and a tag"),
    ("conflicting_finals", "**Final answer:** London\nFinal Answer: Paris", "Paris", "markdown"),
    ("conflicting_finals", "<ANSWER>London</ANSWER><answer>Paris</answer>", "Paris", "tag case"),
    ("conflicting_finals", "<answer >London</answer >\n<answer>Paris</answer>", "Paris",
     "a spaced tag is a tag"),
    ("conflicting_finals", "<final_answer>London</final_answer> <answer>Paris</answer>", "Paris",
     "another tag name"),
    ("conflicting_finals", "\\boxed{London}\n<answer>Paris</answer>", "Paris", "a box commits"),
    # a stated answer elsewhere overrides nothing: the response says two things
    ("stated_elsewhere", "The answer is London.\n\nParis", "Paris", "shared"),
    ("stated_elsewhere", "London is the answer.\n\nParis", "Paris", "the phrase after it"),
    ("stated_elsewhere", "My answer: London\n\nParis", "Paris", "a colon"),
    ("stated_elsewhere", "It is London.\nParis", "Paris", "no phrase: several lines, no tag"),
    ("stated_elsewhere", "London.\nParis", "Paris", "two bare lines list guesses"),
    ("stated_elsewhere", "The answer is London. <answer>Paris</answer>", "Paris", "before a tag"),
    ("stated_elsewhere", "The correct answer would be London.\nAnswer: Paris", "Paris", "modal"),
    ("stated_elsewhere", "The final answer is Paris or London.\n<answer>Paris</answer>", "Paris",
     "the stated answer hedges"),
    # a citation line or tag may hold citations only: anything else is text after the answer
    ("retraction_in_citation",
     "<answer>Paris</answer>\nSources: actually the answer is London, not Paris", "Paris", "shared"),
    ("retraction_in_citation", "<answer>Paris</answer>\n<cite>Correction: it is London</cite>",
     "Paris", "shared"),
    ("retraction_in_citation", "<answer>Paris</answer>\nCitations: no, London", "Paris", "shared"),
    ("retraction_in_citation", "<answer>Paris</answer>\nSource: London", "Paris", "a bare name"),
    ("retraction_in_citation", "<answer>Paris</answer><citations>[1] wrong, London</citations>",
     "Paris", "a number first"),
    ("retraction_in_citation", "Answer: Paris\nSupporting paragraphs: 1, 3 (I meant London)",
     "Paris", "after the ids"),
    ("retraction_in_citation", "<answer>Paris</answer>\n<support>scratch that</support>", "Paris",
     "a support tag"),
    ("retraction_in_citation", "<answer>Paris</answer>\nSources: [1] Wikipedia", "Paris",
     "a title is words (strict)"),
    # doubt or a guess before the answer
    ("hedge_before", "This is a random guess, I have no idea: <answer>Paris</answer>", "Paris",
     "shared"),
    ("hedge_before", "I cannot determine the answer from the passages.\nAnswer: Paris", "Paris",
     "shared"),
    ("hedge_before", "I'm not sure, but maybe <answer>Paris</answer>", "Paris", "the brief's"),
    ("hedge_before", "Not sure.\nAnswer: Paris", "Paris", "a sentence before"),
    ("hedge_before", "I don't know.\n<answer>Paris</answer>", "Paris", "not knowing"),
    ("hedge_before", "Just guessing here.\n\nFinal answer: Paris", "Paris", "a guess"),
    ("hedge_before", "It might be <answer>Paris</answer>", "Paris", "a modal"),
    ("hedge_before", "I think it is <answer>Paris</answer>", "Paris", "a belief"),
    ("hedge_before", "No clue, so: <answer>Paris</answer>", "Paris", "no clue"),
    ("hedge_before", "I have no idea. Let me pick one. Here goes.\n<answer>Paris</answer>",
     "Paris", "three sentences back"),
    ("hedge_before", "\u274c <answer>Paris</answer>", "Paris", "a wrong mark before it"),
    ("hedge_before", "It is not <answer>Paris</answer>", "Paris", "a negation in its clause"),
    # a question mark anywhere in the answer is doubt
    ("doubt_mark", "Paris (?)", "Paris", "shared"),
    ("doubt_mark", "<answer>Paris (?)</answer>", "Paris", "shared"),
    ("doubt_mark", "Paris ?", "Paris", "spaced"),
    ("doubt_mark", "Pa?ris", "Paris", "inside"),
    ("doubt_mark", "\u00bfParis?", "Paris", "Spanish marks"),
    ("doubt_mark", "Paris (\uff1f)", "Paris", "full-width"),
    ("doubt_mark", "Paris \u2753", "Paris", "an emoji question mark"),
    ("doubt_mark", "Paris \U0001f914", "Paris", "the thinking face"),
    ("doubt_mark", "Paris\u203d", "Paris", "an interrobang"),
    ("doubt_mark", "<answer>Paris</answer>?", "Paris", "after the tag"),
    # struck through: withdrawn
    ("strikethrough", "~~Paris~~", "Paris", "shared"),
    ("strikethrough", "~~Rome~~", "Rome", "shared"),
    ("strikethrough", "<answer>~~Paris~~</answer>", "Paris", "inside the tag"),
    ("strikethrough", "~~<answer>Paris</answer>~~", "Paris", "around the tag"),
    ("strikethrough", "~Paris~", "Paris", "one tilde strikes in GFM"),
    ("strikethrough", "<del>Paris</del>", "Paris", "HTML"),
    ("strikethrough", "<strike>Paris</strike>", "Paris", "HTML"),
    ("strikethrough", "<del><answer>Paris</answer></del>", "Paris", "around the tag"),
    ("strikethrough", "P\u0336a\u0336r\u0336i\u0336s\u0336", "Paris", "a long stroke overlay"),
    ("strikethrough", "P\u0338aris", "Paris", "a solidus overlay"),
    ("strikethrough", "Paris\u20e0", "Paris", "an enclosing no sign"),
    ("strikethrough", '<span style="text-decoration: line-through">Paris</span>', "Paris", "CSS"),
    # a negation written as a symbol
    ("symbolic_negation", "!= Paris", "Paris", "shared"),
    ("symbolic_negation", "Answer: =/= Kahar", "Kahar", "shared"),
    ("symbolic_negation", "\u2260 Paris", "Paris", "the not-equal sign"),
    ("symbolic_negation", "\u00acParis", "Paris", "logical not"),
    ("symbolic_negation", "NOT Paris", "Paris", "capitals"),
    ("symbolic_negation", "!Paris", "Paris", "a bang"),
    ("symbolic_negation", "Answer: /= Paris", "Paris", "Haskell"),
    ("symbolic_negation", "\\neq Paris", "Paris", "LaTeX"),
    ("symbolic_negation", "<> Paris", "Paris", "SQL"),
    ("symbolic_negation", "-Paris", "Paris", "a minus on a name"),
    # a trailing parenthetical that is no acronym of the answer is a word of it
    ("gloss_disowning_word", f"{RSPCA} (WRONG)", RSPCA, "shared"),
    ("gloss_disowning_word", f"{RSPCA} (MAYBE)", RSPCA, "shared"),
    ("gloss_disowning_word", f"{RSPCA} (FAKE)", RSPCA, "a disowning word"),
    ("gloss_disowning_word", f"{RSPCA} (NOPE)", RSPCA, "a word no list has"),
    ("gloss_disowning_word", f"{RSPCA} (Nope)", RSPCA, "not capitals"),
    ("gloss_disowning_word", f"{RSPCA} (RSPCB)", RSPCA, "another acronym"),
    ("gloss_disowning_word", f"{RSPCA} (2)", RSPCA, "a number it does not name"),
    ("gloss_disowning_word", f"{RSPCA} [WRONG]", RSPCA, "square brackets"),
    ("gloss_disowning_word", f"{RSPCA} \u2717", RSPCA, "a wrong mark in it"),
    # the gold's words in another order name something else
    ("word_reorder", "Missouri City, Kansas", "Kansas City, Missouri", "shared"),
    ("word_reorder", "James Henry", "Henry James", "shared"),
    ("word_reorder", "Answer: Jobs Steve", "Steve Jobs", "a name"),
    ("word_reorder", "Pauper and the Prince", "The Prince and the Pauper", "a title"),
    ("word_reorder", "Animals to Cruelty of Prevention the for Society Royal", RSPCA,
     "a long gold scrambled"),
    ("word_reorder", "Treaty of Peace and Friendship between China and Japan",
     "Treaty of Peace and Friendship between Japan and China", "two names swapped, long gold"),
    # a mark of wrongness after the answer
    ("wrong_mark_after", "<answer>Paris</answer> \u274c", "Paris", "shared"),
    ("wrong_mark_after", "<answer>Paris</answer> \u2717", "Paris", "ballot x"),
    ("wrong_mark_after", "<answer>Paris</answer> \u2718", "Paris", "heavy ballot x"),
    ("wrong_mark_after", "<answer>Paris</answer> (incorrect)", "Paris", "a word"),
    ("wrong_mark_after", "Answer: Paris\n\U0001f44e", "Paris", "thumbs down"),
    ("wrong_mark_after", "<answer>Paris</answer> :(", "Paris", "a frown"),
    ("wrong_mark_after", "<answer>Paris</answer><!-- actually London -->", "Paris", "a comment"),
]  # fmt: skip

# (kind, response, gold, why): each must pass with reward 1.
RIGHT = [
    ("negative_number_words", "negative five", "-5", "shared"),
    ("negative_number_words", "minus seven", "-7", "another word"),
    ("negative_number_words", "negative twenty-one", "-21", "a compound number"),
    ("choice_letter", "(A)", "A", "shared"),
    ("choice_letter", "A)", "A", "shared"),
    ("choice_letter", "<answer>(A)</answer>", "A", "in a tag"),
    ("choice_letter", "Answer: (B)", "B", "another letter"),
    ("percent_word", "50 percent", "50%", "shared"),
    ("percent_word", "50 per cent", "50%", "British"),
    ("percent_word", "12.5 percent", "12.5%", "a decimal"),
    ("percent_word", "fifty percent", "50%", "a number word"),
    ("inline_citation", "<answer>Paris [2]</answer>", "Paris", "shared"),
    ("inline_citation", "<answer>Paris [1][3]</answer>", "Paris", "two"),
    ("inline_citation", "<answer>Paris [1, 2]</answer>", "Paris", "a list"),
    ("inline_citation", "Answer: Paris [paragraph 2]", "Paris", "a paragraph id"),
    # controls: what the new rules must leave alone
    ("control", "<answer>Paris</answer>", "Paris", "shared"),
    ("control", "Kansas City, Missouri", "Kansas City, Missouri", "shared"),
    ("control", "<answer>Paris</answer> [1]", "Paris", "shared"),
    ("control", "<answer>Paris</answer> <answer>Paris</answer>", "Paris", "the same twice"),
    ("control", "Answer: Paris\n<answer>Paris</answer>", "Paris", "the same in two forms"),
    ("control", "The answer is Paris.\n<answer>Paris</answer>", "Paris", "stated the same"),
    ("control", "The answer is Paris, the capital of France.\nAnswer: Paris", "Paris", "a gloss"),
    ("control", "The answer is St. Louis.\nAnswer: St. Louis", "St. Louis", "a dotted name"),
    ("control", "Here is the answer: <answer>Paris</answer>", "Paris", "a pointer"),
    ("control", "So Paris is the answer.\nAnswer: Paris", "Paris", "stated the same"),
    ("control", "Paris\nSources: [1]", "Paris", "one line and a citation line"),
    ("control", "<answer>Paris</answer>\nSources: [1], [3]", "Paris", "bracketed ids"),
    ("control", "<answer>Paris</answer>\nCitations: paragraph 2 and paragraph 5", "Paris", "ids"),
    ("control", "<answer>Paris</answer>\nSources: doc3, doc7", "Paris", "document ids"),
    ("control", "Paragraph 2 says the tower is in Paris.\n<answer>Paris</answer>", "Paris",
     "reasoning before"),
    ("control", "Not London: <answer>Paris</answer>", "Paris", "a negation of another clause"),
    ("control", "~~London~~ <answer>Paris</answer>", "Paris", "another candidate struck"),
    ("control", "Who's Afraid of Virginia Woolf?", "Who's Afraid of Virginia Woolf?",
     "a gold's own question mark"),
    ("control", "P != NP", "P != NP", "a gold's own symbol"),
    ("control", "Yahoo! Answers", "Yahoo! Answers", "a bang after a word"),
    ("control", "2 October 1990", "October 2, 1990", "a date in the other order"),
    ("control", "the 2nd of October, 1990", "October 2, 1990", "an ordinal date"),
    ("control", "USD 3.50", "3.5 USD", "a currency code on the other side"),
    ("control", "<answer>Paris</answer>\u200b", "Paris", "a zero-width space after"),
]  # fmt: skip

# Right answers with a gloss: they pass at the F1 threshold (the gloss is a word more).
GLOSSED = [
    (f"{RSPCA} (RSPCA)", RSPCA, []),
    (f"{RSPCA} (R.S.P.C.A.)", RSPCA, []),
    ("United Nations Educational, Scientific and Cultural Organization (UNESCO)",
     "United Nations Educational, Scientific and Cultural Organization", []),
    ("International Union for Conservation of Nature and Natural Resources (IUCN)",
     "International Union for Conservation of Nature and Natural Resources", ["IUCN"]),
    (f"{RSPCA} founded 1824 (1824)", f"{RSPCA} founded 1824", []),  # a number it names
]  # fmt: skip


def _verdict(response: str, gold: str, aliases: list[str] | None = None):
    return QAVerifier().verify(response, QAReference(answer=gold, aliases=aliases or []))


@pytest.mark.parametrize(("kind", "response", "gold", "why"), WRONG)
def test_round7_wrong_answers_fail(kind: str, response: str, gold: str, why: str) -> None:
    verdict = _verdict(response, gold)
    assert not verdict.passed, f"{kind} ({why}): {verdict.reason}"
    # an unknown word added to a long gold keeps F1's partial credit (0.84), never the pass
    partial = "the answer adds words" in verdict.reason
    assert verdict.reward < 0.8 or partial, f"{kind} ({why}): reward {verdict.reward}"


@pytest.mark.parametrize(("kind", "response", "gold", "why"), RIGHT)
def test_round7_right_answers_pass(kind: str, response: str, gold: str, why: str) -> None:
    verdict = _verdict(response, gold)
    assert verdict.passed and verdict.reward == 1.0, f"{kind} ({why}): {verdict.reason}"


@pytest.mark.parametrize(("response", "gold", "aliases"), GLOSSED)
def test_a_gloss_that_restates_the_answer_still_passes(
    response: str, gold: str, aliases: list[str]
) -> None:
    assert _verdict(response, gold, aliases).passed


@pytest.mark.parametrize(
    ("response", "gold"),
    [
        ("<answer>Paris</answer>\nSources: actually London", "Paris"),
        ("<answer>Paris</answer> \u274c", "Paris"),
        ("I have no idea: <answer>Paris</answer>", "Paris"),
        ("Paris (?)", "Paris"),
        ("~~Paris~~", "Paris"),
        ("!= Paris", "Paris"),
        (f"{RSPCA} (MAYBE)", RSPCA),
        ("roughly 1,500", "1,500"),
        ("<answer>Paris</answer>\nSources: [1] Wikipedia", "Paris"),
        ("<answer>London</answer> <answer>Paris</answer>", "Paris"),
        ("The answer is London.\n\nParis", "Paris"),
    ],
)
def test_an_answer_withdrawn_or_not_committed_to_earns_nothing(response: str, gold: str) -> None:
    """Partial credit is for partial answers; a withdrawn or uncommitted one earns 0."""
    assert _verdict(response, gold).reward == 0.0


def test_a_reordered_short_gold_earns_little() -> None:
    """Token F1 was order-blind: 'Missouri City, Kansas' scored 1.0 for 'Kansas City, Missouri'."""
    assert _verdict("Missouri City, Kansas", "Kansas City, Missouri").reward == pytest.approx(1 / 9)
    assert _verdict("James Henry", "Henry James").reward < 0.3


@pytest.mark.parametrize(
    ("response", "gold"),
    [("negative five", "5"), ("five", "-5"), ("(B)", "A"), ("(A)", "B"), ("A) Paris", "A"),
     ("(An)", "A"), ("5 percent", "50%"), ("50 percent", "5%"),
     ("<answer>Paris [2] London</answer>", "Paris"), ("<answer>London [2]</answer>", "Paris")],
)  # fmt: skip
def test_the_new_right_forms_open_no_hole(response: str, gold: str) -> None:
    assert not _verdict(response, gold).passed


def test_a_response_of_several_lines_without_a_tag_or_answer_line_has_no_answer() -> None:
    assert extract_qa_answer("Reasoning about it.\nParis") == ""
    assert extract_qa_answer("Paris\n[1]") == "Paris"
    assert _verdict("Reasoning about it.\nParis", "Paris").status == "parse_error"


def test_citations_inside_the_answer_are_still_read_as_citations() -> None:
    assert extract_citations("<answer>Paris [1, 3]</answer>") == [1, 3]


def test_a_citation_id_of_thousands_of_digits_raises_nothing() -> None:
    """int() refuses strings of over 4300 digits: such an id was a ValueError in the trainer."""
    digits = "1" * 5000
    assert extract_citations(f"<answer>Paris</answer>\nSources: {digits}, 2") == [2]
    assert extract_citations(f"Paris [{digits}]") is None
    assert _verdict(f"<answer>Paris</answer>\nSources: {digits}", "Paris").passed  # a number cites
