"""All-zero rewards from step N on a real run: the silent verdict-corruption fault (mode zero,
logging nothing about itself) breaks the scorer of a shortened quickstart; the reward-health
policy pauses within 3 steps, the entropy policy never raises the temperature, and `rlvr why`
names the rule and the window. As a person types it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.slow.runs import QUICKSTART, SHORT, events, only_run, rlvr, state

pytestmark = pytest.mark.slow

FAULT_STEP = 6
SILENT_ZEROS = f"""
[[chaos.faults]]
kind = "verdict_corruption"
step = {FAULT_STEP}
mode = "zero"
silent = true
"""


def test_a_silently_zeroed_scorer_pauses_the_run_within_three_steps(tmp_path: Path) -> None:
    config = tmp_path / "zeros.toml"
    config.write_text(QUICKSTART.read_text(encoding="utf-8") + SILENT_ZEROS, encoding="utf-8")
    result = rlvr("run", str(config), *SHORT, cwd=tmp_path, timeout=1800)
    store = tmp_path / "runs" / "events.db"
    assert store.exists(), result.stderr[-4000:]
    run_id = only_run(store)
    assert result.returncode == 3, result.stdout[-2000:] + result.stderr[-2000:]  # paused
    assert not events(store, run_id, "FaultInjected")  # silent: only the rewards show it

    metrics = [e.event for e in events(store, run_id, "MetricsRecorded")]
    zeroed = [m.step for m in metrics if m.metrics.get("reward_std") == 0.0]
    first = zeroed[0]
    assert first in (FAULT_STEP, FAULT_STEP + 1)  # "just before step N": the trainer's count
    assert all(m.metrics["reward_mean"] == 0.0 for m in metrics if m.step >= first)

    decided = [e.event for e in events(store, run_id, "PolicyDecided")]
    assert not any(d.policy == "entropy" for d in decided)
    pauses = [d for d in decided if d.policy == "reward_health"]
    assert [d.action for d in pauses] == ["pause"]
    assert pauses[0].parameters["first_crossing_step"] == first
    assert state(store, run_id).step <= first + 2  # acted within 3 steps
    changed = events(store, run_id, "HyperparametersChanged")
    assert not any("temperature" in e.event.changes for e in changed)

    why = rlvr("why", run_id, "--store", str(store), cwd=tmp_path, check=True)
    text = " ".join(why.stdout.split())
    assert "reward health rule all_equal_rewards" in text
    assert f"(steps {first}-{first + 2}; policies.reward_health.consecutive_steps = 3)" in text
    print(text[:1500])
