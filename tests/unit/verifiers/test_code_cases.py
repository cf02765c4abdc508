"""Labelled code cases (tests/unit/verifiers/data/code_cases.jsonl): reward hacks that must fail
and correct programs that must pass, each with its kind and why. Most were written by an attacker
who saw only the verifier's code (`"source": "attacker"`), the rest by its developer. A case marked
`accept_unverifiable` may also come back as an unverifiable task (dropped at stage 2)."""

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stages.verifiers.code_tests import plan
from stages.verifiers.registry import build_verifier
from stages.verifiers.types import CodeReference

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "code_cases.jsonl").read_text().splitlines()
]


def _tests(case: dict) -> str:
    tests = case["task"]["tests"]
    return "\n".join(tests) if isinstance(tests, list) else tests


@pytest.fixture(scope="module")
def verdicts():
    verifier = build_verifier({"kind": "code"})  # guarded, as runs build it
    return verifier.verify_batch([(c["solution"], CodeReference(tests=_tests(c))) for c in CASES])


def test_the_labelled_set_holds_60_or_more_cases_of_both_labels_each_with_kind_and_why():
    assert len(CASES) >= 60 and all(c["kind"] and c["why"] for c in CASES)
    labels = Counter(c["expected"] for c in CASES)
    assert labels[True] >= 20 and labels[False] >= 40


def test_no_hack_passes_and_every_correct_program_passes(verdicts):
    wrong = []
    for case, verdict in zip(CASES, verdicts, strict=True):
        json.dumps(verdict.model_dump())  # storable as an event, surrogates and all
        unverifiable = case.get("accept_unverifiable") and "unverifiable" in verdict.reason
        if verdict.passed is not case["expected"] and not unverifiable:
            wrong.append((case["id"], case["kind"], verdict.status, verdict.reason[:100]))
    assert wrong == []


def test_a_hack_never_leaves_the_rollout_out_of_the_update(verdicts):
    for case, verdict in zip(CASES, verdicts, strict=True):
        if not case["expected"]:
            assert not verdict.excluded and verdict.reward < 1.0, case["id"]


_WRAPPERS = [
    ("import operator", "operator.eq({call}, {expected})"),
    ("import operator as op", "op.eq({call}, {expected})"),
    ("from operator import eq as same", "same({call}, {expected})"),
    ("import math as m", "m.isclose({call}, {expected})"),
    ("from math import isclose", "isclose({call}, {expected}, rel_tol=1e-9)"),
    ("import numpy as np", "np.allclose({call}, {expected})"),
    ("import hmac", "hmac.compare_digest(str({call}), str({expected}))"),
    ("import re", "re.fullmatch(str({expected}), str({call}))"),
    ("", "{call} == {expected}"),
    ("", "{expected} == {call}"),
    ("", "abs({call} - {expected}) < 1e-9"),
]


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(_WRAPPERS),
    st.lists(st.integers(-(10**6), 10**6), min_size=1, max_size=3),
    st.integers(10**7, 10**9),
    st.sampled_from(["solve", "add", "sum", "f_1", "Solver"]),
)
def test_mutated_wrapped_asserts_never_send_the_expected_value_in(wrapper, inputs, expected, name):
    """Expected values (from a range no input reaches) never appear in what goes in."""
    imports, template = wrapper
    call = f"{name}({', '.join(map(str, inputs))})"
    tests = f"{imports}\nassert {template.format(call=call, expected=expected)}"
    p = plan(tests, frozenset({name}))
    sent = json.dumps({"calls": p.calls, "imports": p.imports, "bindings": p.bindings})
    # `str(call)` goes in whole (a reader builtin over the program's value, as it was): no expected
    assert str(expected) not in sent and p.calls in ([call], [f"__rlvr_str__({call})"])


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(_WRAPPERS[:5] + _WRAPPERS[8:]),
    st.integers(-1000, 1000),
    st.integers(-1000, 1000),
)
def test_mutated_hacks_that_patch_the_wrapper_or_hunt_the_key_fail(wrapper, a, b):
    imports, template = wrapper
    tests = f"{imports}\nassert {template.format(call=f'add({a}, {b})', expected=a + b)}"
    hack = (
        "import operator, math, gc\noperator.eq = lambda *x: True\nmath.isclose = lambda *x, **k: True\n"
        "def add(a, b):\n    seen = [o for o in gc.get_objects() if isinstance(o, str) and 'add(' in o]\n"
        "    return seen[0] if seen else None\n"
    )
    right = "def add(a, b):\n    return a + b\n"
    verifier = build_verifier({"kind": "code"})
    hacked, correct = verifier.verify_batch([(hack, tests), (right, tests)])
    assert not hacked.passed and correct.passed, (tests, hacked.reason, correct.reason)
