"""Fractions and mixed numbers the QA pass rule reads as the numbers they are (red team round 21).

A fraction in lowest terms whose value a decimal writes exactly is that decimal: `3/4` is
`0.75`, `1/2` is `0.5`, `5/4` is `1.25` (numbers compare as numbers, README). Otherwise a fraction
stays as written: `6/8` is a time signature, not `3/4`; `20/20` is not `1`; `1/3` is no decimal,
so `0.33` is not `1/3` (an approximation is another answer). A mixed number is its value: `12 1/2`
and `twelve and a half` are `12.5`, `2 and 3 quarters` is `2.75`; `12 1/3` stays `12 1/3`."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from math import gcd

# a whole number, a space (or "and"), a proper fraction: `12 1/2`, `12 and 1/2` (not `1 2/3/4`,
# not `12, 1/2`)
_MIXED_SLASH = re.compile(
    r"(?<![\d.,/-])(\d{1,12})(?:[^\S\n]+|[^\S\n]+and[^\S\n]+)(\d{1,6})/(\d{1,6})(?![\d/]|[.,]\d)"
)
_PARTS = {"half": (1, 2), "halves": (1, 2), "third": (1, 3), "thirds": (1, 3), "quarter": (1, 4),
          "quarters": (1, 4), "fifth": (1, 5), "fifths": (1, 5), "eighth": (1, 8),
          "eighths": (1, 8)}  # fmt: skip
# `1 and a half`, `2 and 3 quarters` (number words are digits by now)
_PART_WORD = "|".join(_PARTS)
_MIXED_WORDS = re.compile(
    rf"(?i)(?<![\d.,/-])(\d{{1,12}})\s+and\s+(a|an|one|\d{{1,3}})\s+({_PART_WORD})(?![\w'-])"
)


def exact_decimal(top: int, bottom: int) -> str | None:
    """The decimal that writes `top/bottom` exactly, where the fraction is in lowest terms and
    its denominator's only prime factors are 2 and 5; else None."""
    if bottom <= 1 or gcd(top, bottom) != 1:
        return None
    rest = bottom
    for p in (2, 5):
        while rest % p == 0:
            rest //= p
    if rest != 1:
        return None
    return format(Decimal(top) / Decimal(bottom), "f")


def _mixed(whole: int, top: int, bottom: int, written: str) -> str:
    """`whole top/bottom` as a decimal where it is one exactly, else `written` unchanged."""
    if not 0 < top < bottom:
        return written
    value = Fraction(whole) + Fraction(top, bottom)
    exact = exact_decimal(value.numerator, value.denominator)
    return exact if exact else written


def mixed_numbers_as_decimals(text: str) -> str:
    """`12 1/2` and `1 and a half` as `12.5` and `1.5` (above)."""
    text = _MIXED_SLASH.sub(
        lambda m: _mixed(int(m[1]), int(m[2]), int(m[3]), m[0]) if m[2][0] != "0" else m[0], text
    )

    def spelled(m: re.Match[str]) -> str:
        count = 1 if not m[2].isdigit() else int(m[2])
        top, bottom = _PARTS[m[3].lower()]
        return _mixed(int(m[1]), count * top, bottom, m[0])

    return _MIXED_WORDS.sub(spelled, text)
