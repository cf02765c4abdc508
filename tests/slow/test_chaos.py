"""`rlvr run configs/chaos.toml`: each injected fault is met by its policy, and the metric it
watches comes back inside its threshold; `rlvr replay` reproduces every logged decision."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.slow.runs import CHAOS, events, only_run, rlvr, state

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def chaos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, float]:
    workdir = tmp_path_factory.mktemp("chaos")
    started = time.monotonic()
    result = rlvr("run", str(CHAOS), cwd=workdir, timeout=1800)
    seconds = time.monotonic() - started
    store = workdir / "runs" / "events.db"
    assert store.exists(), result.stderr[-4000:]
    return store, only_run(store), seconds


def _decisions(store: Path, run_id: str, policy: str, action: str) -> list:
    return [
        e for e in events(store, run_id, "PolicyDecided")
        if e.event.policy == policy and e.event.action == action
    ]  # fmt: skip


def _mean_kl_after(store: Path, run_id: str, seq: int, window: int = 5) -> list[float]:
    kls = [
        e.event.metrics.get("kl") for e in events(store, run_id, "MetricsRecorded") if e.seq > seq
    ]
    kls = [k for k in kls if k is not None]
    return [sum(kls[i - window : i]) / window for i in range(window, len(kls) + 1)]


def test_the_chaos_run_completes(chaos) -> None:
    store, run_id, seconds = chaos
    final = state(store, run_id)
    print(f"chaos: {seconds:.0f} s, state {final.state}, decisions {dict(final.decisions)}")
    assert final.state == "completed", final.failure_reason
    assert {e.event.kind for e in events(store, run_id, "FaultInjected")} == {
        "learning_rate", "temperature", "capability_poison",
    }  # fmt: skip


def test_a_kl_adjustment_brings_kl_back_under_its_limit(chaos) -> None:
    store, run_id, _ = chaos
    adjustments = _decisions(store, run_id, "kl", "adjust_hyperparameters")
    assert adjustments
    assert any(mean <= 0.1 for mean in _mean_kl_after(store, run_id, adjustments[0].seq))


def test_an_entropy_recovery_brings_reward_variance_back(chaos) -> None:
    store, run_id, _ = chaos
    recoveries = _decisions(store, run_id, "entropy", "adjust_hyperparameters")
    assert recoveries
    ceiling = recoveries[0].event.threshold
    after = [
        e.event.metrics.get("zero_variance_frac") for e in events(store, run_id, "MetricsRecorded")
        if e.seq > recoveries[0].seq
    ]  # fmt: skip
    assert any(v is not None and v <= ceiling for v in after)


def test_a_capability_rollback_restores_the_benchmark(chaos) -> None:
    store, run_id, _ = chaos
    rollbacks = _decisions(store, run_id, "rollback", "rollback")
    assert rollbacks
    final = state(store, run_id)
    baseline = final.baseline_capability["reverse"]
    after = [
        e.event.capability["reverse"]
        for e in events(store, run_id, "EvalRecorded")
        if e.seq > rollbacks[0].seq
    ]
    assert any(score >= 0.95 * baseline for score in after)


def test_replay_with_the_runs_own_config_reproduces_every_decision(chaos) -> None:
    store, run_id, _ = chaos
    result = rlvr("replay", run_id, "--store", str(store), cwd=store.parent, check=True)
    assert "identical: these settings reproduce all" in result.stdout
    assert "differs" not in result.stdout


def test_why_explains_each_rollback_with_its_benchmark_numbers(chaos) -> None:
    import json

    store, run_id, _ = chaos
    result = rlvr("why", run_id, "--json", "--store", str(store), cwd=store.parent, check=True)
    items = json.loads(result.stdout)["items"]
    rollbacks = [i for i in items if i["kind"] == "policy" and i["name"].startswith("rollback")]
    assert rollbacks
    assert any("reverse dropped" in i["story"] for i in rollbacks)


def test_the_chaos_report_renders_in_a_real_browser(chaos, tmp_path: Path) -> None:
    from tests.slow.test_report_browser import assert_report_renders

    store, run_id, _ = chaos
    out = tmp_path / "report"
    rlvr("report", run_id, "--out", str(out), "--store", str(store), cwd=store.parent, check=True)
    assert_report_renders(out / "index.html", tmp_path / "profile", run_id)
