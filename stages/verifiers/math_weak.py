"""Commitments in other forms than a box, `####` or an `Answer:` line: `Final: 37`, `Result: 37`,
`Ans: 37`, `Réponse : 37`, `答案：37`, `<answer>37</answer>`, `{"answer": 37}`, `| Answer | 37 |`.
A value stated there is a final answer like any other, so it must agree with the rest (`Result: 37`
then "The answer is 36." is two finals: no answer). These words also head prose ("Solution: Let x
be ..."), so such a form counts only where what follows it is one answer the grammar reads whole.

The scan runs only around the words it needs (as `math_extract._markers` does), so a megabyte is
read in linear time."""

from __future__ import annotations

import re

from stages.verifiers.math_read import ReadError, read
from stages.verifiers.math_spans import MAX_FINALS

_WORDS = (
    "ans", "final", "result", "solution", "response", "réponse", "reponse", "antwort", "respuesta",
    "risposta", "resposta", "ответ", "答案", "答え", "解答", "回答", "<answer", '"answer"', "answer",
)  # fmt: skip
# A label and what joins it to its value: "Result: 37", "Final result = 37", "Answer -> 37",
# "Answer — 37", "$$\\text{Answer} = 37$$", "回答：37", and a bare "A: 37" opening a line.
_LABEL = (
    r"(?:\\text\{[ \t]*)?(?:final[ \t]+)?(?:ans|answer|final|result|solution|response|r[ée]ponse"
    r"|antwort|respuesta|risposta|resposta|ответ)\}?"
)
_JOIN = r"[ \t*_]*(?:[:：=]|->|=>|→|⟶|—|–|-(?=[ \t]))"
_WEAK = re.compile(
    r"(?im)(?:^[ \t>*_#$-]*(?:"
    + _LABEL
    + r"|a(?=[ \t]*[:：]))"
    + _JOIN
    + r"|(?:答案|答え|解答|回答)[ \t]*[:：是为=]?"
    r"|<answer>|\"(?:final_?)?answer\"[ \t]*:|\|[ \t]*(?:final[ \t]+)?answer[ \t]*\|)[ \t*_]*"
)
_LINE_A = re.compile(r"(?im)^[ \t>*_#-]*a[ \t]*[:：]")


# What a weak form's value may run to: the end of its line, tag, cell or JSON value.
_VALUE = re.compile(r"[^\n<|}]{1,400}")
# A JSON value ends at its closing quote, or at the next "," or "}" ({"answer": 5, "answer": 6}).
_JSON_VALUE = re.compile(r'"(?:[^"\\\n]|\\.){1,400}"|[^,}\n]{1,400}')
_CLOSING = re.compile(r"[ \t\"]*(?:</answer>|\||\})?")  # the tag, cell or object it sits in
_SENTENCE_END = re.compile(r"[.!?。](?=\s|$)")
_TRIM = re.compile(r"^(?:\s|\$|\\\(|\\\[|\*\*|\")+|(?:\s|\$|\\\)|\\\]|\*\*|\.|,|\")+$")


def _windows(body: str) -> list[tuple[int, int]] | str:
    low = body.lower()
    if len(low) != len(body):  # a letter whose lower case is longer: scan it all
        return [(0, len(body))]
    windows = [(m.start(), m.end() + 40) for m in _LINE_A.finditer(body)]
    for word in _WORDS:
        i = low.find(word)
        while i >= 0:
            windows.append((max(0, i - 12), i + len(word) + 40))
            if len(windows) > 8 * MAX_FINALS:
                return f"more than {8 * MAX_FINALS} answer-like words"
            i = low.find(word, i + len(word))
    return sorted(windows)


def weak_finals(body: str) -> list[tuple[int, int, str]] | str:
    """(start, end, text) of each weak form whose value is one answer; a string says why there is
    no answer (too many of them)."""
    windows = _windows(body)
    if isinstance(windows, str):
        return windows
    found: dict[int, tuple[int, int, str]] = {}
    for lo, hi in windows:
        for m in _WEAK.finditer(body, lo, hi):
            value = (_JSON_VALUE if '"' in m.group() else _VALUE).match(body, m.end())
            text = _TRIM.sub("", _SENTENCE_END.split(value.group(), 1)[0]) if value else ""
            if m.start() in found or not text:
                continue
            try:
                read(text)
            except ReadError:
                continue  # prose after a heading ("Solution: Let x be ..."): not a commitment
            closing = _CLOSING.match(body, value.end())  # type: ignore[union-attr]
            found[m.start()] = (m.start(), closing.end(), text)  # type: ignore[union-attr]
            if len(found) > MAX_FINALS:
                return f"more than {MAX_FINALS} final answers"
    return [found[k] for k in sorted(found)]
