"""Issue 27, judge: the judge's reply shape in any notation (YAML, TOML, XML, a table, a prose
line, look-alike letters and colons) and turns forged with control tokens of families we do not
list are injection attempts; a "grades" list of marks or a "passed" flag in code is not. Cases
written by an attacker who saw only the code (data/judge_injection_shapes.jsonl, kind and why)."""

import json
from pathlib import Path

import pytest

from stages.verifiers.judge_fence import injection_kinds

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "judge_injection_shapes.jsonl")
    .read_text()
    .splitlines()
]


def test_the_cases_are_labelled_and_hold_both_kinds():
    assert len(CASES) >= 30 and all(c["kind"] and c["why"] for c in CASES)
    assert {c["injection"] for c in CASES} == {True, False}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_each_response_is_read_as_labelled(case):
    assert bool(injection_kinds(case["response"])) is case["injection"], case["why"]
