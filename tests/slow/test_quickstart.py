"""The embedded default end to end, as a new user runs it: `rlvr run configs/quickstart.toml`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.slow.runs import events, rlvr, state

pytestmark = pytest.mark.slow

# The issue asks for +20 points; seeds 0-2 (and SFT seed 1) measured +0.215..+0.218 over a 0.5775
# baseline, KL gate 0.03-0.07, so the test keeps a margin.
MIN_GAIN = 0.15


@pytest.fixture(scope="module")
def quickstart(readme_quickstart) -> tuple[Path, str, float, str]:
    """The README's quick start command, as typed in a fresh folder (tests/slow/conftest.py)."""
    run = readme_quickstart
    return run.store, run.run_id, run.seconds, run.stdout


def test_the_quickstart_completes_with_a_held_out_gain_and_retention(quickstart) -> None:
    store, run_id, seconds, stdout = quickstart
    final = state(store, run_id)
    assert final.state == "completed"
    gain = final.last_eval["verify_rate"] - final.baseline_verify_rate
    retention = final.last_eval["capability"]["reverse"] / final.baseline_capability["reverse"]
    print(f"quickstart: {seconds:.0f} s, baseline {final.baseline_verify_rate:.3f}, "
          f"final {final.last_eval['verify_rate']:.3f}, gain {gain:+.3f}, retention {retention:.3f}")  # fmt: skip
    assert gain >= MIN_GAIN
    assert retention >= 0.95
    assert "held-out verify rate: baseline" in stdout and "capability retention, reverse" in stdout


def test_every_gate_cites_evidence_that_exists_in_the_log(quickstart) -> None:
    store, run_id, _, _ = quickstart
    seqs = {e.seq for e in events(store, run_id)}
    gates = events(store, run_id, "GateEvaluated")
    assert len(gates) >= 8
    for gate in gates:
        assert gate.event.evidence_seqs, gate.event.gate
        assert set(gate.event.evidence_seqs) <= seqs


def test_stage_3s_adversary_attacked_the_verifier_and_found_no_hole(quickstart) -> None:
    store, run_id, _, _ = quickstart
    (calibrated,) = [e.event for e in events(store, run_id, "VerifierCalibrated")]
    assert calibrated.adversary_variants > 1000 and calibrated.accepted_hack_kinds == {}
    assert calibrated.right_variant_pass_rate == 1.0
    assert {k for k in calibrated.by_kind if k.startswith("adversary:")} >= {
        "adversary:hedge", "adversary:retraction", "adversary:unicode", "adversary:control_tokens"
    }  # fmt: skip


def test_status_json_reports_the_run(quickstart) -> None:
    store, run_id, _, _ = quickstart
    result = rlvr("status", run_id, "--json", "--store", str(store), cwd=store.parent, check=True)
    status = json.loads(result.stdout)
    for key in ("state", "step", "baseline_verify_rate", "final_verify_rate", "capability_retention",
                "gates", "policy_decisions"):  # fmt: skip
        assert key in status, key
    assert status["state"] == "completed"
    assert {"name", "value", "threshold", "passed"} <= set(status["gates"][0])
    assert status["capability_retention"]["reverse"] >= 0.95
