"""AMC multiple choice: a reference names its choice and that choice's value ("\\textbf{(C) }12",
"\\textbf{(B)}\\ 3"). The letter is what is asked; an answer states it ("(C)", "\\textbf{(C)}", "C"),
never the value alone (which choice it is, is unsaid) nor another letter with it. An answer that
states a choice with its value ("\\boxed{\\textbf{(C)}\\ 12}", the AoPS form) is paid only when both
are the reference's: the same letter with another value contradicts itself (red team round 19)."""

from __future__ import annotations

import re

from stages.verifiers.math_exact import exact_value
from stages.verifiers.math_parse import COLLECTIONS
from stages.verifiers.math_read import OR_WORD, answer_key, read
from stages.verifiers.math_tree import MathParseError
from stages.verifiers.math_unicode import unify

CHOICE = re.compile(
    r"\s*(?:\\(?:textbf|text|mathrm|mathbf)\s*\{\s*\((?P<styled>[A-E])\)\s*\}|\((?P<plain>[A-E])\))"
    r"\s*(?:\\[ ,;:]|~|\s)*"
    # the value may hold braces one level deep ("\\frac{3}{10}"): each alternative starts with a
    # different character, so the match stays linear
    r"(?P<value>(?:[^\s{}]|\{[^{}]{0,30}\})(?:[^{}]|\{[^{}]{0,30}\}){0,60})"
)


def letter(choice: re.Match[str]) -> str:
    """The letter a `CHOICE` match names ("\\textbf{(C)} 12" or "(C) 12")."""
    return choice.group("styled") or choice.group("plain")


# A reference that is the letter alone ("C", "(C)", "\\textbf{(C)}"): the letter is all that is asked.
_LETTER = re.compile(
    r"\s*(?:\\(?:textbf|text|mathrm|mathbf)\s*\{\s*\(?([A-E])\)?\s*\}|\(?([A-E])\)?)\s*"
)


def choice_with_value(answer: str, reference: str) -> tuple[bool, str] | None:
    """(paid, reason) for an answer that states a choice and its value; None for any other."""
    said = CHOICE.fullmatch(answer)
    if said is None:
        return None
    if _arithmetic(said.group("value")):  # "\\text{(A)} + 1", "(A) minus 1": no value of A
        return False, f"choice ({letter(said)}) with arithmetic after it, not a value"
    asked = CHOICE.fullmatch(reference)
    alone = _LETTER.fullmatch(reference) if asked is None else None
    if alone is not None:  # "\\boxed{\\textbf{(C)}\\ 12}" for "C": the asked letter is stated
        wanted = alone.group(1) or alone.group(2)
        if letter(said) != wanted:
            return False, f"choice ({letter(said)}), not ({wanted})"
        if not _one_value(said.group("value")):  # "(C) 3 or 4": the choice's value is hedged
            return False, f"choice ({wanted}) with a value that is not one answer"
        return True, "the reference's choice (the reference gives no value)"
    if asked is None:
        return False, "a choice with a value, against a reference that names no choice and value"
    if letter(said) != letter(asked):
        return False, f"choice ({letter(said)}), not ({letter(asked)})"
    if not _same_value(said.group("value"), asked.group("value")):
        return False, f"choice ({letter(said)}) with another value than the reference's"
    return True, "the reference's choice and value"


def _one_value(value: str) -> bool:
    """The value stated with a choice is one answer: no "or", no other choice, read whole."""
    if _OTHER_CHOICE.search(value) or OR_WORD.search(value):
        return False
    try:
        answer_key(value)
    except MathParseError:
        return False
    return read(value).node[0] not in COLLECTIONS


# A choice's value is one value as written: an operator or an operator word anywhere in it ("+ 1",
# "\\cdot 2", "minus 1", "12 + 1") is arithmetic on the choice, not its value (stage 3's adversary,
# round 21); only a leading minus ("-5") is part of a value.
_OPERATOR = re.compile(
    r"[+*/=^×÷·<>]|(?<!^)-|^-\s|\\(?:cdot|times|div|pm|mp|le|ge|neq?)(?![a-zA-Z])"
    r"|(?<![a-zA-Z])(?:minus|plus|times|divided|over|squared|cubed|less|more|add|subtract)(?![a-zA-Z])"
)


def _arithmetic(value: str) -> bool:
    return _OPERATOR.search(unify(value).strip()) is not None


_OTHER_CHOICE = re.compile(r"\([A-E]\)")


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
        return ("choice", letter(said), answer_key(said.group("value")))
    except MathParseError:
        return None
