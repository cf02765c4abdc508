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

from stages.verifiers.math_goals import asked_exactly, goal_math, goal_texts, same_math

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
# A quantity of the asked object named by a pronoun: "the sum of its digits", "the number of its
# divisors", "its digit sum" (round 23): a function of the answer, not the answer
_OF_ITS = re.compile(
    r"(?<![\w'])the\s+(?P<what>[a-z][\w\s'-]{0,40}?)\s+of\s+(?:its|their)(?![\w'])"
    r"|^(?:(?:so|thus|hence|therefore|then|finally|and)[\s,]*)*(?P<head>its|their)\s+[a-z]"
)
# A determiner or "of" before a match: it is inside the subject's complement, not the subject
# ("the area of the square of side 2" is an area).
_INNER = re.compile(r"(?<![\w'])(?:the|of|our|its|his|her|their)(?![\w'])")
# The subject as written: after the sentence's last clause break, before its verb
_SUBJECT_START = re.compile(
    r"[,;:]|(?<![\w'])(?:so|thus|hence|therefore|then|finally)(?![\w'])", re.I
)
_SUBJECT_VERB = re.compile(r"(?i)\s*(?:is|equals|must\s+be|will\s+be|becomes|=)[\s$]*$")


def written_subject(text: str) -> str:
    """ "Therefore, the inverse of 3 modulo 7 is" -> "the inverse of 3 modulo 7"."""
    starts = [m.end() for m in _SUBJECT_START.finditer(text)]
    return _SUBJECT_VERB.sub("", text[starts[-1] if starts else 0 :]).strip()


def derived_subject(words: str, text: str = "", working: str = "") -> str | None:
    """Why the committing sentence's subject (`words`: lower case, inline math as "m"; `text`: the
    sentence as written) is a quantity derived from another that no goal line of the working asks
    for exactly ("Find the inverse of 3 modulo 7", round 23), or None."""
    for pattern in (_TRANSFORM, _OWNED_TRANSFORM, _ARITHMETIC, _OF_ITS):
        found = pattern.search(words)
        if found is None:
            continue
        start = found.start()
        if pattern is not _TRANSFORM:  # the phrase starts at its determiner: "the GCD's", "the sum"
            determiner = words.rfind("the", 0, start)
            start = start if determiner < 0 else determiner
        if _INNER.search(words, 0, start):
            continue
        if asked_exactly(written_subject(text), working):
            return None
        return f"the subject is a quantity derived from another ({found.group().strip()!r})"
    return None


# Inline math as the subject that is more than one symbol ("So $2x$ is", "$x+1$ is", "$\\log N$ is",
# "the value of $2x$ is") states a value of an expression, not of the unknown: an answer only where
# a goal line asks for that very expression ("Find $f'(2)$ ... Thus, $f'(2)$ is 5", round 23). One
# symbol ("$x$", "$a_1$", "$\\theta$") names the unknown itself.
_ONE_SYMBOL = re.compile(
    r"(?:[A-Za-z]|\\(?:alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota"
    r"|kappa|lambda|mu|nu|xi|pi|rho|sigma|tau|phi|varphi|chi|psi|omega|Gamma|Delta|Theta"
    r"|Lambda|Xi|Pi|Sigma|Phi|Psi|Omega))(?:_(?:\w|\{\w+\}))?"
)
_COMMAND = re.compile(r"\\[a-zA-Z]+")
# One symbol, or a function's value at numbers ("$f(2)$", "$g(-1, 3)$"): a name, not an expression
_NAMED = re.compile(rf"{_ONE_SYMBOL.pattern}(?:\([-+\d.,\s]+\))?")
_MATH_SUBJECT_VERB = re.compile(r"\s*(?:is|equals|must\s+be|will\s+be|becomes)(?![\w'])", re.I)
_PLAIN_LEAD = re.compile(
    r"(?i)^[\s*_]*(?:(?:so|thus|hence|therefore|then|finally|and)[\s,]*)*(?:the\s+value\s+of\s*)?$"
)
# Where the clause of an inline subject starts ("From $3x = 9$ we get $x = 3$, so $2x$ is")
_CLAUSE_START = re.compile(r"[,;:]|(?<![\w'])(?:so|thus|hence|therefore|and)(?![\w'])", re.I)


def derived_math_subject(text: str, inline: re.Pattern[str], working: str = "") -> str | None:
    """Why the inline math that is a clause's subject (`inline` finds inline math in `text`) is
    another expression than the one the working's goal line asks for, or None."""
    for m in inline.finditer(text):
        if not _MATH_SUBJECT_VERB.match(text, m.end()):
            continue
        # the subject stands first in its clause: "So $2x$ is", "..., so the value of $2x$ is"
        # (never "the units digit of $7^{35}$ is", where the math is the complement)
        breaks = [b.end() for b in _CLAUSE_START.finditer(text, 0, m.start())]
        if not _PLAIN_LEAD.match(text[breaks[-1] if breaks else 0 : m.start()]):
            continue
        expression = same_math(m.group().strip("$").removeprefix("\\(").removesuffix("\\)"))
        if not re.search("[A-Za-z]", _COMMAND.sub("", m.group())):  # "$18$ is", "$\\log_2 8$ is"
            continue
        if _NAMED.fullmatch(expression) or expression in goal_math(working):
            continue
        return f"the subject is an expression the working does not seek ({m.group()!r})"
    return None


def derived_left_side(math: str, working: str) -> str | None:
    """Why the left side of the equation a box ends ("so $2x = \\boxed{6}$") is an expression of
    the one symbol the working's goal asks for ("We need $x$"), other than that symbol, or None.
    Narrower than `derived_math_subject`: "$m+n = \\boxed{17}$" with no goal line stays an answer."""
    side = same_math(math.split("=", 1)[0])
    if not side or _NAMED.fullmatch(side) or side in goal_math(working):
        return None
    for symbol in {g for g in goal_math(working) if _ONE_SYMBOL.fullmatch(g)}:
        if re.search(rf"(?<![A-Za-z\\]){re.escape(symbol)}(?![A-Za-z])", side):
            return f"the left side is an expression of the unknown the working seeks ({side!r})"
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
    # "the side length", "the length of the side": the side (round 23); "the length of the
    # hypotenuse" is the hypotenuse (`_LENGTH_OF` drops the words that only name a measure)
    (r"side\s+lengths?|sides?|edges?", "side"),
    (r"widths?|breadths?", "width"),
    (r"lengths?", "length"),
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
# "the length of the side": the side; "the length of the hypotenuse": the hypotenuse
_LENGTH_OF = re.compile(
    r"(?<![\w'-])(?:length|measure|value|size)\s+of\s+(?:the\s+|its\s+|each\s+)?"
)
# The subject of a sentence begins after its last clause break ("..., so the area is").
_CLAUSE_BREAK = re.compile(r"[,;:]|(?<![\w'])(?:and|so|thus|hence|therefore)(?![\w'])")


def _measures(text: str) -> list[str]:
    text = _LENGTH_OF.sub("", text.lower())
    return [_SYNONYMS[int(m.lastgroup[1:])][1] for m in _MEASURE.finditer(text)]


def other_measure(working: str, sentence: str) -> str | None:
    """Why the sentence's subject measure differs from every measure the working seeks, or None
    (also None where the working names no goal, or the subject names no measure)."""
    segments = _CLAUSE_BREAK.split(sentence.lower())
    subject = _measures(segments[-1] if segments else "")
    if not subject:
        return None
    goals = [_measures(goal) for goal in goal_texts(working)]
    goals = [goal for goal in goals if goal]
    if not goals or any(subject[0] in goal for goal in goals):
        return None
    return f"the subject is the {subject[0]}, but the working seeks the {goals[-1][0]}"
