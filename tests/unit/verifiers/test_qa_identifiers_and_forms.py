"""QA's pass rule after red team round 5: a decimal after a name is an identifier (its trailing
zeros count), and typography that names the same text (full-width letters, accents on Latin
letters, thousands grouped by thin or no-break spaces) is the same answer. README states each."""

from __future__ import annotations

import pytest

from stages.verifiers.registry import build_verifier
from stages.verifiers.types import QAReference


def _passes(response: str, gold: str) -> bool:
    verifier = build_verifier({"kind": "qa"})
    return verifier.verify(response, QAReference(answer=gold, aliases=[])).passed


@pytest.mark.parametrize(
    ("response", "gold"),
    [
        ("Python 3.10", "Python 3.1"),
        ("Section 1.10", "Section 1.1"),
        ("v2.10", "v2.1"),
        ("version 2.10", "version 2.1"),
        ("Windows 3.110", "Windows 3.11"),
        ("Ｓｔｅｖｅ Ｗｏｚ", "Steve Jobs"),  # full-width, but another name
        ("125", "12.5"),
        ("1 000 000", "1000"),
    ],
)
def test_wrong_answers_in_these_forms_fail(response: str, gold: str) -> None:
    assert not _passes(response, gold)


@pytest.mark.parametrize(
    ("response", "gold"),
    [
        ("Python 3.10", "Python 3.10"),
        ("12.50", "12.5"),  # a decimal with no name before it is its value
        ("$12.50", "$12.5"),
        ("USD 3.50", "3.5 USD"),  # a currency code is not a name
        ("Ｓｔｅｖｅ Ｊｏｂｓ", "Steve Jobs"),
        ("Sao Paulo", "São Paulo"),
        ("Bjork", "Björk"),
        ("1000", "1\u2009000"),
        ("1000000", "1\u00a0000\u00a0000"),
        ("1000", "1 000"),
        ("東京", "東京"),
    ],
)
def test_right_answers_in_these_forms_pass(response: str, gold: str) -> None:
    assert _passes(response, gold)
