"""Finding the final answer in a response. Extraction is where a verifier is most easily gamed, so
hedges ("3 or 4") and several different final answers are rejected rather than resolved. Every
pattern here is bounded (no unbounded lazy scans, no nested quantifiers) and braces are matched in
one pass, so a 1 MB response is read in linear time."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from stages.verifiers.math_compare import canonical
from stages.verifiers.math_normalise import normalise
from stages.verifiers.math_parse import MathParseError, parse_answer

_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
_ANSWER_LINE = re.compile(
    r"(?im)(?:(?:^|\n)[ \t]*(?:\*\*)?answer|\bfinal answer)(?:\*\*)?[ \t]*[:：][ \t]*(?:\*\*)?(?P<a>[^\n]*)"
    r"|the (?:final )?answer is[ \t]*:?[ \t]*(?P<b>[^\n]*?)(?:\.\s|\.$|$)"
    r"|^[ \t]*####[ \t]*(?P<c>[^\n]*)$",
)
# A correction after the last final answer ("The answer is 5. Actually 6.") replaces it.
_CORRECTION = re.compile(
    r"(?i)\b(?:actually|wait|correction|i mean|rather)\b[,:]?\s*(?P<rest>[^\n]{0,200})"
)
# No environment's contents may contain its own opener (nor a lone $ for $$, nor a newline for
# inline ones), so every match attempt stops at the next opener: the scan is linear in the text.
_MATH_ENV = re.compile(
    r"\$\$(?P<a>[^$]+)\$\$"
    r"|(?<![\\$])\$(?P<d>(?:[^$\\\n]|\\[^\n])+)(?<!\\)\$"
    r"|\\\[(?P<b>(?:[^\\]|\\[^\[\]])+)\\\]"
    r"|\\\((?P<c>(?:[^\\\n]|\\[^()\n])+)\\\)"
)
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_\\{^.])-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)"
    r"(?:\.\d+|,\d{1,2}(?!\d)|,\d{4,})?(?:[eE][+-]?\d+)?(?:/\d+)?(?:\s?%)?"
    r"|(?<![A-Za-z0-9_\\{])-?\.\d+%?"
)
_OPERATORS = ("+", "-", "*", "/", "^", "×", "÷", "(", "\\cdot", "\\times")
_HEDGE = re.compile(r"\b(?:or|either|maybe|possibly|perhaps|probably)\b|±", re.IGNORECASE)
# A response that is only numbers and separators ("84 85", "84, 85") states several answers.
_ONLY_NUMBERS = re.compile(r"^[\s\d.,;:eE-]*(?:\b(?:and|or)\b[\s\d.,;:eE-]*)*$", re.IGNORECASE)


@dataclass(frozen=True)
class Extraction:
    """The answer text found (None when extraction failed) and why."""

    text: str | None
    mode: str
    problem: str = (
        ""  # "no_answer" | "hedge" | "conflicting" | "echo" | "too_long" | "inside_latex"
    )
    reason: str = ""
    several: tuple[str, ...] = ()  # distinct finals, kept for a set/list reference to match
    position: int = -1  # where in the response the answer starts


def matching_braces(text: str) -> dict[int, int]:
    """Index of each '{' to its matching '}', in one pass (unmatched ones are left out)."""
    match: dict[int, int] = {}
    stack: list[int] = []
    for i, ch in enumerate(text):
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            match[stack.pop()] = i
    return match


def boxed_spans(response: str) -> list[tuple[int, int, str]]:
    """(start, end, contents) of every \\boxed{...}, braces balanced; linear in the response."""
    if "\\boxed" not in response and "\\fbox" not in response:
        return []
    braces = matching_braces(response)
    out = []
    for m in _BOXED.finditer(response):
        close = braces.get(m.end() - 1)
        if close is not None:
            out.append((m.start(), close + 1, response[m.end() : close]))
    return out


def boxed_contents(response: str) -> list[str]:
    """Contents of every \\boxed{...}, braces balanced."""
    return [text for _, _, text in boxed_spans(response)]


@lru_cache(maxsize=4)  # extraction reads one response's environments several times
def math_env_spans(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, contents) of $...$, $$...$$, \\(...\\) and \\[...\\] environments; inline ones
    stay on one line."""
    return tuple((*m.span(), m.group(m.lastgroup)) for m in _MATH_ENV.finditer(text))  # type: ignore[arg-type]


def math_envs(text: str) -> list[tuple[int, str]]:
    """(position, contents) of every math environment."""
    return [(start, inner) for start, _, inner in math_env_spans(text)]


def _answer_lines(response: str) -> list[tuple[int, str]]:
    found = []
    for m in _ANSWER_LINE.finditer(response):
        text = next(g for g in (m.group("a"), m.group("b"), m.group("c")) if g is not None)
        text = text.strip().strip("*").strip().rstrip(".").strip()
        if text:
            found.append((m.start(), _inner_answer(text)))
    return found


def _inner_answer(line: str) -> str:
    """ "The final answer is 34. I hope it is correct." or "The largest $n$ is 34": the answer
    inside an answer line is its last math environment or last standalone number."""
    nested = _ANSWER_LINE.search(line)
    if nested and nested.group("b"):
        line = nested.group("b").strip().rstrip(".")
    if _HEDGE.search(_mask_envs(line)):
        return line  # "3 or 4" is kept whole, to be rejected as a hedge
    envs = math_envs(line)
    number = list(_NUMBER.finditer(_mask_envs(line)))
    if envs and (not number or envs[-1][0] > number[-1].start()):
        if len(envs) == 1 and line.strip().startswith("$") and line.strip().endswith("$"):
            return envs[0][1]
        if not number:
            return envs[-1][1] if len(envs) == 1 else line
    if number and not re.fullmatch(r"[\s\d.,%$-]*", line) and not _looks_like_math(line):
        return number[-1].group()
    return line


def _looks_like_math(text: str) -> bool:
    return bool(re.fullmatch(r"[^A-Za-z]*|.*\\[a-zA-Z]+.*|[A-Za-z]\s*=.*|[A-Za-z]{1,2}", text))


def _mask_envs(text: str) -> str:
    """The text with every math environment blanked out (same length)."""
    parts, last = [], 0
    for start, end, _ in math_env_spans(text):
        parts += [text[last:start], " " * (end - start)]
        last = end
    return "".join(parts) + text[last:]


_DIGIT_IN_LATEX = re.compile(r"\\[a-zA-Z]+\s*\{[^{}\n]{0,50}\d")
_LATEX_COMMAND = re.compile(r"\\[a-zA-Z]+")
MAX_BARE_CHARS = 400
_SPACED_THOUSANDS = re.compile(r"-?\d{1,3}(?: \d{3})+")


def _last_number(response: str) -> Extraction:
    stripped = response.strip()
    if _SPACED_THOUSANDS.fullmatch(stripped):  # "1 000" on its own is one number
        return Extraction(stripped.replace(" ", ""), "last_number")
    unstripped = _mask_envs(response)
    masked = unstripped.strip()
    matches = list(_NUMBER.finditer(masked))
    if not matches:
        if _DIGIT_IN_LATEX.search(masked):  # "the value is \frac{10}{9}" holds no bare number
            return Extraction(
                None,
                "last_number",
                "inside_latex",
                "the only numbers are inside a LaTeX expression",
            )
        return Extraction(None, "last_number", "no_answer", "no number in the response")
    last = matches[-1]
    numbers = [m.group() for m in matches]
    before = masked[: last.start()].rstrip()
    # "12+7" or "12-7": the final number is an operand of an unevaluated expression, not a result.
    if before.endswith(_OPERATORS) or (last.group().startswith("-") and before[-1:].isalnum()):
        return Extraction(
            None, "last_number", "echo", "final number is part of an unevaluated expression"
        )
    after = masked[last.end() : last.end() + 1]
    if after in ("{", "}", "\\", "^", "_"):
        return Extraction(
            None, "last_number", "inside_latex", "final number is inside a LaTeX expression"
        )
    last_line = next(line for line in reversed(masked.splitlines()) if _NUMBER.search(line))
    if _HEDGE.search(last_line):
        return Extraction(None, "last_number", "hedge", "hedged answer")
    if len({n.replace(",", "") for n in numbers}) > 1 and _ONLY_NUMBERS.match(stripped):
        return Extraction(None, "last_number", "conflicting", "several different final answers")
    offset = len(unstripped) - len(unstripped.lstrip())
    return Extraction(last.group(), "last_number", position=offset + last.start())


def _latex(response: str) -> Extraction:
    envs = math_envs(response)
    if envs:
        return Extraction(envs[-1][1], "latex", position=envs[-1][0])
    text = response.strip().rstrip(".").strip()
    # A one-line response that is itself LaTeX ("\frac{10}{9}", "2\sqrt{3}") is its own answer;
    # prose around LaTeX ("the value is \frac{10}{9}") is not.
    # A bare answer ("y = 2x + 1", "(2, -1)") is one too when it parses; "84 85" does not, and is
    # left to the last-number reading (which calls it two answers).
    if "\n" in text or len(text) > MAX_BARE_CHARS:
        return Extraction(None, "latex", "no_answer", "no math environment")
    whole = Extraction(text, "latex", position=len(response))
    prose = re.search(r"[A-Za-z]{3,}", _LATEX_COMMAND.sub(" ", text))
    if not prose:
        try:
            parse_answer(normalise(text))
            return whole
        except MathParseError:
            pass
    if text.startswith(("\\", "-\\", "(", "[", "{")) or ("\\" in text and not prose):
        return whole
    return Extraction(None, "latex", "no_answer", "no math environment")


def _same_answer_key(text: str) -> object:
    """ "\\$16,\\!386.20" and "16,\\!386.20" are one answer written twice."""
    try:
        return canonical(parse_answer(normalise(text)))
    except MathParseError:
        return " ".join(text.split())


def _from_candidates(found: list[str], mode: str) -> Extraction:
    texts = list(dict.fromkeys(" ".join(f.split()) for f in found))
    if len(texts) > 1:  # parse only when the texts differ: most responses state one final
        by_key: dict[object, str] = {}
        for f in texts:
            by_key.setdefault(_same_answer_key(f), f)
        texts = list(by_key.values())
    distinct = texts
    if len(distinct) > 1:
        return Extraction(
            None,
            mode,
            "conflicting",
            f"several different final answers in {mode}: {distinct[:3]}",
            several=tuple(distinct),
        )
    return Extraction(distinct[0], mode)


def _finals(response: str, modes: Sequence[str]) -> Extraction | None:
    """Boxed answers, answer lines and '####' together: two different ones conflict."""
    found: list[tuple[int, str, str]] = []
    if "boxed" in modes:
        found += [(start, text, "boxed") for start, _, text in boxed_spans(response)]
    if "answer_line" in modes:
        for pos, text in _answer_lines(response):
            # "Answer: \boxed{5}" states one final, not two.
            if "boxed" in modes and "\\boxed" in response[pos : pos + len(text) + 60]:
                continue
            found.append((pos, text, "answer_line"))
    if not found:
        return None
    found.sort()
    last_pos = found[-1][0]
    correction = None
    for m in _CORRECTION.finditer(response, last_pos):
        correction = m
    if correction is not None and correction.group("rest").strip():
        found.append((correction.start(), _inner_answer(correction.group("rest")), "correction"))
    modes_seen = sorted({mode for _, _, mode in found})
    result = _from_candidates([text for _, text, _ in found], "+".join(modes_seen))
    return result


def extract_answer(response: str, modes: Sequence[str], max_chars: int = 400) -> Extraction:
    """Finals (boxed, answer lines, ####, corrections) first; otherwise the other modes in order."""
    result = Extraction(None, "none", "no_answer", "no final answer found")
    finals = _finals(response, modes)
    if finals is not None:
        result = finals
    else:
        for mode in modes:
            if mode in ("boxed", "answer_line"):
                continue
            if mode == "latex":
                result = _latex(response)
                if result.text is not None:
                    if "last_number" in modes:  # "... $d = 90/n$ ... so there are 12": the later
                        number = _last_number(response)
                        if number.text is not None and number.position > result.position:
                            result = number
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
