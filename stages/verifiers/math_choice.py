"""AMC multiple choice: a reference names its choice and that choice's value ("\\textbf{(C) }12",
"\\textbf{(B)}\\ 3"). The letter is what is asked; an answer states it ("(C)", "\\textbf{(C)}", "C"),
never the value alone (which choice it is, is unsaid) nor another letter with it. An answer that
states a choice with its value ("\\boxed{\\textbf{(C)}\\ 12}", the AoPS form) is paid only when both
are the reference's: the same letter with another value contradicts itself (red team round 19)."""

from __future__ import annotations

import re

from stages.verifiers.math_exact import exact_value
from stages.verifiers.math_read import answer_key, read
from stages.verifiers.math_tree import MathParseError

CHOICE = re.compile(
    r"\s*\\(?:textbf|text|mathrm|mathbf)\s*\{\s*\(([A-E])\)\s*\}\s*(?:\\[ ,;:]|~|\s)*"
    r"(?P<value>[^\s{}][^{}]{0,60})"
)


def choice_with_value(answer: str, reference: str) -> tuple[bool, str] | None:
    """(paid, reason) for an answer that states a choice and its value; None for any other."""
    said = CHOICE.fullmatch(answer)
    if said is None:
        return None
    asked = CHOICE.fullmatch(reference)
    if asked is None:
        return False, "a choice with a value, against a reference that names no choice and value"
    if said.group(1) != asked.group(1):
        return False, f"choice ({said.group(1)}), not ({asked.group(1)})"
    if not _same_value(said.group("value"), asked.group("value")):
        return False, f"choice ({said.group(1)}) with another value than the reference's"
    return True, "the reference's choice and value"


def _same_value(said: str, asked: str) -> bool:
    try:
        if answer_key(said) == answer_key(asked):
            return True
        value = exact_value(read(said).node)
        return value is not None and value == exact_value(read(asked).node)
    except MathParseError:
        return False


def choice_key(text: str) -> object | None:
    """What `math_read.answer_key` is for other answers, for a choice with its value; None when
    `text` is no such choice or its value is not one answer."""
    said = CHOICE.fullmatch(text)
    if said is None:
        return None
    try:
        return ("choice", said.group(1), answer_key(said.group("value")))
    except MathParseError:
        return None
