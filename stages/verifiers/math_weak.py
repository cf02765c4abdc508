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
    "antwoord", "cevap", "jawaban", "jawapan", "odpowied", "svar", "vastaus", "odpov", "válasz",
    "απάντηση", "תשובה", "الجواب", "الإجابة", "उत्तर", "đáp án", "정답",
)  # fmt: skip
# A label and what joins it to its value: "Result: 37", "Final result = 37", "Answer -> 37",
# "Answer — 37", "$$\\text{Answer} = 37$$", "回答：37", and a bare "A: 37" opening a line.
_LABEL = (
    r"(?:\\text\{[ \t]*)?(?:final[ \t]+)?(?:ans|answer|final|result|solution|response|r[ée]ponse"
    r"|antwort|respuesta|risposta|resposta|ответ|antwoord|cevap|jawab(?:an)?|jawapan|odpowied[zź]"
    r"|svar|vastaus|odpov[eě]ď?|v[aá]lasz|απάντηση|תשובה|الجواب|الإجابة|उत्तर|đáp[ \t]+án|정답)\}?"
)
# "Die Antwort ist 5.", "La réponse est 5." (the English phrases are `math_extract`'s markers)
_COPULA = (
    r"\b(?:die[ \t]+antwort[ \t]+ist|la[ \t]+r[ée]ponse[ \t]+est|la[ \t]+respuesta[ \t]+es"
    r"|la[ \t]+risposta[ \t]+[èe]|a[ \t]+resposta[ \t]+[ée]|het[ \t]+antwoord[ \t]+is)[ \t]*:?"
)
_JOIN = r"[ \t*_]*(?:[:：=]|->|=>|→|⟶|—|–|-(?=[ \t]))"
_WEAK = re.compile(
    r"(?im)(?:^[ \t>*_#$-]*(?:"
    + _LABEL
    + r"|a(?=[ \t]*[:：]))"
    + _JOIN
    + r"|(?:答案|答え|解答|回答)[ \t]*[:：是为=]?"
    r"|<answer>|\"(?:final_?)?answer\"[ \t]*:|\|[ \t]*(?:final[ \t]+)?answer[ \t]*\||"
    + _COPULA
    + r")[ \t*_]*"
)
_LINE_A = re.compile(r"(?im)^[ \t>*_#-]*a[ \t]*[:：]")
# "A: 42" followed by a line "B: 44" lists options (or a variable's values): no answer line
# (red team rounds 11 and 15). The rest of the line is a bounded run of one line: linear.
_BARE_A = re.compile(r"(?i)[ \t>*_#$-]*a[ \t*_]*[:：]")
_NEXT_B = re.compile(r"(?i)[^\n]*\n[ \t>*_#$-]*b[ \t*_]*[:：]")


# What a weak form's value may run to: the end of its line (a label: "Final: |-3| = 3",
# "答案：$\frac{1}{2}$"), tag or table cell, or JSON value.
_VALUE = re.compile(r"[^\n]{1,400}")
_TAG_VALUE = re.compile(r"[^\n<]{1,400}")
_CELL_VALUE = re.compile(r"[^\n|]{1,400}")
# A JSON value ends at its closing quote, or at the next "," or "}" ({"answer": 5, "answer": 6}).
_JSON_VALUE = re.compile(r'"(?:[^"\\\n]|\\.){1,400}"|[^,}\n]{1,400}')
_CLOSING = re.compile(r"[ \t\"]*(?:</answer>|\||\})?")  # the tag, cell or object it sits in
_SENTENCE_END = re.compile(r"(?:[.?。]|(?<!\d)!)(?=\s|$)")  # "5!" is a factorial, not an end
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


def _value_pattern(form: str) -> re.Pattern[str]:
    if '"' in form:
        return _JSON_VALUE
    if "<" in form:
        return _TAG_VALUE
    return _CELL_VALUE if "|" in form else _VALUE


def weak_finals(body: str) -> list[tuple[int, int, str]] | str:
    """(start, end, text) of each weak form whose value is one answer; a string says why there is
    no answer (too many of them)."""
    windows = _windows(body)
    if isinstance(windows, str):
        return windows
    found: dict[int, tuple[int, int, str]] = {}
    for lo, hi in windows:
        for m in _WEAK.finditer(body, lo, hi):
            value = _value_pattern(m.group()).match(body, m.end())
            cut = _SENTENCE_END.search(value.group()) if value else None
            text = (
                _TRIM.sub("", value.group()[: cut.start()] if cut else value.group())
                if value
                else ""
            )
            if m.start() in found or not text or _listed_option(body, m):
                continue
            try:
                read(text)
            except ReadError:
                continue  # prose after a heading ("Solution: Let x be ..."): not a commitment
            # The final ends with its first sentence: the rest of its line ("Result: 5. No wait,
            # it's 6.") is text after the final answer and is checked as such (red team round 12).
            end = m.end() + cut.start() if cut else _CLOSING.match(body, value.end()).end()  # type: ignore[union-attr]
            found[m.start()] = (m.start(), end, text)
            if len(found) > MAX_FINALS:
                return f"more than {MAX_FINALS} final answers"
    return [found[k] for k in sorted(found)]


def _listed_option(body: str, m: re.Match[str]) -> bool:
    """A bare "A:" line whose next line opens with "B:": an option of a list, not an answer."""
    return bool(_BARE_A.fullmatch(m.group().rstrip(" \t*_"))) and bool(_NEXT_B.match(body, m.end()))
