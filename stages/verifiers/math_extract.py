"""Finding the final answer in a response. Extraction is where a verifier is most easily gamed, so
hedges ("3 or 4") and several different final answers are rejected rather than resolved."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
_ANSWER_LINE = re.compile(
    r"(?im)(?:^|\n)\s*(?:\*\*)?(?:final answer|answer)(?:\*\*)?\s*[:：]\s*(?:\*\*)?(?P<a>[^\n]*)"
    r"|the (?:final )?answer is\s*:?\s*(?P<b>[^\n]*?)(?:\.\s|\.$|$)"
    r"|^\s*####\s*(?P<c>[^\n]*)$",
)
_NUMBER = re.compile(
    r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?(?:/\d+)?%?|-?\.\d+%?"
)
_OPERATORS = ("+", "-", "*", "/", "^", "×", "÷", "(", "\\cdot", "\\times")
_HEDGE = re.compile(r"\b(?:or|either|maybe|possibly|perhaps|probably)\b|\\pm|±", re.IGNORECASE)
# A response that is only numbers and separators ("84 85", "84, 85") states several answers.
_ONLY_NUMBERS = re.compile(r"^[\s\d.,;:eE-]*(?:\b(?:and|or)\b[\s\d.,;:eE-]*)*$", re.IGNORECASE)


@dataclass(frozen=True)
class Extraction:
    """The answer text found (None when extraction failed) and why."""

    text: str | None
    mode: str
    problem: str = ""  # "no_answer" | "hedge" | "conflicting" | "echo" | "too_long"
    reason: str = ""


def boxed_contents(response: str) -> list[str]:
    """Contents of every \\boxed{...}, braces balanced."""
    out: list[str] = []
    for m in _BOXED.finditer(response):
        depth, i = 1, m.end()
        while i < len(response) and depth:
            depth += {"{": 1, "}": -1}.get(response[i], 0)
            i += 1
        if depth == 0:
            out.append(response[m.end() : i - 1])
    return out


def _answer_lines(response: str) -> list[str]:
    found = []
    for m in _ANSWER_LINE.finditer(response):
        text = next(g for g in (m.group("a"), m.group("b"), m.group("c")) if g is not None)
        text = text.strip().strip("*").strip().rstrip(".").strip()
        if text:
            found.append(text)
    return found


def _last_number(response: str) -> Extraction:
    stripped = response.strip()
    numbers = _NUMBER.findall(stripped)
    if not numbers:
        return Extraction(None, "last_number", "no_answer", "no number in the response")
    last = list(_NUMBER.finditer(stripped))[-1]
    before = stripped[: last.start()].rstrip()
    # "12+7" or "12-7": the final number is an operand of an unevaluated expression, not a result.
    if before.endswith(_OPERATORS) or (last.group().startswith("-") and before[-1:].isalnum()):
        return Extraction(
            None, "last_number", "echo", "final number is part of an unevaluated expression"
        )
    if len({n.replace(",", "") for n in numbers}) > 1 and _ONLY_NUMBERS.match(stripped):
        return Extraction(None, "last_number", "conflicting", "several different final answers")
    last_line = next(line for line in reversed(stripped.splitlines()) if _NUMBER.search(line))
    if _HEDGE.search(last_line):
        return Extraction(None, "last_number", "hedge", "hedged answer")
    return Extraction(last.group(), "last_number")


def _from_candidates(found: list[str], mode: str) -> Extraction:
    distinct = list(dict.fromkeys(" ".join(f.split()) for f in found))
    if len(distinct) > 1:
        return Extraction(
            None, mode, "conflicting", f"several different final answers: {distinct[:3]}"
        )
    return Extraction(distinct[0], mode)


def extract_answer(response: str, modes: Sequence[str], max_chars: int = 400) -> Extraction:
    """Try each mode in order; the first that finds an answer decides."""
    result = Extraction(None, "none", "no_answer", "no final answer found")
    for mode in modes:
        if mode == "boxed":
            found = boxed_contents(response)
            if found:
                result = _from_candidates(found, mode)
                break
        elif mode == "answer_line":
            found = _answer_lines(response)
            if found:
                result = _from_candidates(found, mode)
                break
        elif mode == "last_number":
            result = _last_number(response)
            if result.problem != "no_answer":
                break
        elif mode == "whole":
            if response.strip():
                result = Extraction(response.strip(), mode)
                break
        else:
            raise ValueError(f"unknown extraction mode {mode!r}")
    if result.text is not None:
        if len(result.text) > max_chars:
            return Extraction(
                None, result.mode, "too_long", f"answer longer than {max_chars} chars"
            )
        if _HEDGE.search(result.text):
            return Extraction(None, result.mode, "hedge", "hedged answer")
    return result
