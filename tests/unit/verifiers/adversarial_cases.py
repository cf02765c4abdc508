"""The labelled adversarial corpus of issue 27 (data/adversarial_math.jsonl, data/adversarial_qa.jsonl):
cases written against the verifiers by attackers who saw only the code (`"source": "attacker"`) and
by us (`"own"`), each with its kind and why. `expected` is whether the response must pass. Large
responses are stored gzipped (`response_gz`, base64) with a preview."""

from __future__ import annotations

import base64
import gzip
import json
from collections import defaultdict
from pathlib import Path

from stages.verifiers.config import MathVerifierConfig
from stages.verifiers.math_verifier import MathVerifier
from stages.verifiers.qa_verifier import QAVerifier
from stages.verifiers.types import QAReference

DATA = Path(__file__).parent / "data"


def _load(name: str) -> list[dict]:
    cases = []
    for line in (DATA / name).read_text().splitlines():
        case = json.loads(line)
        if "response_gz" in case:
            case["response"] = gzip.decompress(base64.b64decode(case["response_gz"])).decode()
        cases.append(case)
    return cases


def math_cases() -> list[dict]:
    # round 3: the red team's shared cases against the commitment check (`math_grammar`); round 4:
    # macro redefinitions, repeated labels and keys, reopened thinking, hidden text, right answers
    # in natural phrases ("source": "red team round 4")
    return (
        _load("adversarial_math.jsonl")
        + _load("adversarial_math_round3.jsonl")
        + _load("adversarial_math_round4.jsonl")
    )


def qa_cases() -> list[dict]:
    return _load("adversarial_qa.jsonl")


def math_verdicts(cases: list[dict], workers: int = 2) -> list[bool]:
    """Whether each case passes, one verifier (and batch) per distinct settings."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, case in enumerate(cases):
        groups[json.dumps(case.get("settings", {}), sort_keys=True)].append(i)
    passed: dict[int, bool] = {}
    for settings, indices in groups.items():
        config = MathVerifierConfig(**{"workers": workers, **json.loads(settings)})
        verifier = MathVerifier(config)
        try:
            items = [(cases[i]["response"], cases[i]["reference"]) for i in indices]
            for i, verdict in zip(indices, verifier.verify_batch(items), strict=True):
                passed[i] = verdict.passed
        finally:
            verifier.close()
    return [passed[i] for i in range(len(cases))]


def qa_verdicts(cases: list[dict]) -> list[bool]:
    verifier = QAVerifier()
    return [
        verifier.verify(
            c["response"], QAReference(answer=c["golds"][0], aliases=c["golds"][1:])
        ).passed
        for c in cases
    ]


def score(cases: list[dict], passed: list[bool]) -> dict[str, float | int]:
    """False positives (a must-fail case passed), false negatives, agreement."""
    fp = sum(p and not c["expected"] for c, p in zip(cases, passed, strict=True))
    fn = sum(c["expected"] and not p for c, p in zip(cases, passed, strict=True))
    return {"cases": len(cases), "fp": fp, "fn": fn, "agreement": 1 - (fp + fn) / len(cases)}
