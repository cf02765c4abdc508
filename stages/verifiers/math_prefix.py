"""What stands before a final answer (`math_extract`'s second line of defence): the answer's own
sentence must be a plain commitment (`math_grammar`), no doubt, label or disowning heading may come
before it (`math_commit`), the equation it ends must be true, and no competing value may be stated
near it (`math_competing`). Also the shape of a final and the gaps that join finals of one list."""

from __future__ import annotations

import re
from dataclasses import dataclass

from stages.verifiers.math_commit import WINDOW, doubt_before, left_context_problem
from stages.verifiers.math_competing import competing_value
from stages.verifiers.math_context import sentence_start, trimmed_end
from stages.verifiers.math_exact import side_value
from stages.verifiers.math_grammar import commitment_problem, is_bare, previous_problem
from stages.verifiers.math_subjects import other_measure

# A choice's letter alone in a box ("option \\boxed{B}", "option \\boxed{(C)}")
_LETTER = re.compile(r"\s*(?:\\text\{\s*)?\(?[A-E]\)?\s*\}?\s*")

# Between two boxes of one list: a comma, "and", spacing ("\\boxed{2} \\quad \\text{and} \\quad
# \\boxed{3}").
LIST_GAP = re.compile(
    r"^(?:\s|\$|\\[()\[\]]|\\q?quad|\\[,;!]|,|and|or|\\text\s*\{\s*(?:for\s+part\s+\(?[a-z0-9]\)?)?"
    r"\s*,?\s*(?:and|or)\s*\})*$"
)
# Between two boxes that restate one answer ("\\boxed{\\frac12} or equivalently \\boxed{0.5}"): their
# values must then be equal (`math_explain.same_value`), or they are two different finals.
EQUIV_GAP = re.compile(
    r"^(?:\s|\$|\\[()\[\]])*(?:,?\s*(?:or|i\.e\.|that\s+is|which\s+is)\s*,?\s*(?:equivalently\s*,?)?"
    r"|,?\s*equivalently\s*,?|=)(?:\s|\$|\\[()\[\]])*$"
)


@dataclass(frozen=True)
class Final:
    start: int  # where the box or marker starts
    end: int  # where the answer text ends (the box's closing brace, a unit after it included)
    text: str
    kind: str  # "boxed" | "answer_line" | "####"
    weak: bool = False  # `math_weak`'s forms ("Result: 5", "<answer>5</answer>"): prefix checked


def grammar_problem(body: str, own: int, prefix: str) -> str | None:
    """The first line of defence (`math_grammar`): the answer's own sentence must be a plain
    commitment, and a bare answer must not be labelled or disowned by the line before it."""
    problem = commitment_problem(prefix, body[:own]) or other_measure(body[:own], prefix)
    if problem:  # "We need the radius. [...] So the diameter is \\boxed{4}" (round 22)
        return problem
    lo = max(0, own - WINDOW)  # a heading is read within a bounded window
    line_start = body.rfind("\n", lo, own) + 1
    heading = body[max(lo, body.rfind("\n", lo, max(line_start - 1, 0)) + 1) : line_start].lstrip()
    if heading.startswith("#") and previous_problem(heading.lstrip("# ")):
        return f"a heading before the answer disowns it ({heading.strip()[:50]!r})"
    if not is_bare(prefix):
        return None
    before = trimmed_end(body, own)
    if before == 0:
        return None
    return previous_problem(body[sentence_start(body, before - 1) : before])


_UNCHECKED_KEY = re.compile(
    r"(?i)\"(?:verified|verification|status|self[_ -]?check|checked|check|confidence|solved|complete"
    r"|completed|correct|valid|certain|sure|done|finished)\"\s*:\s*\"?(?:no|false|unsolved|unverified"
    r"|failed|fail|low|unknown|incomplete|unsure|partial|guess|guessed|wrong|invalid|null|none|0"
    r"|pending|todo|unchecked|not[_ -]\w+)(?![\w])"
)


def check_prefix(body: str, final: Final, previous: Final | None) -> str | None:
    if final.weak and body.startswith('"', final.start):
        # a JSON key: its object's other keys are no sentence ({"reasoning": "2 + 3", "answer":
        # 5}); only a doubt before it counts ({"status": "guess", "answer": 5}, round 13), or a
        # key saying the work is unchecked or unsolved ({"verified": "no", ...}, round 15)
        unchecked = _UNCHECKED_KEY.search(body, max(0, final.start - WINDOW), final.start)
        if unchecked:
            return f"{unchecked.group()!r} before the answer"
        return doubt_before(body, final.start)
    own = sentence_start(body, final.start)
    prefix = body[own : final.start]
    gap = body[previous.end : final.start] if previous is not None else None
    listed = gap is not None and bool(LIST_GAP.match(gap) or EQUIV_GAP.match(gap))
    grammar = None if listed else grammar_problem(body, own, prefix)
    # Both lines must pass; where both fail, the hedge list's reason is the more specific one.
    second = doubt_before(body, final.start) or left_context_problem(
        prefix, listed, choice=bool(_LETTER.fullmatch(final.text))
    )
    return (
        second
        or grammar
        or _bare_past(prefix, body, final)
        # the raw window, not the sentence: "$4! = \\boxed{20}$" has a "!" that ends no sentence
        or _false_equation(body[max(0, final.start - WINDOW) : final.start], final.text)
        or competing_value(body, final.start, final.text)
    )


_HAD = re.compile(r"(?i)(?<![\w'])had[\s$]*(?:\\\(|\\\[)?\s*$")
_NAMED_IN_BOX = re.compile(r"[A-Za-z£€¥]|\\\$")  # "18 \\text{ apples}", "\\$18"
_THING_AFTER = re.compile(r"(?:[\s$]|\\\)|\\\])*(?:\\text\s*\{\s*)?[A-Za-z]")


def _bare_past(prefix: str, body: str, final: Final) -> str | None:
    """ "She had \\boxed{18}." may be an earlier state, as "had" says nothing of what was had;
    "Tom had \\boxed{20} apples." names it, a unit read with the box too (round 21)."""
    if not _HAD.search(prefix[-40:]):
        return None
    if _THING_AFTER.match(body, final.end) or _NAMED_IN_BOX.search(final.text):
        return None
    return "'had' with nothing named after the answer"


_EQUATION_LEFT = re.compile(r"(?:^|[$=(]|\\[(\[])(?P<lhs>[^$=]{1,200})=\s*(?:\$|\\\(|\\\[)?\s*$")


def _false_equation(prefix: str, answer_text: str) -> str | None:
    """ "$4 \\times 9 = \\boxed{37}$", "$\\sqrt{36} = \\boxed{7}$": the box ends an equation
    whose other side is a number."""
    m = _EQUATION_LEFT.search(prefix[-WINDOW:])
    if not m:
        return None
    # a left side the answer grammar cannot compute as written ("\\sqrt{36}", "4!") is read
    # by `math_exact` (round 15); one it cannot compute at all proves nothing
    left, right = side_value(m.group("lhs")), side_value(answer_text)
    if left is not None and right is not None and left != right:
        return "a false equation before the answer"
    return None
