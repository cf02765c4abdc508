"""Where boxes and math environments are in a text. Braces are matched in one pass, each box of a
response is read within a bounded window, and no environment's pattern can run past the next
opener, so every scan here is linear in the text."""

from __future__ import annotations

import re
from functools import lru_cache

MAX_FINALS = 64  # more final answers than this in one response is no answer

_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
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
    if "\\boxed" not in response and "\\fbox" not in response:
        return []
    braces = matching_braces(response)
    out = []
    for m in _BOXED.finditer(response):
        close = braces.get(m.end() - 1)
        if close is not None:
            out.append((m.start(), close + 1, response[m.end() : close]))
    return out


_BRACE = re.compile(r"[{}]")


def bounded_boxes(text: str, max_chars: int) -> list[tuple[int, int, str]] | str:
    """(start, end, contents) of each box of a response, each read within `max_chars` of its
    opening brace, at most MAX_FINALS of them: a megabyte of boxes costs a bounded scan. A string
    says why there is no answer."""
    out = []
    for m in _BOXED.finditer(text):
        if len(out) >= MAX_FINALS:
            return f"more than {MAX_FINALS} final answers"
        depth = 1
        for brace in _BRACE.finditer(text, m.end(), m.end() + max_chars + 1):
            depth += 1 if brace.group() == "{" else -1
            if depth == 0:
                out.append((m.start(), brace.end(), text[m.end() : brace.start()]))
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
