"""The QA pass rule's own tokens: SQuAD's normalisation with the meaning it drops kept.

MuSiQue's EM and F1 (SQuAD normalisation) stay in every verdict's details; `passed` and the reward
read these tokens instead, where dropping punctuation would pay for a wrong answer:

- a number is its value within its written form class: `125` is not `12.5`, `-5` not `5`, `1/2` not
  `12`; `.5`, `1½`, `two`, `1,500` and `1 thousand` are the numbers they name (on both sides, so
  `Formula One` is `Formula 1`); but a fraction is never reduced (`6/8` is not `3/4`, `20/20` not
  `1`; one in lowest terms is the decimal that writes it exactly, `3/4` is `0.75`, and a mixed
  number its value, `12 1/2` is `12.5`: `qa_fractions`) and leading zeros are kept (`007` is not `7`), as MuSiQue's EM has it; but a decimal is its
  value (`12.50` is `12.5`, `3.0` is `3`), but right after a name or a word that numbers things
  it is an identifier as written (`Python 3.10` is not `Python 3.1`);
- digits with several separators (dates, versions, addresses) or one `-` or `:` (scores, ranges,
  times) are one token, separators kept: `11/2/2020` is not `1/12/2020`, `2-1` not `21`;
- `+`, `#` and a closing `-` on a short name are part of it: `C++`, `C#`, `C`, `B+`, `B-`, `F#`
  are six answers;
- a hyphen inside a word splits it: `re-sign` is two words, never `resign`;
- a sign on a number is a word of it: `%` (`12%` is not `12`, nor `12` `12%`; `12 percent` is
  `12%`), a bound or an approximation (`>12`, `>=12`, `<12`, `12+`, `~12`, `≈12` are not `12`);
- ordinals, number words with a scale, magnitudes (`1.5k`), ISO dates and abbreviated months are
  read as `qa_number_words` says."""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

from stages.verifiers.qa_forms import written_forms
from stages.verifiers.qa_fractions import exact_decimal, mixed_numbers_as_decimals
from stages.verifiers.qa_number_words import (
    iso_dates_as_words,
    magnitudes_as_digits,
    month_name,
    number_words_as_digits,
    ordinal_tokens,
    ordinals_as_digits,
)

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)
QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"',
     "\u2032": "'", "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2212": "-", "\u2013": "-",
     "\u2010": "-", "\u2011": "-", "\u2012": "-", "\ufe63": "-", "\uff0d": "-",
     # round 19: the quotation marks of other scripts (guillemets, CJK corner and title marks)
     "\u00ab": '"', "\u00bb": '"', "\u2039": "'", "\u203a": "'", "\u201b": "'", "\u201f": '"',
     "\u300c": '"', "\u300d": '"', "\u300e": '"', "\u300f": '"', "\u300a": '"', "\u300b": '"',
     "\u3008": "'", "\u3009": "'", "\u301d": '"', "\u301e": '"', "\u301f": '"', "\uff02": '"',
     "\uff07": "'", "\ufe41": '"', "\ufe42": '"', "\ufe43": '"', "\ufe44": '"'}
)  # fmt: skip
_VULGAR = {"½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅛": "1/8"}
_MIXED = re.compile(r"(?<![\d.,])(\d{0,30})\s?([" + "".join(_VULGAR) + "])")
_CURRENCY = "$€£¥"
_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen", "twenty"]  # fmt: skip
_TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}  # fmt: skip
_NUMBER_WORD = re.compile(r"(?i)(?<![\w'-])(" + "|".join([*_WORDS, *_TENS]) + r")(?![\w'-])")
_SCALE = re.compile(
    r"(?i)(?<![\w.,])(\d{1,30}(?:\.\d{1,30})?)\s+(thousand|million|billion)(?![\w'-])"
)
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
# Digits joined by separators: several of them, or one '-' or ':' (a single '.' is a decimal, a
# single '/' a fraction: those are numbers, read below).
_SEQUENCE = re.compile(r"(?<![\d.,/:-])\d+(?:[./:-]\d+)+(?!\d|[./:-]\d)")  # `v1.1.2`, `3.11.0rc1`
_SEPARATORS = {".": "s", "/": "s", "-": "s", ":": "c"}  # day/month/year forms alike; ':' apart
# A number, read whole before punctuation is dropped: a sign only where no word precedes it ("-5",
# never the "-3" of "4-3"), thousands separators only in groups of three ("1,500" but "1,2" is two).
_NUMBER = re.compile(
    r"(?P<sign>(?<![\w.,/])-)?(?<![\d.,/])"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d+/\d+|\d+|\.\d+)(?!\d|[.,/]\d)"
)
_SYMBOLS = re.compile(
    r"(?i)(?<![\w+#-])([a-z]\w*)([+#]+)|(?<![\w+#-])([a-z]{1,2})(-)(?=\s|$|[.,;:!?)\"'])"
)
_MINUS_WORD = re.compile(r"(?i)(?<![\w-])(?:minus|negative)\s+(?=\.?\d)")
_PERCENT_WORD = re.compile(r"(?i)(?<=\d)\s*(?:percent|per\s+cent|pct)(?![\w'-])")
# `%` after a number is a word of it: `12%` is not `12` (nor `12` `12%`; `12 percent` is `12%`).
_PERCENT_SIGN = re.compile(r"(?<=\d)\s*[%\ufe6a\u066a]")
# A bound or approximation sign on a number makes another answer: `>12`, `>=12`, `~12`, `12+`.
_BOUND_BEFORE = re.compile(
    r"(?<![<>=!])(>=|=>|<=|=<|[<>\u2265\u2264\u2a7e\u2a7d\u2273\u2272\ufe64\ufe65~\u223c"
    r"\u2248\u2243\u2245])\s*(?=[-+]?\.?\d)"
)
# ... also after a suffix of the number: `12%+`, `1.5k+`, `12th+`
_BOUND_AFTER = re.compile(r"(?<=\d)((?:\s*(?:pct|[A-Za-z]{1,3})(?![\w]))?)\s*\+(?![\w+]|\s*\d)")
_BOUND_NAMES = {">": "gt", ">=": "ge", "=>": "ge", "\u2265": "ge", "\u2a7e": "ge", "\u2273": "ge",
                "\ufe65": "gt", "<": "lt", "<=": "le", "=<": "le", "\u2264": "le", "\u2a7d": "le",
                "\u2272": "le", "\ufe64": "lt"}  # fmt: skip
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december"
           "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")  # fmt: skip
# A date written day first ("2 October 1990", "2nd of October") and month first ("October 2,
# 1990") is one date: read in one order, so that the order of other words can count.
_DAY_FIRST = re.compile(
    rf"(?i)(?<![\w.,/-])(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTHS})\.?(?![\w'-])"
)
_MONTH_DAY = re.compile(rf"(?i)(?<![\w'-])({_MONTHS})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?![\w'-])")
# A currency code before its amount ("USD 3.50") or after it ("3.5 USD") is one amount: read after.
_CODE_FIRST = re.compile(
    r"(?<![\w.])(USD|EUR|GBP|JPY|INR|CNY|CHF|CAD|AUD|Rs)\.?\s*(-?\d[\d,]*(?:\.\d+)?)(?![\d\w])"
)
_SPACED_SLASH = re.compile(r"(?<=\d)\s+/\s+(?=\d)")
_COMPOUND = re.compile(r"(?i)(?<![\w'-])(" + "|".join(["twenty", "thirty", "forty", "fifty", "sixty",
                       "seventy", "eighty", "ninety"]) + r")[\s-]+(one|two|three|four|five|six|"
                       r"seven|eight|nine)(?![\w'-])")  # fmt: skip
END_MARKERS = re.compile(r"<\|[^|<>]{1,40}\|>|</s>|<eos>|<end_of_turn>|<\|endoftext\|>")
_INNER_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")


# Full-width ASCII (U+FF01..FF5E) and the ideographic space: the same letters and digits.
# full-width forms, and subscript digits (`H₂O` is `H2O`, round 16)
_FULL_WIDTH = (
    {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}
    | {0x3000: 0x20}
    | {0x2080 + d: 0x30 + d for d in range(10)}
)
# Digits grouped by a thin, narrow or no-break space ("1\u2009000"): typeset thousands, one number.
_TYPESET_THOUSANDS = re.compile(r"(?<=\d)[\u2009\u202f\u00a0](?=\d{3}(?!\d))")
_SPACED_NUMBER = re.compile(r"\s*+\d{1,3}(?: \d{3})+\s*+")  # a whole answer "1 000": one number
# A decimal right after a name or a word that numbers things ("Python 3.10", "Section 1.10",
# "v2.10", "jQuery 1.10", "numpy 1.10") is an identifier, compared as written: its trailing zeros
# are not a value's. Words that open a quantity ("About 3.50", "is 3.50") are not names.
_IDENTIFIER_LEAD = re.compile(
    r"(?:(?<![\w.])(?!(?i:About|Approx\w*|Around|Roughly|Nearly|Almost|Exactly|Only|Just|Over"
    r"|Under|Less|More|Up|Is|Was|Are|Were|Be|Total|Answer|It|At|In|On|By|To|Of|For|From|And|Or"
    r"|Than|With|A|An|The|Ca|Circa|Some|USD|EUR|GBP|JPY|INR|CNY|CHF|CAD|AUD|Rs)\s)"
    r"[^\W\d_][\w+#]*"
    r"|(?i:(?<![\w.])(?:version|ver|v|release|rel|section|sec|chapter|ch|article|art|rule|clause"
    r"|verse|figure|fig|table|step|level|build|model|mark|mk|rfc|iso|no|number)\.?))\s*$"
)


def fold_accents(text: str) -> str:
    """Latin letters without their accents ("Sao Paulo" is "São Paulo"); marks on other scripts'
    letters are spelling and stay."""
    out: list[str] = []
    for char in unicodedata.normalize("NFD", text):
        if unicodedata.combining(char) and out and out[-1].isascii() and out[-1].isalpha():
            continue
        out.append(char)
    return unicodedata.normalize("NFC", "".join(out))


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, drop punctuation and articles, squeeze whitespace."""
    text = text.lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _sequence_token(m: re.Match[str]) -> str:
    text = m.group()
    separators = re.findall(r"[./:-]", text)
    if len(separators) == 1 and separators[0] in "./":
        return text  # a decimal or a fraction: a number
    parts = re.split(r"([./:-])", text)
    digits = parts[::2]
    # leading zeros aside only in a date or a time (`1/01/2010` is `1/1/2010`, `09:05` `9:05`);
    # elsewhere a digit group's zeros are part of the identifier: `555-100` is not `555-0100`
    date = len(digits) == 3 and len(set(separators)) == 1 and separators[0] in "./-"
    date = date and all(len(d) <= 2 for d in digits[:2]) and len(digits[2]) in (2, 4)
    date = date and (len(digits[2]) == 4 or separators[0] != "-")  # `07-08-10`: a part number
    time = set(separators) == {":"} and all(len(d) <= 2 for d in digits)
    spelled = "".join(
        _SEPARATORS[p] if p in _SEPARATORS else (p.lstrip("0") or "0") if date or time else p
        for p in parts
        if p
    )
    sep = "x" if len(separators) > 1 else {"-": "h", ":": "c"}[separators[0]]
    return f" seq{sep}{spelled.translate(_DIGIT_LETTERS)} "


def _number_token(m: re.Match[str]) -> str:
    """A number in its written form class: values compare only where the form says nothing else.
    A fraction is its two numbers as written (`6/8` is a time signature, not `3/4`), leading zeros
    make an identifier (`007`, ZIP `02139`), so does a decimal after a name (`Python 3.10`, `v2.10`);
    any other decimal is its value (`12.50` is `12.5`: numbers compare as numbers, issue 27 item 5)."""
    raw, sign = m.group("num").replace(",", ""), "m" if m.group("sign") else ""
    if "." in raw and _IDENTIFIER_LEAD.search(m.string, 0, m.start()):
        whole, _, frac = raw.partition(".")
        return f" numv{sign}{whole}p{frac} "  # "Python 3.10" is not "Python 3.1"
    if "/" in raw:
        top, bottom = raw.split("/")
        exact = None if top[0] == "0" or bottom[0] == "0" else exact_decimal(int(top), int(bottom))
        if exact is None:
            return f" num{sign}f{top}s{bottom} "
        raw = exact  # `3/4` is `0.75` (round 21): read as the decimal below
    whole, point, frac = raw.partition(".")
    if len(whole) > 1 and whole.startswith("0"):
        return f" numz{sign}{whole}{'p' + frac if point else ''} "
    frac = frac.rstrip("0")  # a decimal is its value: issue 27 item 5, numbers compare as numbers
    # letters and digits only, so SQuAD's punctuation removal leaves it whole
    whole = whole.lstrip("0") or "0"  # not int(): a number of 4300 digits or more raises
    return f" num{sign}{whole}{'p' + frac if frac else ''} "


def _vulgar(m: re.Match[str]) -> str:
    """`1½` is the mixed number 1.5 (a decimal where it ends: the form a gold writes it in);
    a lone `½` is the fraction `1/2`."""
    top, bottom = _VULGAR[m.group(2)].split("/")
    if not m.group(1):
        return f" {top}/{bottom}"
    value = Fraction(int(m.group(1))) + Fraction(int(top), int(bottom))
    if 10**6 % value.denominator:
        return f"{m.group(1)} {top}/{bottom}"
    return format(Decimal(value.numerator) / Decimal(value.denominator), "f")


def _scaled(m: re.Match[str]) -> str:
    value = Fraction(m.group(1)) * _SCALES[m.group(2).lower()]
    return str(value.numerator) if value.denominator == 1 else m.group()


def _number_word(m: re.Match[str]) -> str:
    word = m.group(1).lower()
    return str(_TENS.get(word, _WORDS.index(word) if word in _WORDS else 0))


def _month_first(m: re.Match[str]) -> str:
    day = m.group(1)
    return f"{month_name(m.group(2))} {day}" if 1 <= int(day) <= 31 else m.group()


def _bound(m: re.Match[str]) -> str:
    return f" bound{_BOUND_NAMES.get(m.group(1), 'approx')} "


def _symbol(m: re.Match[str]) -> str:
    spelled = {"+": "plus", "#": "sharp", "-": "minus"}
    word, marks = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return word + "".join(spelled[c] for c in marks)


def _compound(m: re.Match[str]) -> str:
    tens = m.group(1).lower()
    return str(_TENS.get(tens, 20) + _WORDS.index(m.group(2).lower()))


_DIGIT_LETTERS = str.maketrans("0123456789", "abcdefghij")  # a token no number rule reads again


def strict_tokens(text: str) -> list[str]:
    """SQuAD's tokens with numbers, digit sequences, symbols and inner hyphens kept as meaning:
    `12.5` and `12.50` are one token, `125` another."""
    text = written_forms(fold_accents(text.translate(_FULL_WIDTH)))  # `3 pm`, `10⁶`, `Henry VIII`
    text = _TYPESET_THOUSANDS.sub("", text)
    if _SPACED_NUMBER.fullmatch(text):
        text = text.replace(" ", "")
    text = END_MARKERS.sub(" ", text.translate(QUOTES))
    text = _MINUS_WORD.sub("-", _SPACED_SLASH.sub("/", text))
    text = ordinals_as_digits(number_words_as_digits(text))  # `fifteen hundred`, `twenty-first`
    text = _COMPOUND.sub(_compound, text)
    text = _MIXED.sub(_vulgar, text)
    text = _INNER_HYPHEN.sub(" ", text)  # before number words: `three-time` is `three time`
    text = _NUMBER_WORD.sub(_number_word, text)
    text = mixed_numbers_as_decimals(text)  # `12 1/2`, `one and a half` (round 21)
    text = _MINUS_WORD.sub("-", text)  # `negative five`: the word read as a number just now
    text = _PERCENT_SIGN.sub(" pct ", _PERCENT_WORD.sub("%", text))
    text = _BOUND_AFTER.sub(r"\1 boundplus ", _BOUND_BEFORE.sub(_bound, text))
    text = iso_dates_as_words(text)  # `1990-10-02` is `October 2, 1990`
    text = _DAY_FIRST.sub(_month_first, text)  # `2 October 1990` is `October 2, 1990`
    text = _MONTH_DAY.sub(lambda m: f"{month_name(m.group(1))} {m.group(2)}", text)  # `Oct 2nd`
    text = ordinal_tokens(text)  # `21st`, read after dates: `October 21st` is a day
    text = _SCALE.sub(_scaled, magnitudes_as_digits(text))
    text = _CODE_FIRST.sub(r"\2 \1", text)
    text = _SEQUENCE.sub(_sequence_token, text)
    text = _NUMBER.sub(_number_token, text)
    text = _SYMBOLS.sub(_symbol, text)
    return normalize_answer(text).split()


_TRAILING_GLOSS = re.compile(r"\(\s*([^()]{1,60}?)\s*\)\s*[.!]?\s*$")
_ACRONYM = re.compile(r"[A-Z](?:\.?[A-Za-z&])*\.?")
_SMALL_WORDS = frozenset(("of", "the", "for", "and", "to", "in", "on", "a", "an", "at", "by", "de",
                          "du", "des", "la", "le", "von", "van", "y", "e", "und", "et"))  # fmt: skip


def without_gloss(answer: str, golds: Sequence[str]) -> str:
    """The answer less one trailing parenthetical that restates it: its initials (`... Animals
    (RSPCA)`), a number it names (`twenty-one (21)`) or a gold whole. Any other gloss is a word of
    the answer (`(WRONG)`, `(MAYBE)`, `(former)`)."""
    m = _TRAILING_GLOSS.search(answer)
    if not m:
        return answer
    head, gloss = answer[: m.start()].rstrip(), m.group(1)
    gloss_tokens = strict_tokens(gloss)
    if not gloss_tokens or not strict_tokens(head):
        return answer
    if any(gloss_tokens == strict_tokens(g) for g in golds):
        return head
    if len(gloss_tokens) == 1 and gloss_tokens[0].startswith("num"):
        return head if gloss_tokens[0] in strict_tokens(head) else answer
    return head if _initials_of(head, gloss) else answer


def _initials_of(head: str, gloss: str) -> bool:
    """`gloss` is an acronym of `head`'s words: all of them, the capitalised ones, or all but
    the small ones (`RSPCA`, `U.S.`, `UNESCO`)."""
    if not _ACRONYM.fullmatch(gloss):
        return False
    letters = re.sub(r"[^A-Za-z]", "", gloss).upper()
    words = [w for w in re.split(r"[\s\-\u2010-\u2014/]+", head) if re.search(r"[^\W\d_]", w)]
    firsts = [next(c for c in w if c.isalpha()) for w in words]
    options = (
        firsts,
        [c for c in firsts if c.isupper()],
        [
            c
            for w, c in zip(words, firsts, strict=True)
            if w.lower().strip(",.") not in _SMALL_WORDS
        ],
    )
    return len(letters) >= 2 and any("".join(o).upper() == letters for o in options)
