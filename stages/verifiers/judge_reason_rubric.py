"""A passing grade's reason that contradicts what its rubric asks for (red team round 21), read
against the rubric rather than for negative words:

- a part the rubric asks for said to be absent: rubric "Includes a title." and reason "There is no
  title.", "Lacks a title", "The title is missing", "without a title";
- another value of what the rubric names: rubric "Is written in French." and reason "Written in
  English throughout."; past tense for present, third person for first, JSON for YAML, a limerick
  for a haiku, Fahrenheit for Celsius, a casual tone for a formal one. Only where the reason
  names no value the rubric names, none negated ("French, not English" and "no English words"
  are the rubric's value), and a language only as the one written in ("in English", "English
  throughout"), not one talked about ("explains the German word");
- a count the rubric's count cannot be (`judge_reason_counts`); "Seasons" and colours are left
  out: an autumn poem's reason may well mention summer's end.

None where the rubric asks for an absence ("Avoids jargon": "no jargon" agrees with it)."""

from __future__ import annotations

import re

from stages.verifiers.judge_reason_counts import miscounts
from stages.verifiers.judge_reasons import asks_for_absence, content_stems, stem

_ABSENT_BEFORE = re.compile(
    r"\b(?:no|lacks?|lacking|lacked|without|missing|omits?|omitted|omitting|absent|sans"
    r"|free\s+of|devoid\s+of|nor|neither)\s+(?:(?:a|an|the|any|its|their|his|her|such|of)\s+){0,2}"
    r"([a-z'-]+)(?:\s+([a-z'-]+))?",
    re.IGNORECASE,
)
_ABSENT_AFTER = re.compile(
    r"\b([a-z'-]+)\s+(?:is|was|are|were)\s+(?:entirely\s+|completely\s+|simply\s+|also\s+)?"
    r"(?:missing|absent|lacking|omitted|left\s+out|nowhere|not\s+(?:included|present|there|given"
    r"|provided|mentioned|stated|shown|found|used))\b",
    re.IGNORECASE,
)
# "no other title", "no doubt the title", "no problem with the title": no absence of the part
_NOT_A_PART = frozenset(
    ("other", "further", "additional", "extra", "second", "more", "separate", "duplicate",
     "wrong", "incorrect", "false", "fake", "invented", "misleading", "unnecessary", "extraneous",
     "irrelevant", "spurious", "doubt", "question", "problem", "problems", "issue", "issues",
     "trouble", "complaint", "complaints", "error", "errors", "mistake", "mistakes", "need",
     "shortage", "lack", "way", "less", "fewer", "longer", "matter", "sign", "signs")
)  # fmt: skip
_PRAISE_BEFORE = re.compile(
    r"\b(?:not|never|hardly|nothing|isn't|wasn't|n't)\s+(?:\w+\s+)?\Z", re.I
)


def _absent_part(reason: str, rubric: str) -> bool:
    wanted = content_stems(rubric)
    for m in _ABSENT_BEFORE.finditer(reason):
        if _PRAISE_BEFORE.search(reason, max(0, m.start() - 60), m.start()):
            continue
        first, second = m[1].lower(), (m[2] or "").lower()
        if first in _NOT_A_PART:
            continue
        if stem(first) in wanted or (second and stem(second) in wanted and first.isalpha()):
            return True
    return any(
        stem(m[1]) in wanted
        and not _PRAISE_BEFORE.search(reason, max(0, m.start() - 60), m.start())
        for m in _ABSENT_AFTER.finditer(reason)
    )


_LANGUAGES = {w: w for w in (
    "english", "french", "german", "spanish", "italian", "portuguese", "dutch", "russian",
    "chinese", "mandarin", "cantonese", "japanese", "korean", "arabic", "hindi", "bengali",
    "turkish", "greek", "hebrew", "swedish", "norwegian", "danish", "finnish", "czech",
    "hungarian", "romanian", "ukrainian", "vietnamese", "thai", "indonesian", "malay", "persian",
    "urdu", "latin", "swahili", "tagalog", "catalan")} | {
    "francais": "french", "deutsch": "german", "espanol": "spanish", "castilian": "spanish",
    "italiano": "italian", "portugues": "portuguese", "nederlands": "dutch", "anglais": "english",
    "englisch": "english", "ingles": "english", "inglese": "english", "franzosisch": "french",
    "frances": "french", "francese": "french", "farsi": "persian"}  # fmt: skip
# a language as the one the text is written in ("in French", "English throughout", "English."),
# not one it talks about ("explains the German word")
_IN_LANGUAGE = (
    r"\b(?:in|into)\s+(?:(?:fluent|plain|simple|standard|proper|good|correct|natural|idiomatic"
    r"|modern|the|british|american)\s+)?\Z",
    r"\s*(?:throughout|only|language|text|prose|\Z|[.;,!]\s*\Z)",
)
_SPELLING = (r"(?!)", r"\s+(?:spelling|english|conventions?|style|usage)\b")
# values of one kind (word -> value) and, for some, the context a value needs (before, after);
# a rubric naming some and a reason naming only others contradict
_KINDS: tuple[tuple[dict[str, str], tuple[str, str] | None], ...] = (
    (_LANGUAGES, _IN_LANGUAGE),
    ({"past tense": "past", "present tense": "present", "future tense": "future"}, None),
    ({"first person": "first", "first-person": "first", "second person": "second",
      "second-person": "second", "third person": "third", "third-person": "third"}, None),
    ({"active voice": "active", "passive voice": "passive"}, None),
    ({w: w for w in ["json", "yaml", "xml", "csv", "markdown", "html", "latex", "toml"]}, None),
    ({w: w for w in ["haiku", "limerick", "sonnet", "villanelle", "tanka", "acrostic"]}, None),
    ({"british": "uk", "uk": "uk", "american": "us", "us": "us"}, _SPELLING),
    ({"metric": "metric", "imperial": "imperial"}, None),
    ({"celsius": "celsius", "fahrenheit": "fahrenheit", "kelvin": "kelvin"}, None),
    ({"formal": "formal", "informal": "informal", "casual": "informal",
      "colloquial": "informal"}, None),
    ({"uppercase": "upper", "upper case": "upper", "all caps": "upper", "all-caps": "upper",
      "lowercase": "lower", "lower case": "lower"}, None),
)  # fmt: skip
_NEGATED_BEFORE = re.compile(
    r"(?:\b(?:not|no|never|nor|without|avoids?|avoiding|instead\s+of|rather\s+than|free\s+of"
    r"|from|non|than|isn't|wasn't|aren't|n't)\s+(?:(?:a|an|the|any|in|into|of)\s+){0,2}|non-)\Z",
    re.IGNORECASE,
)
_CASE_SENSITIVE = frozenset(("us", "uk"))  # "us" the pronoun


def _named(text: str, kind: dict[str, str], context: tuple[str, str] | None) -> set[str]:
    """The values of `kind` that `text` names (in `context` where given), none negated."""
    named = set()
    for word, value in kind.items():
        flags = 0 if word in _CASE_SENSITIVE else re.IGNORECASE
        pattern = word.upper() if word in _CASE_SENSITIVE else re.escape(word)
        for m in re.finditer(rf"(?<![\w-]){pattern}(?![\w-])", text, flags):
            if _NEGATED_BEFORE.search(text, max(0, m.start() - 60), m.start()):
                continue
            if context and not (
                re.search(context[0], text[max(0, m.start() - 60) : m.start()], re.IGNORECASE)
                or re.match(context[1], text[m.end() :], re.IGNORECASE)
            ):
                continue
            named.add(value)
    return named


def _other_value(reason: str, rubric: str) -> bool:
    for kind, context in _KINDS:
        asked = _named(rubric, kind, context)
        if not asked:
            continue
        said = _named(reason, kind, context)
        if said and not said & asked:
            return True
    return False


def reason_against_rubric(reason: str, rubric: str) -> bool:
    """Whether a passing grade's `reason` (its skeleton) says the response lacks what `rubric`
    asks for, has another value of it, or another count of it."""
    if not rubric:
        return False
    if miscounts(reason, rubric) or _other_value(reason, rubric):
        return True
    return not asks_for_absence(rubric) and _absent_part(reason, rubric)
