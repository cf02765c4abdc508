"""Red team round 16 (issue 27): the shared half of 29 code cases a helper who saw only the code
wrote against the sandboxed verifier after round 15's fixes (the held-out half stays outside the
project). They arrived at the end of the session; none is fixed yet, so each wrong judgement is a
strict xfail naming the code path at fault (from the attacker's report). Eight hacks are paid: a
returned builtin subclass that overrides a comparison, a method, its truth value or its type is
judged as its plain base outside the sandbox; an input read left of the call that mutates it, or
passed inside a list display or a starred argument, is read as written; `zip` draws a generator
past what Python would. Seven correct programs are refused or unverifiable: a membership test or a
report past the harness's draw or size limits, nesting past 50, a returned `re.Match`, a helper in
an earlier code block, a lambda argument."""

from __future__ import annotations

from pathlib import Path

import pytest
from red_team_cases import check, load, params

DATA = Path(__file__).parent / "data"
CASES = load(DATA / "adversarial_round16_code.jsonl")
_SUBCLASS = (
    "open: a returned builtin subclass is encoded as its base (code_harness HARNESS enc) and {} "
    "is judged outside the sandbox on the plain value (code_trusted.evaluate)"
)
_UNSHARED = "open: an input passed {} is not shared (code_parts.shared_inputs takes bare names)"
_LIMIT = "open: {} (code_harness / sandbox limits) fails a correct program instead of unverifiable"
OPEN = {
    "c16-001": _SUBCLASS.format("its own __eq__"),
    "c16-003": _SUBCLASS.format("its own startswith"),
    "c16-005": _SUBCLASS.format("its own __bool__"),
    "c16-007": _SUBCLASS.format("type(value)"),
    "c16-009": "open: the left operand of `nums == f(nums)` is read before the call "
    "(code_inputs.evaluation_order), though Python compares the object the call mutated",
    "c16-011": _UNSHARED.format("inside a list display (f([xs]))"),
    "c16-013": _UNSHARED.format("as a starred argument (f(*args))"),
    "c16-015": "open: zip draws a generator up to 10,000 items (code_harness enc_iter); only "
    "islice is bounded (code_sandboxed.islice_draws)",
    "c16-017": _LIMIT.format("reading past the 10,000 items sent back (code_values._Replay)"),
    "c16-019": _LIMIT.format("a report past max_output_bytes taken for a forged report"),
    "c16-021": _LIMIT.format("a value nested past 50 levels"),
    "c16-023": _LIMIT.format("a whole 400,000-item list past max_output_bytes"),
    "c16-025": "open: a returned re.Match has no plain form (enc_static) though only its truth "
    "value is tested",
    "c16-027": "open: code_blocks.extract_code runs the last block; a helper in an earlier block "
    "is read as a second definition",
    "c16-029": "open: a lambda argument makes the call unverifiable (code_tests._placeholder)",
}


@pytest.mark.parametrize("case", params(CASES, OPEN))
def test_case(case: dict) -> None:
    check(case)
