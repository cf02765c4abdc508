"""Answer forms the QA verifier reads as the gold and words after a number that are no unit
(red team round 18).

`not_a_unit` widens `qa_verifier._NOT_UNITS` by rule instead of by list: a word after a bare
number changes what it says when it is a scale word in the plural (`42 thousands`), another scale
word (`42 myriad`, `42 crore`), a calendar era or an age before present (`1500 AUC`, `1500 AH`,
`42 kya`), a bound (`42 upwards`, `42 tops`), an ordinal (`42 hundredth`) or a multiple
(`42 hundredfold`): the answer is then another quantity, year or bound, not the gold and a unit.

`as_gold_form` reads two honest answers as the gold: a year with its era marker (`AD 1500`,
`1500 CE` for the gold `1500`, where the gold names no era) and a description of the gold's
kind before it (`the city of Lyon`, `the river Thames`, `the year 1500`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

_SCALES = frozenset(
    ("hundred", "thousand", "million", "billion", "trillion", "quadrillion", "quintillion",
     "sextillion", "septillion", "octillion", "nonillion", "decillion", "googol", "googolplex",
     "myriad", "lakh", "lac", "crore", "arab", "kharab", "dozen", "score", "gross", "grand",
     "zillion", "gazillion", "bajillion", "jillion", "squillion", "umpteen", "k", "mil", "mio",
     "mn", "bn", "tn", "thou", "wan", "yi", "oku")
)  # fmt: skip
# calendar eras (Ab urbe condita, Anno Hegirae, Anno Mundi, Buddhist Era, Saka, Bikram Sambat,
# Anno Persico, the Japanese and Republic of China eras) and ages before present
_ERAS = frozenset(
    ("bc", "bce", "ad", "ce", "bp", "auc", "ah", "ahs", "am", "ame", "be", "bs", "se", "sh", "ap",
     "an", "ab", "anno", "hijri", "hegira", "heisei", "showa", "reiwa", "minguo", "roc", "juche",
     "kya", "ka", "ky", "mya", "ma", "myr", "gya", "ga", "ybp", "ya", "ago", "bcd", "era",
     "epoch")
)  # fmt: skip
_BOUNDS = frozenset(
    ("upward", "upwards", "onward", "onwards", "downward", "downwards", "tops", "max", "maximum",
     "min", "minimum", "least", "most", "plus", "odd", "ish", "over", "under", "above", "below",
     "beyond", "exceeding", "less", "more", "fewer", "higher", "lower", "greater", "smaller",
     "shy", "short", "nearly", "almost", "roughly", "about", "around", "approx", "approximately",
     "circa", "something", "somewhat", "orso", "atmost", "atleast", "upto", "give", "or", "and",
     "to", "than", "not", "no", "nor", "only", "either")
)  # fmt: skip
_NUMBER_STEM = re.compile(
    r"(?:four|fif|six|seven|eigh|nin|ten|eleven|twelf|thirteen|fourteen|fifteen|sixteen"
    r"|seventeen|eighteen|nineteen|twent|thirt|fort|fift|sixt|sevent|eight|ninet|hundred"
    r"|thousand|million|billion|trillion|zillion|googol|myriad|umpteen|n)"
)


def not_a_unit(word: str) -> bool:
    """Whether `word` (lower case, letters only), after a bare number, changes the number's
    value, era or bound instead of naming what it counts."""
    singular = word[:-2] if word.endswith("es") and word[:-2] in _SCALES else word.rstrip("s")
    if word in _SCALES or singular in _SCALES or word in _ERAS or word in _BOUNDS:
        return True
    if word.endswith("fold") or word in ("first", "second", "third", "times", "tuple"):
        return True
    m = re.fullmatch(r"([a-z]+?)(?:th|ieth)s?", word)
    return bool(m and _NUMBER_STEM.fullmatch(m.group(1)))


_ERA_MARK = re.compile(
    r"(?i)^\s*(?:a\.?\s?d\.?|c\.?\s?e\.?|anno\s+domini)\s+(?=\d)"
    r"|(?<=\d)\s*(?:a\.?\s?d\.?|c\.?\s?e\.?|anno\s+domini)\s*$"
)
_BARE_YEAR = re.compile(r"\s*\d{1,4}\s*")
# what an answer may say before the gold and still be the gold alone: a common noun naming the
# gold's kind (`the city of`, `the river`, `the year`). Not a state's
# kind (`the Republic of China` is not `China`, `the island of Ireland` not the country).
_KIND = (
    r"city|town|village|capital|port|river|lake|mountain|mount|year|number|word|name|planet"
    r"|element|language|author|writer|poet|painter|artist|composer|scientist|band|film|movie"
    r"|novel|book|song|album|play|opera|sport|game|animal|bird|plant|colou?r|metal|gas|instrument"
)
# (`It was Steve Jobs` stays words of the answer: a bare copula may date or deny it, round 17)
_LEAD = re.compile(rf"(?i)^\s*(?:the|a|an)\s+(?:{_KIND})(?:\s+(?:of|called|named|known\s+as))?\s+")
_TAIL = re.compile(r"\s*[.!]?\s*$")


def as_gold_form(answer: str, golds: Sequence[str], tokens: Callable[[str], list[str]]) -> str:
    """`answer` as the gold it says in another form (above), else `answer` unchanged."""
    if len(answer) > 200:  # a description and a gold: no tokenising a long answer again
        return answer
    for gold in golds:
        if _BARE_YEAR.fullmatch(gold) and _ERA_MARK.search(answer):
            bare = _ERA_MARK.sub("", answer).strip()
            if tokens(bare) == tokens(gold):
                return bare
    lead = _LEAD.match(answer)
    if not lead:
        return answer
    rest = _TAIL.sub("", answer[lead.end() :])
    if tokens(rest) and any(tokens(rest) == tokens(g) for g in golds):
        return rest
    return answer
