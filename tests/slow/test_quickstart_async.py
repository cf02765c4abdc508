"""The quickstart with asynchronous rollouts (`grpo.max_staleness=1`) keeps what the on-policy
quickstart gives: a held-out gain of at least 20 points, capability retention of at least 95%,
and every gate passed; each batch is logged as sampled by the weights of the step before."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.slow.runs import QUICKSTART, ROOT, events, only_run, rlvr, state

pytestmark = pytest.mark.slow


def test_the_async_quickstart_keeps_its_gain_retention_and_gates(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    rlvr("run", str(QUICKSTART), "grpo.max_staleness=1", cwd=tmp_path, timeout=2400, check=True)
    store = tmp_path / "runs" / "events.db"
    run_id = only_run(store)
    final = state(store, run_id)
    assert final.state == "completed"
    gain = final.last_eval["verify_rate"] - final.baseline_verify_rate
    retention = final.last_eval["capability"]["reverse"] / final.baseline_capability["reverse"]
    assert gain >= 0.20 and retention >= 0.95, (gain, retention)
    gates = events(store, run_id, "GateEvaluated")
    assert gates and all(g.event.passed for g in gates), [g.event.gate for g in gates]
    sampled = events(store, run_id, "RolloutsSampled")
    assert all(e.event.policy_version == max(e.event.step - 1, 0) for e in sampled[:5])
