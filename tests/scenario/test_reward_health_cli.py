"""All-zero rewards from step N (a scorer that silently broke): the reward-health policy pauses
within 3 steps, the entropy policy does not raise the temperature, and `rlvr why` names the rule
and the window; `rlvr replay` re-decides it. The real CLI, driver and policies on stand-in stages
(tests/scenario/fake_stages.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import orchestrator.cli.app as cli_app
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages

BROKEN_FROM = 14
HEALTHY = {"entropy": 1.0, "verify_rate": 0.6, "reward_std": 0.45, "zero_variance_frac": 0.3,
           "response_len": 4.0, "repetition_share": 0.0}  # fmt: skip
ALL_ZERO = {**HEALTHY, "reward_mean": 0.0, "reward_std": 0.0, "verify_rate": 0.0,
            "zero_variance_frac": 1.0}  # fmt: skip


def _scorer_breaks(step: int) -> dict:
    return ALL_ZERO if step >= BROKEN_FROM else HEALTHY


def test_all_zero_rewards_pause_within_three_steps_and_why_names_the_rule_and_window(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "run.toml"
    config.write_text(f'run_name = "zeros"\nlog_path = "{tmp_path}"\n')
    monkeypatch.setattr(cli_app, "_stages", FakeStages(metrics_at=_scorer_breaks).registry)
    paused = rlvr(capsys, "run", str(config))
    assert paused.code == 3, paused.out + paused.err
    run_id = re.search(r"run (\S+) started", paused.err).group(1)
    assert f"paused at step {BROKEN_FROM + 2}" in paused.out  # the third all-zero step

    store = str(tmp_path / "events.db")
    log = EventLog(tmp_path / "events.db")
    decided = [e.event for e in log.read(run_id, types=["PolicyDecided"])]
    assert [(d.policy, d.action) for d in decided] == [("reward_health", "pause")]
    changed = log.read(run_id, types=["HyperparametersChanged"])
    assert not any("temperature" in e.event.changes for e in changed)

    why = rlvr(capsys, "why", run_id, "--store", store)
    assert why.code == 0, why.err
    text = " ".join(why.out.split())
    assert "reward health rule all_equal_rewards" in text
    assert (
        f"steps {BROKEN_FROM}-{BROKEN_FROM + 2}; policies.reward_health.consecutive_steps = 3"
        in text
    )
    assert f"began at step {BROKEN_FROM} (change point)" in text

    replayed = rlvr(capsys, "replay", run_id, "--store", store)
    assert replayed.code == 0, replayed.err
    assert "identical: these settings reproduce all 1 logged decisions" in replayed.out
    assert "inactive" not in replayed.out  # this log has every input


def test_replay_of_a_log_from_before_repetition_was_logged_says_that_rule_is_inactive(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "run.toml"
    config.write_text(f'run_name = "old"\nlog_path = "{tmp_path}"\n')
    before_issue_31 = {k: v for k, v in HEALTHY.items() if k != "repetition_share"}
    monkeypatch.setattr(
        cli_app, "_stages", FakeStages(metrics_at=lambda step: before_issue_31).registry
    )
    done = rlvr(capsys, "run", str(config))
    assert done.code == 0, done.out + done.err
    run_id = re.search(r"run (\S+) started", done.err).group(1)
    replayed = rlvr(capsys, "replay", run_id, "--store", str(tmp_path / "events.db"))
    assert replayed.code == 0, replayed.err
    lines = [line for line in replayed.out.splitlines() if "inactive" in line]
    assert lines == [
        "reward_health rule repetition inactive on this log: the log has no repetition_share"
    ]
