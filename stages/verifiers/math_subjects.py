"""The subject of a committing sentence must be the quantity asked, not one derived from it (red
team round 22). The grammar (`math_grammar`) admits "the <noun> of <complement>"; two forms of it
state another quantity than the answer:

- an operation applied to a quantity: "the reciprocal of the GCD is 6" says GCD = 1/6, "the
  logarithm of $N$ is 3" says N = 10^3, "the product of the GCD and 2 is 6" says GCD = 3. The
  verifier has no question text to tell whether exactly that was asked, so it refuses rather than
  guesses (round 21 left "twice the", "the square of" outside the grammar for the same reason);
- another measure than the one the working says it seeks: "We need the radius of the circle." and
  then "the diameter of the circle is 4" (the radius is 2)."""

from __future__ import annotations

import re

# A function applied to what follows "of" (its value is not the value of that quantity); the words
# before it may only qualify it ("the negative reciprocal of", "the natural logarithm of").
_TRANSFORM = re.compile(
    r"(?<![\w'])the\s+(?:(?:negative|additive|multiplicative|natural|common|first|second|third"
    r"|partial|definite|indefinite|square|cube|nth|m)\s+)*"
    r"(?P<what>reciprocal|inverse|negative|opposite|negation|complement|supplement|logarithm|log|ln"
    r"|exponential|derivative|antiderivative|integral|half|double|triple|square|cube|square\s+root"
    r"|cube\s+root|root|factorial|floor|ceiling)\s+(?:of|at)(?![\w'])"
    # "the perpendicular slope", "the negative reciprocal slope": a derived slope named by adjective
    r"|(?<![\w'])the\s+(?P<adjective>perpendicular|normal|reciprocal)\s+(?:slope|gradient)(?![\w'])"
)
# The same function as the head of an owner's noun phrase: "the GCD's reciprocal is 6".
_OWNED_TRANSFORM = re.compile(
    r"(?<![\w'])[a-z]+'s\s+(?:(?:negative|additive|multiplicative|natural|square|cube)\s+)*"
    r"(?P<what>reciprocal|inverse|negative|opposite|negation|complement|supplement|logarithm|log"
    r"|derivative|antiderivative|integral|half|double|triple|square|cube|root|factorial)(?![\w'])"
)
# Arithmetic on a quantity and a number or on two quantities: "the product of the GCD and 2", "the
# sum of 1 and the GCD", "the difference between the LCM and the GCD" (never "the sum of $a$ and
# $b$" or "the product of 12 and 18", which name the asked value's parts, not another quantity).
_ARITHMETIC = re.compile(
    r"(?<![\w'])(?P<what>sum|product|difference|quotient|ratio)\s+(?:of|between)\s+"
    r"(?:the\s+[a-z][\w\s'-]{0,40}?\s+(?:and|to|with)\s+(?:\d|m(?![\w'])|the\s)"
    r"|(?:\d\S*|m)\s+(?:and|to|with)\s+the\s)"
)
# A determiner or "of" before a match: it is inside the subject's complement, not the subject
# ("the area of the square of side 2" is an area).
_INNER = re.compile(r"(?<![\w'])(?:the|of|our|its|his|her|their)(?![\w'])")


def derived_subject(words: str) -> str | None:
    """Why the committing sentence's subject (`words`: lower case, inline math as "m") is a
    quantity derived from another, or None."""
    for pattern in (_TRANSFORM, _OWNED_TRANSFORM, _ARITHMETIC):
        found = pattern.search(words)
        if found is None:
            continue
        start = found.start()
        if pattern is not _TRANSFORM:  # the phrase starts at its determiner: "the GCD's", "the sum"
            determiner = words.rfind("the", 0, start)
            start = start if determiner < 0 else determiner
        if _INNER.search(words, 0, start):
            continue
        return f"the subject is a quantity derived from another ({found.group().strip()!r})"
    return None


# Inline math as the subject ("So $\\log N$ is 3", "$x^2$ is 9", "$|x|$ is 3") applies a function to
# the unknown: its value is not the unknown's. A plain name ("$x$", "$a_1$", "$f(2)$") is no function.
_FUNCTION = re.compile(
    r"\\(?:log|ln|lg|exp|sqrt|sin|cos|tan|cot|sec|csc|int|frac\s*\{\s*d|lim)|['^|!]"
)
_MATH_SUBJECT_VERB = re.compile(r"\s*(?:is|equals|must\s+be|will\s+be|becomes)(?![\w'])", re.I)
_PLAIN_LEAD = re.compile(r"(?i)^[\s*_]*(?:(?:so|thus|hence|therefore|then|finally|and)[\s,]*)*$")


def derived_math_subject(text: str, inline: re.Pattern[str]) -> str | None:
    """Why the inline math that is a sentence's subject (`inline` finds inline math in `text`)
    applies a function to the unknown, or None."""
    for m in inline.finditer(text):
        if not _MATH_SUBJECT_VERB.match(text, m.end()):
            continue
        # the subject stands first in its clause: "So $\\log N$ is", "Thus, $x^2$ is" (never "the
        # units digit of $7^{35}$ is", where the math is the complement)
        if not _PLAIN_LEAD.match(text[: m.start()]):
            continue
        if _FUNCTION.search(m.group()):
            return f"the subject applies a function to the unknown ({m.group()!r})"
    return None


# Measures that are different quantities of one object ("the radius" is not "the diameter"); words
# that only name a measure ("the length of the hypotenuse", "the value of $x$") are transparent.
_SYNONYMS = (
    (r"greatest\s+common\s+(?:divisor|factor)|highest\s+common\s+factor|gcf|hcf|gcd", "gcd"),
    (r"least\s+common\s+multiple|lcm", "lcm"),
    (r"radius|radii", "radius"),
    (r"diameters?", "diameter"),
    (r"circumferences?", "circumference"),
    (r"perimeters?", "perimeter"),
    (r"surface\s+area|areas?", "area"),
    (r"volumes?", "volume"),
    (r"hypotenuse", "hypotenuse"),
    (r"diagonals?", "diagonal"),
    (r"altitudes?|heights?", "height"),
    (r"apothems?", "apothem"),
    (r"slopes?|gradients?", "slope"),
    (r"(?:[xy]-)?intercepts?", "intercept"),
    (r"median", "median"),
    (r"mean|average", "mean"),
    (r"mode", "mode"),
    (r"sum", "sum"),
    (r"product", "product"),
    (r"quotient", "quotient"),
    (r"remainder", "remainder"),
)
_MEASURE = re.compile(
    r"(?<![\w'-])(?:"
    + "|".join(f"(?P<m{i}>{p})" for i, (p, _) in enumerate(_SYNONYMS))
    + r")(?![\w'-])"
)
# What the working says it seeks: "We need the radius", "Find the area of", "we are asked for".
_GOAL = re.compile(
    r"(?i)(?<![\w'])(?:we\s+(?:need|want|seek|must\s+find|have\s+to\s+find|are\s+(?:asked|looking)"
    r"\s+(?:for|to\s+find))|i\s+need|find|compute|determine|calculate)(?:\s+to\s+find)?\s+"
    r"(?:the|its)\s+(?P<goal>[^.?!\n:]{1,80})"
)
# The subject of a sentence begins after its last clause break ("..., so the area is").
_CLAUSE_BREAK = re.compile(r"[,;:]|(?<![\w'])(?:and|so|thus|hence|therefore)(?![\w'])")


def _measures(text: str) -> list[str]:
    return [_SYNONYMS[int(m.lastgroup[1:])][1] for m in _MEASURE.finditer(text.lower())]


def other_measure(working: str, sentence: str) -> str | None:
    """Why the sentence's subject measure differs from every measure the working seeks, or None
    (also None where the working names no goal, or the subject names no measure)."""
    segments = _CLAUSE_BREAK.split(sentence.lower())
    subject = _measures(segments[-1] if segments else "")
    if not subject:
        return None
    goals = [_measures(m.group("goal")) for m in _GOAL.finditer(working)]
    goals = [goal for goal in goals if goal]
    if not goals or any(subject[0] in goal for goal in goals):
        return None
    return f"the subject is the {subject[0]}, but the working seeks the {goals[-1][0]}"
