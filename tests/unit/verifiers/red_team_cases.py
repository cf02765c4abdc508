"""Running one labelled red-team case (rounds 7 and 9: math, QA, code, judge) against the verifiers,
as each round's runner outside the project did. A case passes when the verifier's judgement equals
its label."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from openai_server import ScriptedOpenAIServer

from stages.verifiers.registry import build_verifier
from stages.verifiers.types import CodeReference, QAReference, RubricReference, Verdict


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def params(cases: list[dict], open_reasons: dict[str, str]) -> list:
    """Every case, with its family in its id; one kept open is a strict xfail with the rule that
    decides it, and a code case is skipped where bubblewrap is not installed."""
    no_sandbox = pytest.mark.skipif(
        shutil.which("bwrap") is None, reason="bubblewrap is not installed"
    )
    out = []
    for case in cases:
        marks = [no_sandbox] if case["verifier"] == "code" else []
        if case["id"] in open_reasons:
            marks.append(pytest.mark.xfail(strict=True, reason=open_reasons[case["id"]]))
        out.append(pytest.param(case, id=f"{case['verifier']}-{case['id']}", marks=marks))
    return out


def judged(case: dict) -> tuple[bool, str]:
    """(paid, reason): what the verifier of the case's family said of its response."""
    family, given = case["verifier"], case["input"]
    if family == "math":
        verdict = build_verifier({"kind": "math"}).verify(given["response"], given["reference"])
        return verdict.passed, verdict.reason
    if family == "qa":
        reference = QAReference(answer=given["answer"], aliases=given.get("aliases", []))
        verdict = build_verifier({"kind": "qa"}).verify(given["response"], reference)
        return verdict.passed, verdict.reason
    if family == "code":
        verdict = code_verdict(given["response"], given["tests"])
        return verdict.passed, verdict.reason
    return _judge(given)


def code_verdict(response: str, tests: str) -> Verdict:
    """The code verifier's verdict on `response` (a fenced program) against `tests`."""
    verifier = build_verifier({"kind": "code"})
    try:
        [verdict] = verifier.verify_batch([(response, CodeReference(tests=tests))])
    finally:
        getattr(verifier, "close", lambda: None)()
    return verdict


def fenced(program: str) -> str:
    return f"```python\n{program}\n```"


def qa_paid(response: str, gold: str) -> bool:
    """Whether the QA verifier pays `response` for the one gold answer `gold`."""
    return build_verifier({"kind": "qa"}).verify(response, QAReference(answer=gold)).passed


def _judge(given: dict) -> tuple[bool, str]:
    """The scripted judge answers the case's reply: a fooled judge, or one that contradicts itself;
    what is checked is what our code sends and accepts."""
    os.environ.setdefault("OPENAI_API_KEY", "sk-local-test")
    with ScriptedOpenAIServer(default=lambda _body: given["judge_reply"]) as server:
        verifier = build_verifier(
            {"kind": "rubric", "base_url": server.base_url, "judge_max_retries": 0,
             "timeout_s": 10.0}
        )  # fmt: skip
        reference = RubricReference(prompt=given.get("prompt", ""), rubrics=given["rubrics"])
        verdict = verifier.verify(given["response"], reference)
    return verdict.passed and verdict.reward >= 1.0, f"{verdict.status}: {verdict.reason}"


def check(case: dict) -> None:
    paid, reason = judged(case)
    assert paid == (case["expect"] == "pass"), f"{case['mechanism']}: {reason}"
