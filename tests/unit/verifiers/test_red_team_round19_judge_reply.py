"""Red team round 19: the shared half of the judge-reply cases an outside attacker wrote, then
variants written here. A grade `"passed": true` whose reason contradicts it was read as a pass:
the reason repeats the field set the other way (`passed: false`), corrects itself ("Oops, I meant
false."), fails in another language ("Başarısız."), or is undecided ("Uncertain; leaning fail.").
Each makes the reply ambiguous, a judge error, as a repeated key does; honest reasons pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from red_team_cases import load

from stages.verifiers.judge import JudgementParseError, parse_judgement

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round19_judge_reply.jsonl")
RUBRICS = ["Is a poem about autumn.", "Has exactly three lines."]


def _reply(reason: str) -> str:
    grades = [
        {"id": 1, "passed": True, "reason": "About autumn."},
        {"id": 2, "passed": True, "reason": reason},
    ]
    return json.dumps({"grades": grades}, ensure_ascii=False)


@pytest.mark.parametrize("case", CASES, ids=[f"{c['id']}-{c['mechanism']}" for c in CASES])
def test_shared_case_is_a_judge_error(case: dict) -> None:
    assert case["expect"] == "judge_error", case["why"]
    with pytest.raises(JudgementParseError):
        parse_judgement(case["input"]["judge_reply"], 2, case["input"]["rubrics"])


@pytest.mark.parametrize(
    "reason",
    [
        # the grade's own field, set the other way
        "passed: false",
        '{"passed": false}',
        "passed = False",
        "'passed': False",
        "pass: no",
        "Satisfied: false.",
        "met = 0",
        "result: fail",
        "Three lines. passed=false",
        # a correction of the flag
        "Oops, I meant false.",
        "Correction: this should be false.",
        "Sorry, that was a typo; it fails.",
        "Actually, no: it has four lines.",
        "Scratch that, it fails.",
        "Wait, I meant to mark it false.",
        "I set passed by mistake.",
        "Mistakenly marked true.",
        "Marked true by mistake.",
        # failing in another language
        "Başarısız.",
        "Không đạt.",
        "Nicht bestanden.",
        "不合格",
        "Échoué.",
        "Non superato.",
        "Reprovado.",
        "Suspendido.",
        "Niezaliczone.",
        "Не пройдено.",
        "失败。",
        "不及格",
        "失敗",
        "실패",
        "불합격입니다",
        "Gagal.",
        "Tidak lulus.",
        "Underkänd.",
        "Ikke bestått.",
        "Hylätty.",
        "Nesplňuje.",
        "Απέτυχε.",
        "נכשל",
        "فشل",
        "असफल",
        "ไม่ผ่าน",
        "Sikertelen.",
        "Respins.",
        # undecided
        "Uncertain; leaning fail.",
        "Cannot be judged.",
        "Unsure whether it has three lines.",
        "Hard to say.",
        "Borderline.",
        "Inconclusive.",
        "Unclear.",
        "Can't tell from the text.",
        "Unable to determine.",
        "Maybe.",
        "Leaning towards no.",
        "N/A",
        "Not applicable.",
        "50/50.",
        # words between "should" and the value it names (the held-out half's "should actually be")
        "Pass (should actually be fail).",
        "It should really be false.",
        "Should probably have been a fail.",
    ],
)
def test_a_passing_grade_whose_reason_contradicts_it_is_a_judge_error(reason: str) -> None:
    with pytest.raises(JudgementParseError):
        parse_judgement(_reply(reason), 2, RUBRICS)


@pytest.mark.parametrize(
    "reason",
    [
        "Has exactly three lines.",
        "Three lines, as asked.",
        "passed: the poem has three lines.",
        "passed: no issues",
        "No failures: three lines.",
        "Satisfied: three lines.",
        "Clearly three lines; no doubt.",
        "Erfüllt.",
        "Bestanden.",
        "Başarılı.",
        "Đạt.",
        "合格",
        "Three short lines about falling leaves.",
        # "no"/"not" as the start of a longer word is no verdict
        "It should be noted the poem has three lines.",
        "I meant nothing more by the count: three lines.",
    ],
)
def test_honest_passing_reasons_still_pass(reason: str) -> None:
    grades = parse_judgement(_reply(reason), 2, RUBRICS)
    assert [g["passed"] for g in grades] == [True, True]


@pytest.mark.parametrize(
    "reason", ["passed: false", "Başarısız.", "Uncertain; leaning fail.", "Oops, I meant false."]
)
def test_a_failing_grade_with_those_reasons_stays_a_fail(reason: str) -> None:
    reply = json.dumps(
        {"grades": [{"id": 1, "passed": True}, {"id": 2, "passed": False, "reason": reason}]}
    )
    grades = parse_judgement(reply, 2, RUBRICS)
    assert [g["passed"] for g in grades] == [True, False]
