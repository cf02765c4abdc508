"""More notations of the judge's reply, and more ways a reason says its grade fails (red team
round 12).

`grade_form` finds a grade in a notation `judge_fence.GRADE_JSON` does not read: a header row
naming a rubric id and a verdict column in CSV or a LaTeX tabular (`id,passed,reason`,
`Rubric & Verdict \\\\`), an XML element for a rubric with a verdict attribute
(`<rubric id="1" result="pass"/>`), a JSON key for "passed" or "grades" in another language
(`{"评分": [{"编号": 1, "通过": true}]}`).

`reason_fails` reads a passing grade's reason (already normalised: NFKC, look-alikes read as ASCII,
tags dropped) for a failing verdict the opening-verdict check misses: a rubric labelled FAIL
("Rubric 1: FAIL - ..."), a zero score ("Score 0/1"), and "does not meet" in German, Spanish,
Portuguese, Italian, Russian, Japanese and Korean."""

from __future__ import annotations

import re

_F = re.IGNORECASE | re.MULTILINE
_GRADE_FORM = re.compile(
    # a header row: a rubric id column, then a verdict column (CSV, TSV, LaTeX &)
    r"^[ \t]*(?:rubric(?:[ _]?id)?|criteri(?:on|a)(?:[ _]?id)?|id)[ \t]*[,;\t&][ \t]*"
    r"(?:passed|pass|verdict|grade)(?![a-z])"
    # `id,status` is an order sheet too (red team round 15): a grade only with a verdict in a row
    r"|^[ \t]*(?:rubric(?:[ _]?id)?|criteri(?:on|a)(?:[ _]?id)?|id)[ \t]*[,;\t&][ \t]*(?:status|result)"
    r"(?![a-z])[^\n]{0,200}\n(?:[^\n]{0,200}\n){0,5}?[^\n]{0,200}[,;\t&][ \t]*"
    r"(?:pass(?:ed)?|fail(?:ed)?|true|false|yes|no|met|ok)[ \t]*(?:[,;\t&\n]|$)"
    # an element for a rubric with a verdict attribute
    r"|<\s*(?:rubric|criterion|grade|item)\b[^<>]{0,200}\b(?:result|passed|pass|verdict|status"
    r"|grade)\s*=\s*[\"']?\s*(?:pass(?:ed)?|fail(?:ed)?|true|false|yes|no|ok|met)(?![a-z])",
    _F,
)
# "passed" / "grades" as a JSON or YAML key in Chinese, Japanese, Korean, Russian
_FOREIGN_KEY = re.compile(
    r"[\"'\u201c\u300c]?(?:通过|是否通过|合格|已通过|パス|合否|통과|합격|пройден[оа]?|зачтено)"
    r"[\"'\u201d\u300d]?\s*[:：=]\s*[\"']?(?:true|false|yes|no|是|否|はい|いいえ|예|아니오|да|нет)"
    r"|[\"'\u201c\u300c](?:评分|成绩|评分结果|評価|採点|채점|평가|оценки)[\"'\u201d\u300d]\s*[:：]\s*[\[{]",
    _F,
)


def grade_form(text: str) -> bool:
    """Whether `text` holds a grade in one of the notations above."""
    return bool(_GRADE_FORM.search(text) or _FOREIGN_KEY.search(text))


_REASON_FAILS_MORE = re.compile(
    # Rubric 1: FAIL - ... / Criterion #2 -> not met
    r"\A[\W_]*(?:rubric|criterion|requirement|item)\s*#?\s*\d{1,3}\s*(?::|-|=|->|\u2192)\s*[\W_]*"
    r"(?:fail(?:ed|s)?|false|no|not\s+(?:met|satisfied|passed))(?![a-z])"
    # Score 0/1 / 0 out of 2 / 0 points
    r"|\A[\W_]*(?:(?:score|grade|mark|points?|rating|result)\s*[:=]?\s*)?0(?:\.0+)?\s*(?:/|out\s+of)"
    r"\s*\d|\b(?:score|grade|mark|rating)\s*[:=]?\s*0(?:\.0+)?\s*(?:/|out\s+of)\s*\d"
    r"|\b(?:erfullt|besteht|erreicht|trifft)\b[^.;,:\n]{0,40}?\bnicht\b(?=\s*(?:[.;,:!)\u2013-]|\Z))"
    r"|\bnicht\s+(?:erfullt|bestanden)"
    r"|\bno\s+(?:cumple|satisface|supera)\b|\bnao\s+(?:cumpre|atende|satisfaz)\b"
    r"|\bnon\s+(?:soddisfa|rispetta|supera)\b"
    # Dutch (red team round 15): "Voldoet niet", "niet voldaan", "onjuist", "klopt niet"
    r"|\bvoldoet\s+niet\b|\bniet\s+(?:voldaan|voldoende|gehaald|correct|juist)\b|\bonjuist\b"
    r"|\bklopt\s+niet\b|\bzakt\b|\bgezakt\b",
    re.IGNORECASE,
)
# read on the NFKC, case-folded form (the skeleton drops Japanese voicing marks)
_REASON_FAILS_PLAIN = re.compile(
    r"満たして(?:いない|いません|おらず)|満たさない|満たせていない|不合格|不正解|条件を満たしていない"
    r"|충족하지\s*(?:않|못)|불합격|не\s+(?:соответствует|удовлетворяет|выполнен|выполняет|отвечает)"
    r"|не\s+зачтено"
)


def reason_fails(skeleton_reason: str, plain_reason: str) -> bool:
    """Whether a passing grade's reason, read as its skeleton and its plain form, fails it."""
    return bool(
        _REASON_FAILS_MORE.search(skeleton_reason) or _REASON_FAILS_PLAIN.search(plain_reason)
    )
