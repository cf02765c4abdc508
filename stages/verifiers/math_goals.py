"""What the working says it seeks (red team round 23), for the checks on a final sentence's subject
(`math_subjects`): "We need the radius", "Find the sum of the GCD and the LCM", "The problem asks
for the side length", "We need $f'(2)$". A subject derived from the answer ("the reciprocal of the
GCD", "$2x$", "the sum of its digits") is another quantity unless the goal names exactly it; the
verifier has no question text, so the working's goal line is the only word on what was asked."""

from __future__ import annotations

import re

# The goal phrasings (an allow-list): "We need", "Find", "The problem asks for", "Our goal is".
_GOAL_VERB = (
    r"(?<![\w'])(?:we\s+(?:need|want|seek|wish|must\s+find|have\s+to\s+find|are\s+to\s+find"
    r"|are\s+(?:asked|looking)\s+(?:for|to\s+find))|i\s+need|find|compute|determine|calculate"
    r"|evaluate|(?:the\s+)?(?:problem|question)\s+asks\s+(?:for|us\s+to\s+find)"
    r"|(?:our|the)\s+goal\s+is|we\s+are\s+asked\s+for)(?:\s+to\s+(?:find|compute|determine))?\s+"
)
GOAL = re.compile(rf"(?i){_GOAL_VERB}(?:the|its)\s+(?P<goal>(?:[^.?!\n:]|\.(?=\d)){{1,80}})")
# A goal that is inline math: "We need $n$", "Find $f'(2)$", "We need the value of $x$"
_GOAL_MATH = re.compile(
    rf"(?i){_GOAL_VERB}(?:the\s+value\s+of\s+)?(?:\$(?P<dollar>[^$]{{1,80}})\$"
    r"|\\\((?P<paren>(?:[^\\]|\\[^)]){1,80})\\\))"
)
_LATEX_SPACE = re.compile(r"\s+|\\[,;:! ]|\\left|\\right|\\displaystyle")


def same_math(text: str) -> str:
    """Inline math in one spelling: no spaces or spacing commands, "\\dfrac" as "\\frac"."""
    return _LATEX_SPACE.sub("", text).replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")


def goal_math(working: str) -> list[str]:
    """The inline-math expressions the working's goal lines ask for, in `same_math` spelling."""
    return [same_math(m.group("dollar") or m.group("paren")) for m in _GOAL_MATH.finditer(working)]


def goal_texts(working: str) -> list[str]:
    """The noun phrases the working's goal lines ask for ("radius of the circle")."""
    return [m.group("goal") for m in GOAL.finditer(working)]


_SPELLINGS = (
    (r"greatest\s+common\s+(?:divisor|factor)|highest\s+common\s+factor|gcf|hcf", "gcd"),
    (r"least\s+common\s+multiple", "lcm"),
    (r"modulo", "mod"),
    (r"\\pmod|\\bmod|\\mod", "mod"),
)
# Words that say nothing of which quantity: determiners, "number" in "the smallest number"
_FILLER = re.compile(r"(?<![\w'])(?:the|a|an|number|numbers|value)(?![\w'])")
# Where a goal's noun phrase may go on after the subject's: a complement or a condition
_GOAL_GOES_ON = re.compile(r"(?:of|in|for|when|where|if|given|such|that|with|from|on|,)(?![\w'])")


def plain_words(text: str) -> str:
    """Lower-case words with math delimiters, determiners and spelling variants dropped."""
    text = re.sub(r"\$|\\\(|\\\)|\\[,;! ]|[{}]", " ", text.lower())
    for pattern, word in _SPELLINGS:
        text = re.sub(rf"(?<![\w']){pattern}(?![\w'])", word, text)
    return " ".join(_FILLER.sub(" ", text).split())


def asked_exactly(subject: str, working: str) -> bool:
    """A goal line of the working names the subject's quantity ("the sum of the GCD and the LCM"
    for "Find the sum of the GCD and the LCM of 6 and 36"): the goal starts with the subject's
    words and goes on, if at all, with a complement or a condition, never "and the LCM"."""
    wanted = plain_words(subject)
    if not wanted:
        return False
    for goal in goal_texts(working):
        words = plain_words(goal)
        if words == wanted:
            return True
        rest = words[len(wanted) :].lstrip()
        if words.startswith(wanted + " ") and _GOAL_GOES_ON.match(rest):
            return True
        if words.startswith(wanted + ","):
            return True
    return False
