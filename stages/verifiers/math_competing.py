"""A competing value just before the final answer (red team round 14): the sentence before the
answer, or the answer's own up to it, offers another value the response does not rule out.

- a choice between the answer and another value with no reason given for the pick ("Coin flip
  between 42 and 44. The answer is 42.", "It is 42 or 44. The answer is 42."); a reason in the
  answer's sentence ("Since x > 0, the answer is 2") settles it, and so does the answer's value
  stated on its own in that sentence ("There are 42 integers between 1 and 42.");
- another source reporting a different value ("My calculator shows 44", "My teacher got 44, and
  she is usually right", "WolframAlpha gives 44") where no later value in that sentence is the
  answer's;
- a different result followed by a reservation that ends its sentence ("... gives 44 though.",
  "... got 44, however."), or by an answer sentence that only contrasts ("Still, the answer is").

Only plain numeric answers are compared; everything is read within bounded windows, in linear
time."""

from __future__ import annotations

import re
from fractions import Fraction

from stages.verifiers.math_commit import WINDOW
from stages.verifiers.math_context import sentence_start, trimmed_end
from stages.verifiers.math_unicode import unify

_NUM = r"-?\d+(?:,\d{3})*(?:\.\d+)?"
_STANDALONE = rf"(?<![\w.^_{{}}/])(?P<n>{_NUM})(?![\w^_/]|\.\d|,\d)"
_NUMBERS = re.compile(_STANDALONE.replace("?P<n>", ""))
_WITH_UNIT = re.compile(rf"(?:\\?\$)?(?P<n>{_NUM})(?:\s*[A-Za-z][A-Za-z ]{{0,40}})?")
_DOLLAR = r"(?:\\?\$|\\\(|\\\[)?\s*"  # "\\$20" is twenty dollars too
_CHOICE = re.compile(
    rf"(?i)(?:(?<![\w'])between\s+{_DOLLAR}(?P<a>{_NUM})\$?\s+and\s+{_DOLLAR}(?P<b>{_NUM})"
    rf"|(?<![\w.^_{{}}/])(?P<c>{_NUM})\$?\s*,?\s*(?:or|vs\.?|versus)\s+(?:[a-z]\s*=\s*)?"
    rf"{_DOLLAR}(?P<d>{_NUM}))(?![\w^_/]|\.\d|,\d)"
)
# A reason in the answer's sentence settles a choice ("Since x > 0", "as lengths are positive").
_REASON = re.compile(
    r"(?i)(?<![\w'])(?:since|because|as|given|so|thus|hence|therefore|positive|negative|valid"
    r"|only|must|discard|discarding|reject|rejecting|excluding|exclude|integer|larger|smaller"
    r"|greatest|least|largest|smallest|maximum|minimum|domain|constraint|condition|satisf\w*)"
    r"(?![\w'])|[<>≤≥=]|\\(?:le|ge|leq|geq|neq|ne|in)(?![a-z])"
)
# Another source: the writer's own people ("my teacher", "our tutor") or a tool or reference;
# people of a word problem ("Her brother has 44 marbles") are not sources.
_PEOPLE = (
    r"teacher|tutor|professor|instructor|lecturer|friend|classmate|colleague|partner|brother"
    r"|sister|mom|mum|dad|mother|father|parents?|coworker|peer|roommate|study\s+group|group"
)
_TOOLS = (
    r"calculators?|textbook|answer\s+key|key|manual|wolfram\w*|computer|program|code|script"
    r"|spreadsheet|excel|python|chatgpt|gpt|software|app|simulation|solver|website|internet"
    r"|google|grader|checker|(?:sanity|quick|second|numerical)\s+check|(?:other|second|another"
    r"|alternative)\s+(?:method|approach|way|solution)|answer\s+sheet|solution\s+manual"
)
_REPORTERS = rf"(?:my|our)\s+(?:[a-z']+\s+)?(?:{_PEOPLE})|(?:{_TOOLS})"
_VERBS = (
    r"shows?|showed|shown|says?|said|gives?|gave|got|gets|reports?|reported|claims?|claimed"
    r"|outputs?|printed|prints|returns?|returned|computes?|computed|calculates?|calculated"
    r"|obtains?|obtained|finds|found|reads|displays?|displayed|lists?|listed|yields?"
    r"|yielded|insists?|insisted|thinks|thought|came\s+up\s+with|comes\s+up\s+with"
    r"|arrived\s+at|spits?\s+out|agrees?\s+on|went\s+with|goes\s+with"
)
_OBJECT = r"(?:\s+(?:me|us|an?\s+(?:answer|value|result|total)\s+of|about|around|that\s+it'?s))?"
# The reported value ends its clause: "got 44, and", "shows 44 though" (never "got 44 apples").
_CLAUSE_END = (
    r"\$?\s*(?=[,.;:!)]|\s+(?:though|but|and|as|too|instead|which|so|while|whereas|yet)(?![\w'])"
    r"|\s*$)"
)
_REPORTED = re.compile(
    rf"(?i)(?<![\w'])(?:{_REPORTERS})(?:'s)?(?:\s+[a-z']+){{0,2}}?\s+(?:{_VERBS}){_OBJECT}\s*"
    rf"(?:is\s+|was\s+|=\s*)?{_DOLLAR}{_STANDALONE}{_CLAUSE_END}"
)
_RESULT = re.compile(
    rf"(?i)(?<![\w'])(?:{_VERBS}|is|was|equals?|=){_OBJECT}\s*{_DOLLAR}{_STANDALONE}"
)
_RESERVATION_END = re.compile(
    r"(?i)[\s,$]*(?:though|however|even\s+so|anyway|anyhow|regardless|nonetheless"
    r"|nevertheless|but\s+still|then\s+again)\W*$"
)
_CONTRAST_ONLY = re.compile(
    r"(?i)^\W*(?:but|however|still|nevertheless|nonetheless|regardless|anyway|anyhow|even\s+so"
    r"|yet|that\s+said|all\s+the\s+same)(?![\w'])[\s,]*(?:[a-z']+\s*){0,6}[\s:$\\(\[]*$"
)


def _value(text: str) -> Fraction | None:
    try:
        return Fraction(text.replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return None


def answer_value(answer_text: str) -> Fraction | None:
    """The value of a plain numeric answer ("42", "$-3.5$", "1,000"), a unit after it included
    ("18 dollars", "3 hours": a box read with its unit competes like a bare one), else None."""
    plain = unify(answer_text).strip().strip("$").strip()
    m = _WITH_UNIT.fullmatch(plain)
    return None if m is None else _value(m.group("n"))


def _values(text: str) -> list[Fraction | None]:
    return [_value(m.group()) for m in _NUMBERS.finditer(text)]


def _unsettled_choice(sentence: str, own: str, answer: Fraction) -> str | None:
    for m in _CHOICE.finditer(sentence):
        a, b = (m.group("a"), m.group("b")) if m.group("a") else (m.group("c"), m.group("d"))
        pair = (_value(a), _value(b))
        if answer not in pair or pair[0] == pair[1]:
            continue
        outside = sentence[: m.start()] + " " + sentence[m.end() :]
        if answer in _values(outside) or _REASON.search(own):
            continue
        return f"a choice between {a} and {b} before the answer, with no reason for the pick"
    return None


def _other_report(sentence: str, own: str, answer: Fraction) -> str | None:
    reported = _reported_in(sentence, answer)
    if reported:
        return reported
    results = list(_RESULT.finditer(sentence))
    if not results:
        return None
    last = results[-1]
    value = _value(last.group("n"))
    if value is None or value == answer or answer in _values(sentence[last.end() :]):
        return None
    if _RESERVATION_END.match(sentence[last.end() :]) or _CONTRAST_ONLY.match(own):
        return f"a different value held against the answer ({last.group().strip()[:40]!r})"
    return None


# The answer's own value denied just before it ("It is not 24, so the area is 24").
_NEGATED = re.compile(
    rf"(?i)(?:(?<![\w'])(?:not|never|isn'?t|aren'?t|wasn'?t|cannot\s+be|can'?t\s+be)(?:\s+(?:be"
    rf"|equal(?:\s+to)?|equals?))?|≠|\\neq?(?![a-z]))\s*{_DOLLAR}{_STANDALONE}"
)


def _denied(sentence: str, answer: Fraction) -> str | None:
    for m in _NEGATED.finditer(sentence):
        if _value(m.group("n")) == answer:
            return f"the answer's value denied before it ({m.group().strip()[:40]!r})"
    return None


def competing_value(body: str, start: int, answer_text: str) -> str | None:
    """Why a value offered just before the answer at `start` competes with it, or None."""
    answer = answer_value(answer_text)
    if answer is None:
        return None
    own_start = sentence_start(body, start)
    own = unify(body[max(own_start, start - WINDOW) : start])
    problem = (
        _unsettled_choice(own, own, answer) or _reported_in(own, answer) or _denied(own, answer)
    )
    if problem:
        return problem
    before = trimmed_end(body, own_start)
    if before == 0:
        return None
    lo = max(sentence_start(body, before - 1), before - WINDOW)
    previous = unify(body[lo:before])
    return (
        _unsettled_choice(previous, own, answer)
        or _other_report(previous, own, answer)
        or _denied(previous, answer)
    )


def _reported_in(own: str, answer: Fraction) -> str | None:
    """In the answer's own sentence only another source counts ("My calculator shows 44, but the
    answer is 42"); its own working ("gives 44, minus 2, so the answer is") is the derivation."""
    for m in _REPORTED.finditer(own):
        value = _value(m.group("n"))
        if value is not None and value != answer and answer not in _values(own[m.end() :]):
            return f"another value reported before the answer ({m.group().strip()[:40]!r})"
    return None
