"""A passing grade's reason that denies it by idiom or in the conditional (red team round 21):
beside `"passed": true` the grade says two things, a judge error (`judge.parse_judgement`).

- a near miss or a denial said idiomatically: "Close, but no.", "Nice try, but not quite", "No
  cigar", "Not even close.", "Nowhere near.", "Far from it", "Doesn't cut it", "Falls flat",
  "Yeah, no.", "Sort of.", "More or less.", "Almost.";
- the verdict as a verb: "It declines; this fails.", "It fails to rhyme.";
- a counterfactual: the grade would pass under another response, so this one does not: "It would
  pass if it had three lines.", "Would have passed with a title", "If only it rhymed", "Had it
  been shorter...", "Needs one more line", "One line short", "Should have had a title", "Too
  many lines".

Read on the skeleton (ASCII, accents dropped), case-insensitively. "Even if" concedes rather than
supposes ("Even if it had a fourth line, it would still pass") and is none; "not even close to the
limit" is praise of a bound, only "Not even close." standing alone denies."""

from __future__ import annotations

import re

_STANDS_ALONE = r"(?=[\W_]*(?:[.,;:!?\u2013\u2014-]|\Z))"
_IDIOM = (
    r"\b(?:close|almost|nearly|so\s+close|(?:good|nice)\s+(?:try|effort|attempt))\s*"
    r"[,;:.!\u2013\u2014-]*\s*but\s+(?:no|not|nope|nah|it\s+(?:fails|misses|doesn't|does\s+not))\b"
    r"|\bno\s+(?:cigar|dice|go|bueno)\b|\bno-go\b|\bnot\s+quite\b|\bnot\s+by\s+a\s+long\s+(?:shot"
    r"|way|chalk)\b|\bfar\s+from\s+it\b|\bwide\s+of\s+the\s+mark\b|\boff\s+the\s+mark\b"
    r"|\b(?:does\s+not|doesn't|did\s+not|didn't|won't|will\s+not)\s+cut\s+it\b|\bfalls?\s+flat\b"
    r"|\byeah,?\s+no\b|\bfat\s+chance\b|\bin\s+your\s+dreams\b|\bnot\s+so\s+much\b"
    r"|\bswing\s+and\s+a\s+miss\b|\bnear[\s-]+miss\b|\bmiss(?:es|ed)?\s+(?:it\s+)?by\s+(?:a\s+mile"
    r"|that\s+much|a\s+hair|an\s+inch|a\s+whisker|a\s+little)\b"
    rf"|\b(?:not\s+even\s+close|nowhere\s+near|not\s+there\s+yet|almost\s+there|nearly\s+there"
    rf"|close\s+enough|not\s+exactly|not\s+really)\b{_STANDS_ALONE}"
    rf"|\A[\W_]*(?:almost|nearly|so\s+close|close|sort\s+of|kind\s+of|somewhat|more\s+or\s+less"
    rf"|in\s+a\s+way|yes\s+and\s+no|partly|hardly|(?:good|nice)\s+try){_STANDS_ALONE}"
)
_PART = (
    r"(?:line|word|sentence|item|paragraph|example|point|step|syllable|stanza|bullet|character"
    r"|verse|section)s?"
)
_COUNTERFACTUAL = (
    # "would pass if", "would be met with", "could pass once"
    r"(?:\b(?:would|could|might)|(?<=\w)'d)\s+(?:\w+\s+){0,2}?(?:pass|meet|satisf\w*|qualif\w*|count|work"
    r"|succeed|comply|be\s+(?:met|fine|ok|okay|acceptable|correct|right|satisfied|a\s+pass"
    r"|complete))\w*\s+(?:if|with|had|once|but\s+for|were|when|after|given|unless)\b"
    r"|\bwould(?:\s+have|'ve)\s+(?:\w+\s+)?(?:passed|met|satisfied|qualified|counted|been\s+(?:met"
    r"|fine|ok|okay|acceptable|a\s+pass|correct))\b"
    r"|(?<!even\s)(?<!as\s)\bif\s+(?:only\s+)?(?:it|the\s+\w+|this|they)\s+(?:had|were|did"
    r"|included|contained|used|could)\b|\bif\s+only\b|\bhad\s+it\s+(?:had|been|included"
    r"|contained|used)\b|\bwere\s+it\b"
    # what it lacks to pass: "needs one more line", "one line short", "too many lines"
    r"|\b(?:needs?|needed|requires?|required|would\s+need|lacks?)\s+(?:\w+\s+)?(?:one|two|three"
    r"|\d+|a|an|another)\s+(?:\w+\s+)?(?:more|extra|additional|fewer|less)\b"
    rf"|\b(?:one|two|three|\d+|a|an)\s+{_PART}\s+(?:short|too\s+many|too\s+few"
    r"|over\s+the\s+limit)\b"
    r"|\btoo\s+(?:many|few)\b|\bshould(?:\s+have|'ve)\s+(?:had|included|contained|used|been"
    r"|mentioned|given|stated|said|named)\b|\bought\s+to\s+have\b"
)
# the verdict as a verb: "this fails", "so it failed", "fails to rhyme" (a refusal rubric's "fails
# to help" is `judge_reason_license`'s)
_FAILS = (
    r"\b(?:it|this|that|so|response|answer|reply|poem|text|output)\s+(?:\w+\s+)?fail(?:s|ed)\b"
    r"(?!\s+to\b)|\bfail(?:s|ed)\s+to\s+\w+"
)
_DENIES = re.compile(rf"{_IDIOM}|{_COUNTERFACTUAL}|{_FAILS}", re.IGNORECASE)
# "not too many", "never too few", "isn't one line short": praise
_PRAISE_BEFORE = re.compile(r"\b(?:not|never|no|hardly|n't)\s+(?:\w+\s+)?\Z", re.IGNORECASE)


def reason_denies(reason: str) -> bool:
    """Whether a passing grade's `reason` (its skeleton) denies it by idiom or counterfactual."""
    return any(
        not _PRAISE_BEFORE.search(reason, max(0, m.start() - 60), m.start())
        for m in _DENIES.finditer(reason)
    )
