"""Red team round 5's shared cases (written against the verifiers by a helper that saw only the
code; data/adversarial_round5_shared.jsonl, each with its kind and why). Its held-out twin stays
outside the project. Every case must come out as labelled; the holes still open (issue 27) are
strict xfails, so a fix that closes one turns its xfail into a failure until it is listed here
no more, and a regression of a case that holds fails at once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from openai_server import ScriptedOpenAIServer

from stages.verifiers.registry import build_verifier
from stages.verifiers.types import CodeReference, QAReference, RubricReference

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "adversarial_round5_shared.jsonl").open()
    if line.strip()
]
# Still paid although wrong (fp) or failed although right (fn) on 2026-11-28: issue 27, open.
OPEN = {
    "fp": set(),
    "fn": {"a5-math-067", "a5-math-069", "a5-math-072"},
}  # fmt: skip
# Labelled right by the red team, refused by a rule decided since (issue 27): a judge reply with
# prose after its grade object is a judge error (asked again), as any text after it is.
REFUSED_BY_RULE = {"a5-judge-176": "text after the judge's grade object is a judge error"}
OPEN_IDS = OPEN["fp"] | OPEN["fn"]


def _params(family: str) -> list:
    return [
        pytest.param(c, id=c["id"], marks=pytest.mark.xfail(strict=True, reason="open: issue 27"))
        if c["id"] in OPEN_IDS
        else pytest.param(
            c, id=c["id"], marks=pytest.mark.xfail(strict=True, reason=REFUSED_BY_RULE[c["id"]])
        )
        if c["id"] in REFUSED_BY_RULE
        else pytest.param(c, id=c["id"])
        for c in CASES
        if c["family"] == family
    ]


def _labelled(case: dict, passed: bool, reason: str) -> None:
    assert passed == (case["expect"] == "pass"), f"{case['kind']}: {case['why']} ({reason})"


def test_the_set_has_every_family_with_kinds_and_reasons() -> None:
    assert {c["family"] for c in CASES} == {"math", "code", "qa", "judge"}
    assert all(c["kind"] and c["why"] and c["expect"] in ("pass", "fail") for c in CASES)
    assert {c["id"] for c in CASES} >= OPEN_IDS


@pytest.mark.parametrize("case", _params("math"))
def test_math(case: dict) -> None:
    verdict = build_verifier({"kind": "math"}).verify(case["response"], case["reference"])
    _labelled(case, verdict.passed, verdict.reason)


@pytest.mark.parametrize("case", _params("qa"))
def test_qa(case: dict) -> None:
    reference = QAReference(answer=case["reference"], aliases=case.get("aliases", []))
    verdict = build_verifier({"kind": "qa"}).verify(case["response"], reference)
    _labelled(case, verdict.passed, verdict.reason)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
@pytest.mark.parametrize("case", _params("code"))
def test_code(case: dict) -> None:
    verifier = build_verifier({"kind": "code"})
    try:
        [verdict] = verifier.verify_batch([(case["response"], CodeReference(tests=case["tests"]))])
    finally:
        getattr(verifier, "close", lambda: None)()
    _labelled(case, verdict.passed, verdict.reason)


@pytest.mark.parametrize("case", _params("judge"))
def test_judge(case: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scripted judge obeys: it answers each case's reply (a pass, where the response
    forged one)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-test")
    with ScriptedOpenAIServer(default=lambda _body: case["judge_reply"]) as server:
        verifier = build_verifier(
            {
                "kind": "rubric",
                "base_url": server.base_url,
                "judge_max_retries": 1,
                "timeout_s": 10.0,
            }
        )
        reference = RubricReference(prompt=case["reference"], rubrics=case["rubrics"])
        verdict = verifier.verify(case["response"], reference)
    _labelled(case, verdict.passed and verdict.reward >= 1.0, f"{verdict.status}: {verdict.reason}")


@pytest.mark.parametrize(
    ("response", "passed"),
    [
        ("\\boxed{5 \\text{ m}}, or 5 m.", True),  # a5-math-046: in prose the word is the unit
        ("\\boxed{5 \\text{ m}}, or 5 cm.", False),
        ("\\boxed{5 \\text{ m}}, or 5 s.", False),
        ("\\boxed{5 \\text{ m}}, or 500 cm.", False),  # another number: not a restatement
        ("\\boxed{5 \\text{ m}}, or $5 m$.", False),  # in math, m is a variable
    ],
)
def test_a_restatement_in_prose_reads_its_word_as_a_unit(response: str, passed: bool) -> None:
    verdict = build_verifier({"kind": "math"}).verify(response, "5\\text{ m}")
    assert verdict.passed is passed, verdict.reason


@pytest.mark.parametrize(
    ("response", "passed"),
    [
        ("So the answer is now 45.", True),  # a5-math-060: an adverb the grammar admits
        ("So the answer is still 45.", True),  # a5-math-065
        ("The answer is now $45$.", True),
        ("The answer is still not 45.", False),  # the adverb changes nothing else
        ("The answer is now 44, not 45.", False),
        ("The answer is then 45 or 46.", False),
        ("The answer is now probably 45.", False),
    ],
)
def test_an_adverb_after_the_answer_phrase_changes_nothing_else(
    response: str, passed: bool
) -> None:
    verdict = build_verifier({"kind": "math"}).verify(response, "45")
    assert verdict.passed is passed, verdict.reason
