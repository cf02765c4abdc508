"""Written forms the QA pass rule reads as one answer (red team round 12), before `qa_strict`
tokenises. Each names the same thing on both sides, so none can turn a wrong answer into a right
one:

- digits of any script (`٢٠٢٠`) are ASCII digits; `&` is `and`; `10⁶` and `10^6` are the number;
  `a dozen` is 12, `two dozen` 24 (`dozens` is no number);
- a clock time with am/pm is the 24-hour time: `3 pm` is `15:00` (a bare `3:00` stays itself);
- an amount in dollars (`5 dollars`, `5 USD`, `US$5`) is written `$5`;
- a length or mass unit after a number is its symbol (`5 kilometres`, `5 kilometers`: `5 km`),
  and British `-re` spellings of units and `centre`/`theatre` are the American ones;
- `Mt.` before a name is `Mount`; a Roman numeral after a name is a regnal ordinal (`Henry VIII`
  is `Henry the Eighth`, not `Henry 8`), except after a head that counts a series (`Type I` is
  `Type 1`, `Apollo XI` `Apollo 11`, `stage IV` `stage 4`);
- Indian digit grouping is the number (`1,00,000` is `100000`); `5 million USD` is `$5 million`.

`without_honorific` and `disambiguated_heads` widen what is compared, and only where the response
cannot mean another thing: see their docstrings."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from decimal import Decimal

from stages.verifiers.qa_number_words import amount_words_as_digits

# one whitespace quantifier before the "&" read a blank with no "&" quadratically (5 s on 50 KB)
_AMPERSAND = re.compile(r"(?<!\s)\s*+&\s*")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
# Scientific notation in any of its spellings is one number (`6.022e23`, `6.022 x 10^23`,
# `6.022 × 10²³`, round 15); an operator between numbers is kept as a word, so `2*10` is never
# `2^10` once punctuation is dropped
_SCIENTIFIC = re.compile(
    r"(?<![\w.,])(\d{1,20}(?:\.\d{1,20})?)\s*(?:[eE]([+-]?\d{1,3})|(?:[xX×*·]|\\times|\\cdot)\s*10"
    r"\s*(?:\^\s*\{?\s*([+-]?\d{1,3})\s*\}?|\*\*\s*([+-]?\d{1,3})|([⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})))(?![\w.,^])"
)
_OPERATOR = re.compile(r"(?<=[\w)])\s*(\*\*|\^|[*×·/+=])\s*(?=[\w(])|(?<=\d)\s*([x])\s*(?=\d)")
_OPERATOR_WORDS = {"**": " pow ", "^": " pow ", "*": " times ", "×": " times ", "·": " times ",
                   "x": " times ", "/": "/", "+": " plus ", "=": " equals "}  # fmt: skip
_POWER_OF_TEN = re.compile(r"(?<![\w.,])10(?:\^\{?(\d{1,2})\}?|([⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2}))(?![\w.,^])")
_FEW = ["a", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
_DOZEN = re.compile(rf"(?i)(?<![\w'-])(?:({'|'.join(_FEW)})\s+|(\d{{1,6}})\s+)?dozen(?![\w'-])")
_CLOCK = re.compile(r"(?i)(?<![\w.:])(\d{1,2})(?::([0-5]\d))?\s*([ap])\.?\s?m\b\.?(?![\w'-])")
_DOLLARS = re.compile(
    r"(?i)(?<![\w.,])(?:(?:US\$|USD)\s*(-?\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?"
    r"(?:\s+(?:thousand|million|billion|trillion))?)\s*(?:US\s+)?(?:dollars?|USD)(?![\w'-]))"
)
# Indian digit grouping (`1,00,000`): two-digit groups before the last three are one number;
# no other reading exists (three-digit groups are the only other grouping)
_INDIAN_GROUPING = re.compile(r"(?<![\w.,])(\d{1,2}(?:,\d\d)+,\d{3})(?![\w,]|\.\d)")
_UNITS = {"kilometer": "km", "kilometers": "km", "kilometre": "km", "kilometres": "km",
          "meter": "m", "meters": "m", "metre": "m", "metres": "m", "centimeter": "cm",
          "centimeters": "cm", "centimetre": "cm", "centimetres": "cm", "millimeter": "mm",
          "millimeters": "mm", "millimetre": "mm", "millimetres": "mm", "kilogram": "kg",
          "kilograms": "kg", "kgs": "kg", "mile": "mi", "miles": "mi",
          # round 16: `150 pounds` is `150 lb`, `60 miles per hour` is `60 mph`
          "miles per hour": "mph", "pound": "lb", "pounds": "lb", "lbs": "lb", "ounce": "oz",
          "ounces": "oz", "foot": "ft", "feet": "ft", "gram": "g", "grams": "g"}  # fmt: skip
# the longest name first: `miles per hour` before `miles`
_UNIT_AFTER = re.compile(
    r"(?i)(?<=\d)\s*(" + "|".join(sorted(_UNITS, key=len, reverse=True)) + r")(?![\w'-])"
)
_RE_SPELLING = re.compile(r"(?i)(?<![\w'-])(kilo|centi|milli)?(met|lit)re(s?)(?![\w'-])")
_CENTRE = re.compile(r"(?i)(?<![\w'-])(cent|theat)re(s?)(?![\w'-])")
_MOUNT = re.compile(r"(?<![\w'-])Mt\.?\s+(?=[A-Z])")
# `St Petersburg`, `St. Louis` are `Saint ...` (round 18): before a capitalised name only, so
# `Main St` (a street) stays
_SAINT = re.compile(r"(?<![\w'-])(St|Ste)\.?\s+(?=[A-Z])")
_FORT = re.compile(r"(?<![\w'-])Ft\.?\s+(?=[A-Z])")  # `Ft. Worth` is `Fort Worth` (round 16)
# I, V, X, L only: `Vitamin C` and `Type D` are letters, not the 100th and the 500th
# a numeral ends the name ("Samuel L. Jackson"'s L is an initial), and a lone X or L is a name's
# letter ("Malcolm X" is not the tenth Malcolm, red team round 13)
_ROMAN = re.compile(
    r"(?<![\w'-])([A-Z][a-z]{1,30} )(?![XL](?![IVXL]))((?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3}))"
    r"(?![\w'-])(?!\.?\s+[A-Z])"
)
# another country's dollar is its own currency: A$5 is not US$5 ("A" is no article here)
_FOREIGN_DOLLAR = re.compile(
    r"(?<![\w$])(A|AU|C|CA|NZ|HK|S|SG|NT|MX|R|TT|EC|FJ|J)\$\s*(-?\d[\d,]*(?:\.\d+)?)"
)
_DOLLAR_CODES = {"A": "AUD", "AU": "AUD", "C": "CAD", "CA": "CAD", "NZ": "NZD", "HK": "HKD",
                 "S": "SGD", "SG": "SGD", "NT": "TWD", "MX": "MXN", "R": "BRL", "TT": "TTD",
                 "EC": "XCD", "FJ": "FJD", "J": "JMD"}  # fmt: skip
_ROMAN_VALUES = {"L": 50, "X": 10, "V": 5, "I": 1}
# A numeral after one of these heads counts a series, not a monarch: `Type I` diabetes is
# `type 1`, `Apollo XI` is `Apollo 11`, `World War II` is `World War 2` (red team round 13)
_SERIES_HEADS = (
    "type|stage|phase|apollo|war|bowl|class|grade|level|chapter|part|volume|vol|book|act|"
    "article|title|category|gemini|mark|schedule|division|tier|series|round|step|version|sonnet|"
    "symphony|psalm|canto|appendix|figure|table|section|formula|unit|block"
)
_SERIES = re.compile(
    rf"(?i)(?<![\w'-])({_SERIES_HEADS})\s+(?![XL](?![IVXL]))"
    r"((?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3}))(?![\w'-])"
)
_HONORIFIC = re.compile(r"(?i)^\s*(?:dr|prof|professor|doctor|rev|reverend|sir|dame)\.?\s+")


def written_forms(text: str) -> str:
    """`text` with the forms above rewritten to one spelling each."""
    text = "".join(
        str(unicodedata.digit(c)) if not c.isascii() and unicodedata.category(c) == "Nd" else c
        for c in text
    )
    text = _AMPERSAND.sub(" and ", text)
    text = _SCIENTIFIC.sub(_scientific, text)
    text = _POWER_OF_TEN.sub(_power, text)
    text = _OPERATOR.sub(lambda m: _OPERATOR_WORDS[m.group(1) or m.group(2)], text)
    text = _DOZEN.sub(_dozen, text)
    text = _CLOCK.sub(_clock, text)
    text = _FOREIGN_DOLLAR.sub(lambda m: f"{m.group(2)} {_DOLLAR_CODES[m.group(1)]}", text)
    text = _INDIAN_GROUPING.sub(lambda m: m.group(1).replace(",", ""), text)
    text = amount_words_as_digits(text)  # `five dollars` as `5 dollars`, round 19
    text = _DOLLARS.sub(lambda m: f"${m.group(1) or m.group(2)}", text)
    text = _RE_SPELLING.sub(lambda m: f"{m.group(1) or ''}{m.group(2)}er{m.group(3)}", text)
    text = _CENTRE.sub(lambda m: f"{m.group(1)}er{m.group(2)}", text)
    text = _UNIT_AFTER.sub(lambda m: f" {_UNITS[m.group(1).lower()]}", text)
    text = _FORT.sub("Fort ", _MOUNT.sub("Mount ", text))
    text = _SAINT.sub(lambda m: "Sainte " if m.group(1) == "Ste" else "Saint ", text)
    text = _SERIES.sub(_series_number, text)
    return _ROMAN.sub(_regnal, text)


def _scientific(m: re.Match[str]) -> str:
    raw = next(g for g in m.groups()[1:] if g)
    exponent = int(raw.translate(_SUPERSCRIPT).replace("⁺", "").replace("⁻", "-"))
    value = Decimal(m.group(1)).scaleb(exponent)
    return format(value.normalize(), "f") if abs(exponent) <= 40 else m.group()


def _power(m: re.Match[str]) -> str:
    exponent = int((m.group(1) or m.group(2)).translate(_SUPERSCRIPT))
    return str(10**exponent)


def _dozen(m: re.Match[str]) -> str:
    if m.group(2):
        return str(int(m.group(2)) * 12)
    if m.group(1):
        return str(max(1, _FEW.index(m.group(1).lower())) * 12)
    return "12" if m.start() == 0 else m.group()


def _clock(m: re.Match[str]) -> str:
    hour, minute = int(m.group(1)), m.group(2) or "00"
    if not 1 <= hour <= 12:
        return m.group()
    hour = hour % 12 + (12 if m.group(3).lower() == "p" else 0)
    return f"{hour}:{minute}"


def _roman_value(numeral: str) -> int:
    values = [_ROMAN_VALUES[c] for c in numeral.upper()]  # `(?i)` series heads: `stage iv`
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def _series_number(m: re.Match[str]) -> str:
    # the numeral group matches the empty string too: a head with no numeral stays as written
    return f"{m.group(1)} {_roman_value(m.group(2))}" if m.group(2) else m.group()


def _regnal(m: re.Match[str]) -> str:
    numeral = m.group(2)
    if not numeral:
        return m.group()
    return f"{m.group(1)}{_roman_value(numeral)}th"


Tokens = Callable[[str], list[str]]


def without_honorific(answer: str, golds: Sequence[str], tokens: Tokens) -> str:
    """`Dr. Martin Luther King Jr.` answers `Martin Luther King Jr.`: a leading title (Dr, Prof,
    Rev, Sir, Dame; never Mr/Mrs/Ms, which can name a spouse) goes where what follows is a gold
    of two words or more, whole."""
    m = _HONORIFIC.match(answer)
    if not m:
        return answer
    rest = tokens(answer[m.end() :])
    if len(rest) >= 2 and any(rest == tokens(g) for g in golds):
        return answer[m.end() :]
    return answer


_NEGATIONS = frozenset(("not", "no", "never", "neither", "nor", "isnt", "wasnt", "but"))
_DISAMBIGUATOR = re.compile(r"^(.*\S)\s*\(\s*([^()]{1,60}?)\s*\)\s*$")


def disambiguated_heads(golds: Sequence[str], context: str, tokens: Tokens) -> list[str]:
    """A gold with a trailing disambiguator (`Mercury (planet)`, as a Wikipedia title) is also
    answered by its head (`Mercury`) where the response says nothing else, or says the
    disambiguator's words somewhere: `Mercury is a planet. Answer: Mercury` for gold
    `Mercury (element)` does not pass, nor where it negates anything (`a planet, not an
    element`)."""
    said = set(tokens(context)) - {"answer", "final"}
    if said & _NEGATIONS:
        return []  # `a planet, not an element`: which one it means is not said plainly
    heads = []
    for gold in golds:
        m = _DISAMBIGUATOR.match(gold)
        if not m or not tokens(m.group(1)):
            continue
        if not said or set(tokens(m.group(2))) <= said:
            heads.append(m.group(1))
    return heads
