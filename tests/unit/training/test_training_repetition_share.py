"""`repetition_share`: the share of a step's responses that loop or are mostly one pattern (the
reward-health policy's repetition rule reads it)."""

from __future__ import annotations

from stages.rl.figures import repetitive


def test_a_looping_response_is_repetitive_by_its_token_ngrams() -> None:
    loop = [5, 6, 7, 8] * 8  # 32 tokens, one 4-gram pattern
    assert repetitive(loop, "x")


def test_a_varied_response_is_not() -> None:
    assert not repetitive(list(range(40)), "The answer is 42 because 6 times 7 is 42.")


def test_short_answers_are_never_called_repetitive() -> None:
    assert not repetitive([1, 1, 1], "111")  # too few tokens and bytes to judge
    assert not repetitive([3] * 15, "3" * 15)


def test_text_that_compresses_to_almost_nothing_is_repetitive_whatever_its_tokens() -> None:
    # A tokenizer that merges the loop into ever-new ids still leaves the text highly compressible.
    assert repetitive(list(range(20)), "and then " * 40)
    assert not repetitive(
        list(range(20)),
        "Mix 3 cups flour, 2 eggs; bake at 180 C for 25 min, then cool it on a rack.",
    )
