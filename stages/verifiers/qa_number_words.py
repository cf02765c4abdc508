"""Number forms the QA pass rule reads as the numbers they name, before `qa_strict` tokenises:

- ordinals: `1st` is `first`, `21st` is `twenty-first` (one token, `ord` and the value: never the
  cardinal `21`, nor `1st` the `1` of a list);
- number words with a scale: `fifteen hundred` is 1500, `a thousand` 1000, `two thousand and
  five` 2005, `one hundred twenty-three` 123, `one hundred and first` 101st; a run that is no number (`two three`, `five and
  six`) stays words;
- magnitudes: `1.5k` is 1500, `2.5M` 2500000, `1.5e3` 1500 (a letter right after the digits: `300 K`
  is a temperature, `5m` five metres);
- an ISO date (`1990-10-02`, also `1990-10-2`: year first, unambiguous) is the date it names, and
  a month's abbreviation (`Oct.`) its name. `02/10/1990` stays digits: day and month cannot be told
  apart."""

from __future__ import annotations

import re
from fractions import Fraction

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen"]  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_ORDINAL_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
                  "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11,
                  "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
                  "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
                  "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
                  "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90,
                  "hundredth": 100, "thousandth": 1000}  # fmt: skip
_TENS_WORD, _ORDINAL = "|".join(_TENS), "|".join(_ORDINAL_UNITS)
_ORDINAL_WORD = re.compile(rf"(?i)(?<![\w'-])(?:({_TENS_WORD})[\s-]+)?({_ORDINAL})(?![\w'-])")
_DIGIT_ORDINAL = re.compile(r"(?i)(?<![\w.,/-])(\d+)(?:st|nd|rd|th)(?![\w'-])")
_NUMBER_WORD = "|".join([*_UNITS, *_TENS, "hundred", *_SCALES])
# A run may end in an ordinal: `one hundred and first` is `101st`.
_WORD_RUN = re.compile(
    rf"(?i)(?<![\w'-])(?:{_NUMBER_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_NUMBER_WORD}|{_ORDINAL}))+"
    r"(?![\w'-])"
)
_CARDINAL_WORDS = [*_UNITS[1:], *_TENS, "hundred", "thousand"]
_CARDINAL_OF = dict(zip(_ORDINAL_UNITS, _CARDINAL_WORDS, strict=True))  # `first`: `one`
_MAGNITUDE = re.compile(
    r"(?<![\w.,])(\d{1,30}(?:\.\d{1,30})?)(?:(k|K|M|bn|B)|[eE]\+?(\d{1,2}))(?![\w'-]|[.,]\d)"
)
_MAGNITUDES = {"k": 10**3, "K": 10**3, "M": 10**6, "bn": 10**9, "B": 10**9}
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")  # fmt: skip
_ISO_DATE = re.compile(r"(?<![\w./:-])(\d{4})-(\d{1,2})-(\d{1,2})(?![\w/:-]|[.]\d)")
# `a hundred`, `a thousand`: one of the scale, where a number-word run begins there.
_A_SCALE = re.compile(r"(?i)(?<![\w'-])an?\s+(?=(?:hundred|thousand|million|billion)(?![\w'-]))")


def ordinals_as_digits(text: str) -> str:
    """`twenty-first` is `21st`, `second` `2nd`: one spelling, read by `ordinal_tokens` (and by
    the date rules in between: `the second of October` is `2 October`)."""

    def digits(m: re.Match[str]) -> str:
        value = _ORDINAL_UNITS[m.group(2).lower()]
        if m.group(1):
            if value > 9:
                return m.group()  # `twenty-tenth` is no ordinal
            value += _TENS[m.group(1).lower()]
        return f"{value}th"

    return _ORDINAL_WORD.sub(digits, text)


def ordinal_tokens(text: str) -> str:
    """`21st` is one token, `ord` with the value in letters: no number rule reads it again."""
    letters = str.maketrans("0123456789", "abcdefghij")
    return _DIGIT_ORDINAL.sub(
        lambda m: f" ord{(m.group(1).lstrip('0') or '0').translate(letters)} ", text
    )


def number_words_as_digits(text: str) -> str:
    """A run of number words with a scale (`fifteen hundred`, `two thousand and five`) as its
    digits; a run that does not name one number is left as it is."""

    def digits(m: re.Match[str]) -> str:
        words = re.split(r"[\s-]+", m.group().lower())
        ordinal = words[-1] in _CARDINAL_OF
        if any(word in _CARDINAL_OF for word in words[:-1]):
            return m.group()  # `one hundred first two`: an ordinal ends a number
        value = _words_value([*words[:-1], _CARDINAL_OF.get(words[-1], words[-1])])
        return m.group() if value is None else f"{value}{'th' if ordinal else ''}"

    return _WORD_RUN.sub(digits, _A_SCALE.sub("one ", text))


def _words_value(words: list[str]) -> int | None:
    """The number `words` name, or None: scales in falling order, `hundred` after a number under
    100, `and` only after `hundred` or a scale, a unit after a ten or at a group's start."""
    if "zero" in words or not any(w == "hundred" or w in _SCALES for w in words):
        return None  # `twenty-one` and single words are qa_strict's
    total, group, last, previous_scale = 0, 0, "", 10**15
    for word in words:
        kind = _word_kind(word)
        if kind == "and":
            ok = last in ("hundred", "scale")
        elif kind == "hundred":
            ok, group = last in ("unit", "teen", "ten") and group < 100, group * 100
        elif kind == "scale":
            ok = last in ("unit", "teen", "ten", "hundred") and _SCALES[word] < previous_scale
            total, group, previous_scale = total + group * _SCALES[word], 0, _SCALES[word]
        else:
            opens = last in ("", "hundred", "scale", "and") and group % 100 == 0
            ok = opens or (kind == "unit" and last == "ten")
            group += _TENS[word] if kind == "ten" else _UNITS.index(word)
        if not ok:
            return None
        last = kind
    return None if last == "and" else total + group


def _word_kind(word: str) -> str:
    if word in ("and", "hundred"):
        return word
    if word in _SCALES:
        return "scale"
    if word in _TENS:
        return "ten"
    return "teen" if _UNITS.index(word) >= 10 else "unit"


def magnitudes_as_digits(text: str) -> str:
    """`1.5k` is 1500, `2M` 2000000, `1.5e3` 1500; a value that is no whole number stays."""

    def digits(m: re.Match[str]) -> str:
        scale = 10 ** int(m.group(3)) if m.group(3) else _MAGNITUDES[m.group(2)]
        value = Fraction(m.group(1)) * scale
        return str(value.numerator) if value.denominator == 1 else m.group()

    return _MAGNITUDE.sub(digits, text)


def iso_dates_as_words(text: str) -> str:
    """`1990-10-02` is `October 2, 1990`, where the month and day exist."""

    def words(m: re.Match[str]) -> str:
        year, month, day = (int(g) for g in m.groups())
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return m.group()
        return f" {MONTHS[month - 1]} {day}, {year} "

    return _ISO_DATE.sub(words, text)


def month_name(abbreviation: str) -> str:
    """`Oct` and `October` are one month: its full name, lower case."""
    word = abbreviation.lower()
    return next((name for name in MONTHS if name.startswith(word[:3])), word)


# Round 19: an amount in number words before `dollars` / `USD` (`five dollars`, `twenty-five
# USD`) is its digits, so that `qa_forms` writes it `$5` as it does `5 dollars`.
_AMOUNT_WORDS = re.compile(
    rf"(?i)(?<![\w'-])(?:{_NUMBER_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_NUMBER_WORD}))*"
    r"(?=\s+(?:US\s+)?(?:dollars?|USD)(?![\w'-]))"
)


def amount_words_as_digits(text: str) -> str:
    """`text` with each run of number words before `dollars` or `USD` written in digits; a run
    that names no one number stays (`two three dollars`)."""

    def digits(m: re.Match[str]) -> str:
        words = re.split(r"[\s-]+", m.group().lower())
        value = _small_value(words)
        if value is None:
            value = _words_value(words)
        return m.group() if value is None else str(value)

    return _AMOUNT_WORDS.sub(digits, text)


def _small_value(words: list[str]) -> int | None:
    """A number under 100 in words (`five`, `twenty`, `twenty-five`), or None."""
    if len(words) == 1 and words[0] in _UNITS:
        return _UNITS.index(words[0])
    if len(words) == 1 and words[0] in _TENS:
        return _TENS[words[0]]
    if len(words) == 2 and words[0] in _TENS and words[1] in _UNITS[1:10]:
        return _TENS[words[0]] + _UNITS.index(words[1])
    return None
