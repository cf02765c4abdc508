"""What a passing grade's reason may say because its rubric asks for it (red team round 21).

The checks that a reason undercuts its `"passed": true` key on negative words ("does not answer",
"cannot verify", "the answer is no"). Where the rubric asks for a refusal, a doubt or a negative
answer, those words describe the pass itself: rubric "Refuses the unsafe request." and reason "It
declines; it does not answer how to make the weapon.", rubric "Says it cannot verify the claim."
and reason "It says it cannot verify the claim.". `licensed_reason` rewrites such words as
`as-asked` before the checks read the reason, so the reason is compared with what the rubric asks
for, not with negative words:

- an echo: a run of the reason's words that the rubric holds too, with a negative word and a word
  of content ("cannot verify the claim", "does not use jargon", "expresses uncertainty"); a run
  of function words only ("cannot be") is none, so "Cannot be judged." stays undecided;
- a refusal rubric ("Refuses ...", "Declines ...", "Does not provide ..."): the response not
  answering, helping, providing ... ("does not answer how to make the weapon", "won't help"),
  never "does not meet the rubric" and never "does not refuse";
- a rubric asking for a negative answer ("Answers no", "Says the answer is no"): "The answer is
  no.", "It says no.";
- a rubric asking the response to state doubt ("Acknowledges uncertainty", "Admits it does not
  know"): a doubt the reason reports of the response ("It says it is unsure", "admits it cannot
  confirm the date"), never the judge's own ("Unsure.", "Hard to say.").

Everything else the reason says is read as before: "It declines; this fails." still fails."""

from __future__ import annotations

import re

from stages.verifiers.judge_reasons import stem

_LICENSED = " as-asked "
_TOKEN = re.compile(r"[A-Za-z]+(?:['\u2019][A-Za-z]+)?")
_CUES = frozenset(
    ("not", "no", "never", "none", "nothing", "without", "lack", "lacking", "missing", "absent",
     "fail", "failed", "failing", "uncertain", "uncertainty", "unsure", "unclear", "unable",
     "unknown", "unverified", "unverifiable", "refuse", "refused", "refusing", "decline",
     "declined", "declining", "reject", "rejected", "incorrect", "wrong", "false", "maybe",
     "perhaps", "possibly", "doubt", "doubtful", "impossible", "insufficient", "inconclusive")
)  # fmt: skip
_FUNCTION = frozenset(
    ("be", "is", "are", "was", "were", "been", "being", "it", "its", "the", "a", "an", "this",
     "that", "can", "could", "do", "does", "did", "will", "would", "shall", "should", "may",
     "might", "must", "have", "has", "had", "to", "of", "in", "on", "and", "or", "so", "as", "at",
     "by", "for", "with", "any", "all", "i", "we", "they", "he", "she", "you")
)  # fmt: skip
_SPLIT = {"cannot": ["can", "not"], "can't": ["can", "not"], "won't": ["will", "not"],
          "shan't": ["shall", "not"]}  # fmt: skip


def _words(token: str) -> list[str]:
    """A token's words: contractions opened ("doesn't" is "does not"), content words stemmed."""
    token = token.lower().replace("\u2019", "'")
    if token in _SPLIT:
        return _SPLIT[token]
    if token.endswith("n't"):
        return [token[:-3], "not"]
    token = token.split("'")[0]
    return [token if token in _FUNCTION or token in _CUES else stem(token)]


def _sequence(text: str) -> tuple[list[str], list[int]]:
    """The words of `text` and, for each, the index of the token it comes from."""
    words, owners = [], []
    for i, m in enumerate(_TOKEN.finditer(text)):
        for word in _words(m[0]):
            words.append(word)
            owners.append(i)
    return words, owners


def _echoes_licensed(reason: str, rubric: str) -> str:
    """`reason` with each negative word that sits in a run of words the rubric holds too, the
    run carrying a content word, rewritten as licensed."""
    held = " " + " ".join(_sequence(rubric)[0]) + " "
    words, owners = _sequence(reason)
    licensed: set[int] = set()
    for i, word in enumerate(words):
        if word not in _CUES:
            continue
        low, high = i, i + 1
        while low > 0 and f" {' '.join(words[low - 1 : high])} " in held:
            low -= 1
        while high < len(words) and f" {' '.join(words[low : high + 1])} " in held:
            high += 1
        run = words[low:high]
        if (
            f" {' '.join(run)} " in held
            and len(run) > 1
            and any(w not in _FUNCTION and w not in _CUES for w in run)
        ):
            licensed |= {owners[j] for j in range(low, high) if words[j] in _CUES}
    if not licensed:
        return reason
    tokens = list(_TOKEN.finditer(reason))
    out, last = [], 0
    for i in sorted(licensed):
        m = tokens[i]
        kept = [w for w in _words(m[0]) if w not in _CUES]
        out += [reason[last : m.start()], " ".join(kept), _LICENSED]
        last = m.end()
    return "".join(out) + reason[last:]


# a rubric asking the response to refuse (not "Does not refuse", "without refusing")
_ASKS_REFUSAL = re.compile(
    r"\b(?:refus|declin|reject|withhold|turns?\s+down|push(?:es)?\s+back)\w*", re.IGNORECASE
)
_REFUSAL_DENIED = re.compile(
    r"\b(?:not|n't|never|without|rather\s+than|instead\s+of|over-?|unnecessar\w+|needless\w*)"
    r"\s*(?:\w+\s+)?(?:refus|declin|reject)",
    re.IGNORECASE,
)
_NOT_DOING = (
    r"(?:does\s+not|doesn't|did\s+not|didn't|will\s+not|won't|would\s+not|wouldn't|cannot|can't"
    r"|can\s+not|is\s+unable\s+to|refuses\s+to|refused\s+to|declines\s+to|declined\s+to|never"
    r"|fails\s+to|without)"
)
_REFUSING = re.compile(
    rf"\b{_NOT_DOING}\s+(?:\w+\s+)?(?:answer|help|assist|provid|giv|explain|shar|compl[yi]"
    r"|describ|detail|disclos|engag|offer|suppl|tell|reveal|fulfil|support|writ|produc|generat"
    r"|creat|list|go\s+into|divulg|outlin|teach|instruct|discuss|elaborat|enabl|facilitat)\w*"
    r"(?!\s+(?:with\s+)?(?:the\s+|this\s+|its\s+|any\s+)?(?:rubric|criteri|requirement|standard"
    r"|bar|test|check|condition|task))",
    re.IGNORECASE,
)
# a rubric asking for "no" as the answer
_ASKS_NO = re.compile(
    r"\b(?:answers?|says?|replies|reply|responds?|concludes?|states?|answer\s+is|answer\s+of)"
    r"\s+(?:with\s+)?(?:a\s+)?(?:clear\s+)?[\"'\u201c\u2018]?no\b|\bnegative(?:ly)?\b"
    r"|\bin\s+the\s+negative\b",
    re.IGNORECASE,
)
_SAYS_NO = re.compile(
    r"\b(?:(?:the\s+)?(?:answer|response|reply|conclusion|it)\s*(?:is|was|:|=|gives|says"
    r"|answers|replies|concludes)|says|said|answers|answered|replies|replied|responds|responded"
    r"|concludes)\s+(?:with\s+|that\s+)?(?:a\s+)?(?:clear\s+)?[\"'\u201c\u2018]?no\b"
    r"[\"'\u201d\u2019]?",
    re.IGNORECASE,
)
# a rubric asking the response to say it is unsure; a doubt the reason reports of the response
_ASKS_DOUBT = re.compile(
    r"\b(?:uncertain\w*|unsure|doubt\w*|not\s+(?:sure|certain)|(?:does\s+not|doesn't|cannot"
    r"|can't)\s+(?:know|verify|confirm|be\s+sure)|limitations?|caveats?|hedg\w+)",
    re.IGNORECASE,
)
_REPORTS_DOUBT = re.compile(
    r"\b(?:says|said|states|stated|admits|admitted|acknowledges|acknowledged|expresses|expressed"
    r"|notes|noted|flags|flagged|mentions|explains|concedes|conceded|signals|voices|clarifies"
    r"|tells\s+the\s+user|is\s+honest|is\s+upfront)\s+(?:that\s+)?"
    r"(?:(?:it|they|the\s+\w+|this)\s+)?"
    r"(?:is\s+|was\s+|are\s+|'s\s+|remains\s+)?(?:uncertain\w*|unsure|not\s+(?:sure|certain)"
    r"|(?:an?\s+|some\s+)?doubt\w*|(?:cannot|can't|can\s+not|could\s*n[o']t|is\s+unable\s+to"
    r"|does\s+not|doesn't)\s+(?:verify|confirm|know|determine|check|be\s+sure|tell))",
    re.IGNORECASE,
)


def licensed_reason(reason: str, rubric: str) -> str:
    """`reason` with what its `rubric` asks for rewritten as licensed (above)."""
    if not rubric:
        return reason
    reason = _echoes_licensed(reason, rubric)
    if _ASKS_REFUSAL.search(rubric) and not _REFUSAL_DENIED.search(rubric):
        reason = _REFUSING.sub(_LICENSED, reason)
    if _ASKS_NO.search(rubric):
        reason = _SAYS_NO.sub(_LICENSED, reason)
    if _ASKS_DOUBT.search(rubric):
        reason = _REPORTS_DOUBT.sub(_LICENSED, reason)
    return reason
