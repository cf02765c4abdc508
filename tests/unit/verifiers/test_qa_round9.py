"""Red team round 9 against the QA verifier (issue 27): each mechanism with the shared example and
twins written here, the wrong look-alike failing next to the right form passing. Wrong answers
fail with a reward under the pass threshold (0 where the response does not commit); right ones
pass with reward 1. `golds` is the answer, then its aliases, split on `|`."""

from __future__ import annotations

import pytest

from stages.verifiers.qa_verifier import QAVerifier
from stages.verifiers.types import QAReference

# (kind, response, golds, why): each must fail.
WRONG = [
    # U+037E, the Greek question mark, looks like `;` and is a question mark; so are its kin
    ("question_lookalike", "Paris \u037e", "Paris", "shared: Greek question mark"),
    ("question_lookalike", "<answer>Paris\u037e</answer>", "Paris", "inside the tag"),
    ("question_lookalike", "<answer>Paris</answer>\u037e", "Paris", "after the tag"),
    ("question_lookalike", "Paris \u055e", "Paris", "Armenian question mark"),
    ("question_lookalike", "Paris \uff1f", "Paris", "full-width"),
    ("question_lookalike", "Paris \u061f", "Paris", "Arabic"),
    ("question_lookalike", "\u00bfParis", "Paris", "inverted, alone"),
    # an unchecked box leaves the choice open
    ("unchecked_box", "[ ] Paris", "Paris", "shared"),
    ("unchecked_box", "<answer>[ ] Paris</answer>", "Paris", "in the tag"),
    ("unchecked_box", "- [ ] Paris", "Paris", "a markdown task"),
    ("unchecked_box", "[] Paris", "Paris", "no space"),
    ("unchecked_box", "\u2610 Paris", "Paris", "the ballot box"),
    ("unchecked_box", "Answer: \u2b1c Paris", "Paris", "a white square"),
    ("unchecked_box", "[x] London", "Paris", "a checked box on a wrong answer"),
]

# (kind, response, golds, why): each must pass with reward 1.
RIGHT = [
    ("plain_semicolon", "Paris;", "Paris", "an ASCII semicolon closes, it asks nothing"),
    ("checked_box", "[x] Paris", "Paris", "a checked box commits"),
    ("checked_box", "- [X] Paris", "Paris", "a checked markdown task"),
    ("checked_box", "\u2611 Paris", "Paris", "the checked ballot box"),
    ("checked_box", "\u2705 Paris", "Paris", "the check mark button"),
    ("checked_box", "<answer>Paris \u2714</answer>", "Paris", "a check mark after it"),
    ("checked_box", "\u2714\ufe0f Paris", "Paris", "with the emoji selector"),
]


def _verdict(response: str, golds: str):
    answer, *aliases = golds.split("|")
    return QAVerifier().verify(response, QAReference(answer=answer, aliases=aliases))


@pytest.mark.parametrize(("kind", "response", "golds", "why"), WRONG)
def test_round9_wrong_answers_fail(kind: str, response: str, golds: str, why: str) -> None:
    verdict = _verdict(response, golds)
    assert not verdict.passed, f"{kind} ({why}): {verdict.reason}"
    assert verdict.reward < 0.8, f"{kind} ({why}): reward {verdict.reward}"


@pytest.mark.parametrize(("kind", "response", "golds", "why"), RIGHT)
def test_round9_right_answers_pass(kind: str, response: str, golds: str, why: str) -> None:
    verdict = _verdict(response, golds)
    assert verdict.passed and verdict.reward == 1.0, f"{kind} ({why}): {verdict.reason}"


@pytest.mark.parametrize("response", ["Paris \u037e", "[ ] Paris", "\u2610 Paris"])
def test_an_open_box_or_a_question_earns_nothing(response: str) -> None:
    assert _verdict(response, "Paris").reward == 0.0
