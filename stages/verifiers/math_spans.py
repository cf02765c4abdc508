"""Where boxes and math environments are in a text. Braces are matched in one pass, each box of a
response is read within a bounded window, and no environment's pattern can run past the next
opener, so every scan here is linear in the text."""

from __future__ import annotations

import re
from functools import lru_cache

from stages.verifiers.math_context import has_value

MAX_FINALS = 64  # more final answers than this in one response is no answer

# Every box-like command is a commitment to what it frames: a value in any of them is a final
# answer that must agree with the others (\\framebox{37} then "The answer is 36." conflicts).
# Optional arguments and the colour arguments are skipped, so the match ends at the content's brace.
_OPT = r"(?:\s*\[[^\[\]\n]{0,40}\])"
_ARG = r"(?:\s*\{[^{}\n]{0,40}\})"
_BOXED = re.compile(
    rf"\\(?:boxed\*?|fbox|framebox{_OPT}{{0,2}}|mbox|makebox{_OPT}{{0,2}}|bbox{_OPT}?|tcbox{_OPT}?"
    rf"|ovalbox|Ovalbox|doublebox|shadowbox|fcolorbox{_OPT}?{_ARG}{{2}}|colorbox{_OPT}?{_ARG}"
    rf"|parbox{_OPT}{{0,3}}{_ARG})\s*\{{"
)
BOX_WORD = "box"  # every box-like command's name holds it: a text without it has no box
# "\\boxed 37", "\\fbox5": legal TeX that boxes one token; never read as an answer, it is no answer.
_UNBRACED_BOX = re.compile(r"\\(?:boxed|fbox|framebox)(?:\s+|\*\s*)?(?=[^\s{*\[a-zA-Z])")
# Any other command named like a box (\\Boxed, \\hbox, \\boxed[37], \\raisebox{..}{..}): what it
# frames is not read, so where its arguments hold a value the response has no answer.
_ANY_BOX = re.compile(r"\\[A-Za-z]*(?i:box)[A-Za-z]*\*?")
_BOX_ARGS = re.compile(r"(?:\s*(?:\[[^\[\]\n]{0,80}\]|\{[^{}\n]{0,80}\}|\([^()\n]{0,80}\)))*")
_ANSWER_BOX = re.compile(r"\\(?:boxed|fbox|framebox)")


def _frames_answer(opener: str, contents: str) -> bool:
    """\\boxed, \\fbox and \\framebox always state an answer; the other box-like commands (text
    boxes, colour boxes: "$5 \\mbox{ cm}$") do where they frame a value."""
    return bool(_ANSWER_BOX.match(opener)) or has_value(contents)


# No environment's contents may contain its own opener (nor a lone $ for $$, nor a newline for
# inline ones), so every match attempt stops at the next opener: the scan is linear in the text.
_MATH_ENV = re.compile(
    r"\$\$(?P<a>[^$]+)\$\$"
    r"|(?<![\\$])\$(?P<d>(?:[^$\\\n]|\\[^\n])+)(?<!\\)\$"
    r"|\\\[(?P<b>(?:[^\\]|\\[^\[\]])+)\\\]"
    r"|\\\((?P<c>(?:[^\\\n]|\\[^()\n])+)\\\)"
)


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
    if BOX_WORD not in response:
        return []
    braces = matching_braces(response)
    out = []
    for m in _BOXED.finditer(response):
        close = braces.get(m.end() - 1)
        if close is not None and _frames_answer(m.group(), response[m.end() : close]):
            out.append((m.start(), close + 1, response[m.end() : close]))
    return out


_BRACE = re.compile(r"[{}]")


def _unread_box(text: str) -> str | None:
    """Why a box-like command this module does not read makes no answer, or None."""
    for count, m in enumerate(_ANY_BOX.finditer(text)):
        if count > 4 * MAX_FINALS:
            return f"more than {4 * MAX_FINALS} box-like commands"
        if _BOXED.match(text, m.start()) or _UNBRACED_BOX.match(text, m.start()):
            continue
        args = _BOX_ARGS.match(text, m.end())
        if args and has_value(args.group()):
            return f"{m.group()[:30]} frames a value in a form not read as an answer"
    return None


def bounded_boxes(text: str, max_chars: int) -> list[tuple[int, int, str]] | str:
    """(start, end, contents) of each box of a response, each read within `max_chars` of its
    opening brace, at most MAX_FINALS of them: a megabyte of boxes costs a bounded scan. A string
    says why there is no answer."""
    if BOX_WORD in text.lower():
        if _UNBRACED_BOX.search(text):
            return "a box whose argument is not braced"
        unread = _unread_box(text)
        if unread:
            return unread
    out = []
    for m in _BOXED.finditer(text):
        if len(out) >= MAX_FINALS:
            return f"more than {MAX_FINALS} final answers"
        depth = 1
        for brace in _BRACE.finditer(text, m.end(), m.end() + max_chars + 1):
            depth += 1 if brace.group() == "{" else -1
            if depth == 0:
                inner = text[m.end() : brace.start()]
                if _frames_answer(m.group(), inner):
                    out.append((m.start(), brace.end(), inner))
                break
        else:
            if len(text) > m.end() + max_chars:
                return f"answer longer than {max_chars} chars"
    return out


def boxed_contents(response: str) -> list[str]:
    """Contents of every \\boxed{...}, braces balanced."""
    return [text for _, _, text in boxed_spans(response)]


@lru_cache(maxsize=4)  # a reference's environments are read several times
def math_env_spans(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, contents) of $...$, $$...$$, \\(...\\) and \\[...\\] environments; inline ones
    stay on one line."""
    return tuple((*m.span(), m.group(m.lastgroup)) for m in _MATH_ENV.finditer(text))  # type: ignore[arg-type]


def math_envs(text: str) -> list[tuple[int, str]]:
    """(position, contents) of every math environment."""
    return [(start, inner) for start, _, inner in math_env_spans(text)]


def unboxed(text: str) -> str:
    """'x = \\boxed{5}' inside an answer line reads as 'x = 5'."""
    spans = boxed_spans(text)
    if not spans:
        return text
    out, pos = [], 0
    for start, end, inner in spans:
        out += [text[pos:start], inner]
        pos = end
    return "".join(out) + text[pos:]
