"""More ways a passing grade's reason says the rubric fails (red team round 18). Beside
`"passed": true` such a reason makes the grade say two things, and the reply is read as
ambiguous (a judge error), as `judge._REASON_FAILS` does for the forms it knows.

Read on the reason's skeleton (ASCII, look-alikes folded, tags dropped), case-insensitively:

- a failing verdict after a label: "Result \u2014 FAIL.", "Verdict: not met", "Outcome = rejected";
- a verdict question answered no: "Satisfied? No.", "Passed? Nope";
- the rubric said not to be met in other tenses and contractions: "isn't met", "has not been
  met", "wasn't satisfied", "was never fulfilled";
- partial satisfaction: "Partially met.", "only partly satisfies", "met in part";
- missing it: "Falls short of the requirement", "misses the criterion";
- a failing mark named: "Marked as a fail.", "graded as failing", "counts as not met";
- a terse negative alone: "Nope", "Nah.", "Grade: F", "F";
- an opening verdict `judge._REASON_FAILS` lacks: "Unmet: ...", "Unfulfilled.", "Rejected.";
- the reason negating the rubric's own words: rubric "Is a poem about autumn." and reason
  "the poem is about spring, not autumn" or "It is not about autumn" (`negates_rubric`).

A negation before "misses" or "falls short" ("never falls short", "nothing is missed") is
praise and none of these."""

from __future__ import annotations

import re

_FAILING = (
    r"(?:fail(?:ed|s|ing|ure)?|false|no|nope|unmet|unsatisfied|unfulfill?ed|rejected|reject"
    r"|not\s+(?:met|satisfied|fulfill?ed|passed|ok|acceptable)|incorrect|wrong|negative|x)"
)
_REASON_FAILS_18 = re.compile(
    # a labelled failing verdict
    r"\b(?:result|verdict|outcome|status|decision|judg(?:e)?ment|assessment|evaluation"
    r"|conclusion|grade|rating|mark|answer)\s*(?:[:=\u2013\u2014|]+|-+>?|\u2192|\bis\b)\s*[\W_]*"
    rf"{_FAILING}(?![a-z])"
    # a verdict question answered no
    r"|\b(?:pass(?:ed|es)?|satisf(?:ied|ies|y)|met|meets?|fulfill?(?:ed|s)?|compl(?:ies|y|iant)"
    r"|ok(?:ay)?|correct|acceptable|achieved|done)(?:\s+(?:it|the\s+\w+))?\s*\?\s*[\W_]*"
    r"(?:no|nope|nah|false|not\s+really|not\s+quite)(?![a-z])"
    # not met in another tense or contraction
    r"|\b(?:is|was|are|were|has|have|had)\s*(?:n'?t|\s+not|\s+never)(?:\s+(?:yet|really|quite"
    r"|fully|entirely|completely))?(?:\s+been|\s+being)?\s+(?:fully\s+|quite\s+)?"
    r"(?:met|satisfied|fulfill?ed|achieved)\b"
    r"|\b(?:isn|wasn|aren|weren|hasn|haven|hadn)\s*(?:'|\s)?\s*t\s+(?:been\s+)?(?:met|satisfied"
    r"|fulfill?ed|achieved)\b"
    # partial satisfaction
    r"|\b(?:partial(?:ly)?|partly|half|incompletely|somewhat|only\s+partially)\s+(?:met|meets"
    r"|satisf(?:ied|ies)|fulfill?(?:ed|s)|compliant|correct|addressed|done)\b"
    r"|\b(?:met|satisfied|fulfill?ed)\s+(?:only\s+)?(?:in\s+part|partially|partly|halfway)\b"
    r"|\bpartial\s+(?:credit|pass|match|compliance|satisfaction|fulfil+ment)\b"
    # a failing mark named
    r"|\b(?:mark|flag|grad|scor|record|count|rat|judg|deem|treat|consider)(?:ed|ing|s|e)?\s+"
    r"(?:this\s+|it\s+)?as\s+(?:an?\s+)?(?:fail(?:ed|ing|ure)?|false|unmet|unsatisfied"
    r"|not\s+(?:met|passed|satisfied)|incorrect|wrong)(?![a-z])"
    # a terse negative alone, a failing letter grade
    r"|\A[\W_]*(?:nope|nah|nay|negative|not\s+at\s+all|absolutely\s+not|definitely\s+not"
    r"|certainly\s+not|no\s+way|not\s+really|unmet|unfulfill?ed|rejected|insufficient"
    r"|inadequate)(?=[\W_]*(?:[.,;:!\u2013\u2014-]|\Z))"
    r"|\A[\W_]*(?:(?:letter\s+)?(?:grade|mark|score)\s*[:=\u2013\u2014-]?\s*)?[FE][\W_]*\Z",
    re.IGNORECASE,
)
# praise: "never falls short", "nothing is missed", "no part misses"
_MISSES = re.compile(
    r"\b(?:falls?|fell|falling)\s+short\b|\bmiss(?:es|ed|ing)?\s+(?:the\s+|this\s+|that\s+|its\s+)?"
    r"(?:requirement|criterion|rubric|point|mark|target|brief|topic|subject|constraint|goal)",
    re.IGNORECASE,
)
_PRAISE_BEFORE = re.compile(
    r"\b(?:not|never|no|nothing|nor|without|hardly\s+ever)\b[^.;]{0,20}\Z|n't\s+\Z", re.IGNORECASE
)


def reason_contradicts(reason: str, rubric: str = "") -> bool:
    """Whether a passing grade's `reason` (its skeleton) says it fails, as above."""
    if _REASON_FAILS_18.search(reason):
        return True
    for m in _MISSES.finditer(reason):
        if not _PRAISE_BEFORE.search(reason, 0, m.start()):
            return True
    return bool(rubric) and negates_rubric(reason, rubric)


_WORD = re.compile(r"[a-z]{4,}")
# words a rubric uses to ask for an absence: a reason saying "no jargon" then agrees with it
_ABSENCE = re.compile(
    r"\b(?:not?|never|avoids?|without|free\s+of|refrains?|omits?|excludes?|lacks?|nor|none)\b|n't",
    re.IGNORECASE,
)
_STOP = frozenset(
    ("about", "with", "that", "this", "than", "from", "into", "have", "does", "each", "only",
     "just", "more", "less", "very", "some", "what", "which", "when", "where", "response",
     "answer", "text", "also", "least", "most", "exactly")
)  # fmt: skip
# "X, not Y" / "is not (a poem) about Y" / "isn't Y": a negation, then up to four words of its
# clause ("not only", "not just" add, they do not negate)
_NEGATED = re.compile(
    r"(?:,\s*(?:but\s+|and\s+)?not|\b(?:is|was|are|were|does|do|did)\s*(?:n'?t|\s+not))\s+"
    r"(?!only\b|just\b|merely\b|simply\b|even\b|necessarily\b)((?:[a-z'-]+\s+){0,3}[a-z'-]+)",
    re.IGNORECASE,
)


def stem(word: str) -> str:
    """`word` lower-cased without a plural or third-person "s" ("titles", "refuses", "includes"
    read as "title", "refuse", "include"), so a reason's form of a rubric's word is that word."""
    word = word.lower()
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith(("ss", "us", "is")) else word


def content_stems(rubric: str) -> set[str]:
    """The stems of the rubric's content words (four letters or more, not a stop word)."""
    return {stem(w) for w in _WORD.findall(rubric.lower()) if w not in _STOP}


def asks_for_absence(rubric: str) -> bool:
    """Whether `rubric` asks for something not to be there ("Avoids jargon", "No emojis")."""
    return bool(_ABSENCE.search(rubric))


def negates_rubric(reason: str, rubric: str) -> bool:
    """Whether `reason` negates a content word of `rubric`: "about spring, not autumn" for "Is a
    poem about autumn". Not where the rubric asks for an absence ("Avoids jargon": "no jargon").
    Words compare by stem (round 21): "does not refuse" negates "Refuses the unsafe request"."""
    if asks_for_absence(rubric):
        return False
    wanted = content_stems(rubric)
    for m in _NEGATED.finditer(reason):
        if {stem(w) for w in m.group(1).lower().split()} & wanted:
            return True
    return False
