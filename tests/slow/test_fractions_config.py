"""configs/fractions.toml, run exactly as shipped (no shortening overrides): the LaTeX-answer
family gains held-out on the embedded model (issue 15's target: +10 points), keeps the capability
benchmark, and every gate passes; calibration counts no answer as a false positive (another task's
`\\frac{15}{3}` equals 4/2+6/2 and is right, not a verifier mistake)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.slow.runs import events, only_run, rlvr, state

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# Measured +45.4 points (seed 0, 1,000 SFT steps); the target is +10.
MIN_GAIN = 0.10


def test_the_fractions_config_runs_as_shipped_with_a_held_out_gain(tmp_path: Path) -> None:
    started = time.monotonic()
    result = rlvr("run", str(ROOT / "configs/fractions.toml"), cwd=tmp_path, timeout=900)
    seconds = time.monotonic() - started
    store = tmp_path / "runs" / "events.db"
    run_id = only_run(store)
    gates = [e.event for e in events(store, run_id, "GateEvaluated")]
    assert result.returncode == 0 and all(g.passed for g in gates), (
        [g.gate for g in gates if not g.passed],
        result.stderr[-3000:],
    )
    final = state(store, run_id)
    gain = final.last_eval["verify_rate"] - final.baseline_verify_rate
    retention = final.last_eval["capability"]["reverse"] / final.baseline_capability["reverse"]
    print(f"fractions: {seconds:.0f} s, baseline {final.baseline_verify_rate:.3f}, "
          f"final {final.last_eval['verify_rate']:.3f}, gain {gain:+.3f}, retention {retention:.3f}")  # fmt: skip
    assert gain >= MIN_GAIN and retention >= 0.95
    (calibrated,) = [json.loads(e.payload) for e in events(store, run_id, "VerifierCalibrated")]
    assert calibrated["false_positive_rate"] == 0.0, calibrated["accepted_wrong"]
    # Stage 3's adversary made wrong variants of every sampled \\frac reference; none passed.
    assert calibrated["adversary_variants"] > 0 and calibrated["accepted_hack_kinds"] == {}
