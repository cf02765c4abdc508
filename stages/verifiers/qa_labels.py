"""How a QA response labels its answer, beyond `Answer: X` (red team round 21):

- the label in another language: `Réponse : Paris`, `Antwort: Berlin`, `Respuesta: Madrid`,
  `Ответ: Москва`, `答案：北京` (the languages `qa_doubt_languages` reads doubt in, and more);
- a heading with the answer on the next line: `**Final Answer**` / `### Answer` / `Answer`
  alone on its line, then the answer (one blank line between allowed). Whatever follows that
  line is text after the answer, as for `Answer:` (`qa_commit.after_answer`);
- a box: `\\boxed{Paris}` (also `$\\boxed{\\text{Paris}}$`) is its content, one answer with the
  box, not two that disagree;
- a choice named by its label: `Option C`, `option (B)`, `Choice: D` is the letter, where the
  gold is a letter alone.

Strict as before: a label is a whole line's start, a heading a whole line, a box the whole
answer; `Option C or D`, `Vitamin C` and `Options B and C` are no letter."""

from __future__ import annotations

import re
from collections.abc import Sequence

ANSWER_LABEL = (
    r"(?:final\s+answer|answer|r[ée]ponse(?:\s+finale)?|respuesta(?:\s+final)?"
    r"|resposta(?:\s+final)?|risposta(?:\s+finale)?|(?:end)?antwort|antwoord|odpowied[zź]"
    r"|odpov[eě]\u010f|\u043e\u0442\u0432\u0435\u0442|\u0432\u0456\u0434\u043f\u043e\u0432\u0456"
    r"\u0434\u044c|\u7b54\u6848|\u6700\u7ec8\u7b54\u6848|\u56de\u7b54|\u7b54\u3048|\u89e3\u7b54"
    r"|\uc815\ub2f5|\ub2f5|cevap|yan\u0131t|jawaban|svar|vastaus"
    r"|\u03b1\u03c0\u03ac\u03bd\u03c4\u03b7\u03c3\u03b7|\u0909\u0924\u094d\u0924\u0930"
    r"|\u0627\u0644\u0625\u062c\u0627\u0628\u0629|\u0627\u0644\u062c\u0648\u0627\u0628|jibu"
    r"|\u0111\u00e1p\s+\u00e1n|c\u00e2u\s+tr\u1ea3\s+l\u1eddi|tr\u1ea3\s+l\u1eddi)"
)
# a heading line holding the label only (`### Answer`, `**Final Answer**`, `Answer`), then the
# answer on the next line that holds anything, past at most one blank line
ANSWER_HEADING = re.compile(
    r"(?im)^[^\S\n]*+(?:#{1,6}[^\S\n]*+)?[*_]*+" + ANSWER_LABEL + r"[*_]*+[^\S\n]*+[:\uff1a]?[*_]*+"
    r"[^\S\n]*+\n(?:[^\S\n]*+\n)?[^\S\n]*+(\S.*)$"
)
_BOX = r"\\boxed\s*\{\s*(?:\\(?:text|textbf|mathrm|textrm|mbox)\s*\{([^{}]*)\}|([^{}]*))\s*\}"
BOXED = re.compile(_BOX)
_BOX_ONLY = re.compile(rf"\s*\$*\s*{_BOX}\s*\$*\s*[.!]?\s*")


def box_content(match: re.Match[str]) -> str:
    return match.group(1) if match.group(1) is not None else match.group(2)


def unboxed(answer: str) -> str:
    """`answer`'s content where it is one box and nothing else (`\\boxed{Paris}.`), else itself."""
    m = _BOX_ONLY.fullmatch(answer) if len(answer) < 400 else None
    return box_content(m).strip() if m else answer


_OPTION = re.compile(
    r"(?i)\s*[(\[]?\s*(?:option|choice|alternative|answer\s+choice)\s*[:#.\-]?\s*[(\[]?\s*([a-z])"
    r"\s*[)\]]?\s*[)\]]?\s*[.!]?\s*"
)
_LETTER = re.compile(r"\s*[(\[]?\s*([A-Za-z])\s*[)\]]?\s*[.!]?\s*")


def option_golds(golds: Sequence[str]) -> list[str]:
    """The letter of each gold written `Option C`: the answer `C` names it too."""
    return [m.group(1) for g in golds if len(g) < 60 and (m := _OPTION.fullmatch(g))]


def option_letter(answer: str, golds: Sequence[str]) -> str:
    """The letter an `Option C` answer names, where a gold is a letter alone; else `answer`."""
    m = _OPTION.fullmatch(answer) if len(answer) < 60 else None
    if m and any(_LETTER.fullmatch(g) for g in golds):
        return m.group(1)
    return answer
