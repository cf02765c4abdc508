"""A passing grade's reason that counts something other than the rubric's count (red team round
21): rubric "Has exactly three lines." and reason "Counted 4 lines.", rubric "Uses fewer than 50
words." and reason "72 words in total.". Beside `"passed": true` the grade says two things: a judge
error (`judge.parse_judgement`).

Read by rule, not by phrase: the rubric's count is a number with its bound (exactly, at least, at
most, fewer than, between) and the noun it counts; the reason's counts of that noun (digits or
number words, `word count: 72`, a bound such as "well over 60 words" or "about 72") are compared
with it, and one that cannot meet it contradicts the grade. Left alone, because they are no total
count: a count per part ("fewer than 20 words per sentence", "4 lines each"), a part of the whole
("the first two lines", "2 of the 3 lines"), a count negated ("not 4 lines"), a rubric of several
counts of one noun (a haiku's 5-7-5)."""

from __future__ import annotations

import math
import re

from stages.verifiers.judge_reasons import stem

_SMALL = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen"]  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip
_WORDS = {w: i for i, w in enumerate(_SMALL)} | _TENS
_NUM = (
    rf"(?:\d{{1,6}}|(?:{'|'.join(_TENS)})(?:[\s-](?:{'|'.join(_SMALL[1:10])}))?"
    rf"|{'|'.join(_SMALL)}|hundred)"
)
# the bound words before a number, as (lowest, highest) given the number n
_AT_LEAST = (
    r"at\s+least|no\s+(?:fewer|less)\s+than|not\s+(?:fewer|less)\s+than|a\s+minimum\s+of"
    r"|minimum(?:\s+of)?|min\.?"
)
_MORE = r"more\s+than|over|above|greater\s+than|exceeding|upwards\s+of|in\s+excess\s+of"
_AT_MOST = (
    r"at\s+most|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of|maximum(?:\s+of)?|max\.?"
    r"|up\s+to|not\s+(?:to\s+)?exceed(?:ing)?|within|no\s+longer\s+than"
)
_FEWER = r"(?:fewer|less)\s+than|under|below|shorter\s+than"
_ABOUT = r"about|around|roughly|approximately|approx\.?|nearly|almost|some|~"
_EXACT = r"exactly|precisely|just"
_BOUND = re.compile(
    rf"(?:\b(?P<least>{_AT_LEAST})|\b(?P<more>{_MORE})|\b(?P<most>{_AT_MOST})|\b(?P<fewer>{_FEWER})"
    rf"|(?P<about>\b(?:{_ABOUT})|~)|\b(?P<exact>{_EXACT}))\s*(?:well\s+)?\Z",
    re.IGNORECASE,
)
_RANGE = re.compile(rf"\bbetween\s+({_NUM})\s+and\s+({_NUM})\s+([a-z][a-z-]*)", re.IGNORECASE)
_COUNT = re.compile(rf"(?<![\w.,/-])({_NUM})(?![\w.,/])[\s-]+", re.IGNORECASE)
# the words a number may count: up to three, up to a word that starts another phrase
_NOUNS = re.compile(r"(?:(?!(?:of|in|and|or|to|the|that|which|with|per|each|for|on|at|about|is|are"
                    r"|was|were|but|not|than|from|by|as|long|total|overall|altogether|exactly)\b)"
                    r"([a-z]+)(?:\s+|(?=\W)|\Z)){1,3}",
                    re.IGNORECASE)  # fmt: skip
_WORD = re.compile(r"[a-z]+", re.IGNORECASE)
_COUNT_OF = re.compile(  # "word count: 72", "line count is 4", "number of lines: 4"
    rf"\b(?:([a-z]+)\s+count|number\s+of\s+([a-z]+)|total\s+([a-z]+))\s*(?:[:=]|\bis\b|\bof\b"
    rf"|\bwas\b|\u2192|->)?\s*({_NUM})\b(?!\s*[-/.]\d)",
    re.IGNORECASE,
)
# a total is what the text has ("has 4 lines", "Counted 4 lines", "is 72 words long"), or a count
# standing alone ("Four lines.", "72 words in total"); "two lines rhyme" is a part
_TOTAL_VERB = re.compile(
    r"(?:\b(?:has|have|had|having|contains?|contained|counted|counts?|is|are|was|were|uses?|used"
    r"|with|spans?|runs?(?:\s+to)?|comprises?|consists?\s+of|totals?|totall?ing|gives?|gave"
    r"|includes?"
    r"|included|lists?|listed|offers?|provides?|provided|mentions?|mentioned|names?|named|cites?"
    r"|describes?|suggests?|in|to|at|got|get|see|found|find|i\s+count|there\s+are"
    r"|there\s+is|it's|that's))\s*\Z",
    re.IGNORECASE,
)
_TOTAL_TAIL = re.compile(
    r"\s*(?:\Z|[.;:!?,)\u2013\u2014]|-\s|\b(?:in\s+(?:total|all)|total|altogether|overall|long"
    r"|instead|rather|not|vs\.?|versus|but|and\s+not)\b)",
    re.IGNORECASE,
)
_OR_MORE = re.compile(r"\s+or\s+(more|fewer|less|so)\b", re.IGNORECASE)
# no total: a count per part, a part of the whole, a count negated or compared away
_PART_BEFORE = re.compile(
    r"(?:\b(?:first|last|final|opening|closing|other|remaining|initial|next|previous|extra"
    r"|additional|those|these|of|each|every|per|not|no|instead\s+of|rather\s+than|line"
    r"|stanza|verse|sentence|paragraph|only\s+the|the\s+(?:first|last))\s+|[#\d/.,]\s*)\Z",
    re.IGNORECASE,
)
_PART_AFTER = re.compile(
    r"\s*(?:each|apiece|per\b|a\s+(?:line|stanza|sentence|paragraph|verse|section)\b|in\s+(?:each"
    r"|every|the\s+(?:first|last|second|third|final|opening|closing))|of\s+(?:the|its|which)\b)",
    re.IGNORECASE,
)


def _value(number: str) -> int | None:
    words = number.lower().replace("-", " ").split()
    if len(words) == 1 and words[0].isdigit():
        return int(words[0])
    if words == ["hundred"]:
        return 100
    values = [_WORDS.get(w) for w in words]
    return None if None in values else sum(v for v in values if v is not None)


def _interval(bound: re.Match[str] | None, n: int, after: str | None) -> tuple[float, float]:
    """The counts a number with its bound word (before) or `or more` (after) allows."""
    if after and after.lower() != "so":
        return (n, math.inf) if after.lower() == "more" else (0, n)
    if after or (bound and bound["about"]):
        slack = n // 20 + 1  # "about 72": near 72, never 48
        return (n - slack, n + slack)
    if bound is None or bound["exact"]:
        return (n, n)
    if bound["least"]:
        return (n, math.inf)
    if bound["more"]:
        return (n + 1, math.inf)
    return (0, n) if bound["most"] else (0, n - 1)


def _counts(text: str) -> list[tuple[str, tuple[float, float]]]:
    """(counted noun's stem, counts allowed) for each total count in `text`: every word of the
    up to three after the number is a candidate noun ("four short lines")."""
    found = []
    for m in _COUNT.finditer(text):
        before, n = text[max(0, m.start() - 40) : m.start()], _value(m[1])
        nouns = _NOUNS.match(text, m.end())
        if n is None or not nouns or _PART_BEFORE.search(before):
            continue
        bound = _BOUND.search(before.rstrip())
        head = before.rstrip()[: bound.start()] if bound else before
        stated = _TOTAL_VERB.search(head.rstrip())
        for word in _WORD.finditer(text, m.end(), nouns.end()):
            after = _OR_MORE.match(text, word.end())
            end = after.end() if after else word.end()
            if _PART_AFTER.match(text, end) or not (stated or _TOTAL_TAIL.match(text, end)):
                continue
            found.append((stem(word[0]), _interval(bound, n, after and after[1])))
    for m in _COUNT_OF.finditer(text):
        n = _value(m[4])
        if n is not None:
            found.append((stem(m[1] or m[2] or m[3]), (n, n)))
    return found


_PER_PART = re.compile(r"\b(?:per|each|every|a\s+(?:line|sentence|paragraph|stanza|verse))\b", re.I)
_SEQUENCE = re.compile(r"\d\s*-\s*\d+\s*-\s*\d")  # 5-7-5


def _rubric_counts(rubric: str) -> dict[str, tuple[float, float]]:
    """The rubric's one count of each noun; a noun counted twice, or per part, is left out."""
    if _SEQUENCE.search(rubric) or _PER_PART.search(rubric):
        return {}
    by_noun: dict[str, list[tuple[float, float]]] = {}
    for noun, allowed in _counts(_RANGE.sub(" ", rubric)):
        by_noun.setdefault(noun, []).append(allowed)
    for m in _RANGE.finditer(rubric):  # "between 100 and 150 words": the range, not 150
        low, high = _value(m[1]), _value(m[2])
        if low is not None and high is not None:
            by_noun[stem(m[3])] = [(low, high)]
    return {noun: allowed[0] for noun, allowed in by_noun.items() if len(allowed) == 1}


def miscounts(reason: str, rubric: str) -> bool:
    """Whether `reason` counts the rubric's counted noun where the rubric's count cannot hold."""
    wanted = _rubric_counts(rubric)
    if not wanted:
        return False
    for noun, (low, high) in _counts(reason):
        if noun in wanted:
            w_low, w_high = wanted[noun]
            if high < w_low or low > w_high:
                return True
    return False
