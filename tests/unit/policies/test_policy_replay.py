"""Counterfactual replay over a log built the way the GRPO stage and the runner append it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from orchestrator.audit.replay import CAVEAT, identical, policy_config_for, replay, replay_command
from orchestrator.config import RunConfig
from policies.config import PolicyConfig
from policies.engine import TRIGGER_TYPES, with_decisions
from store.events import (
    BaselineRecorded,
    CheckpointSaved,
    EvalRecorded,
    Event,
    HyperparametersChanged,
    MetricsRecorded,
    RolledBack,
    RolloutsSampled,
    RunStarted,
    StateChanged,
    StepFailed,
    VerdictsRecorded,
)
from store.log import EventLog
from store.projections import project

RUN = "chaos"
RECORDED_CONFIG = {
    "grpo": {"learning_rate": 1e-4, "kl_penalty_coef": 0.01, "sampling": {"temperature": 1.0}}
}
# The starting knobs, as the driver records them on RunStarted (the fold copies them).
HYPERPARAMETERS = {"learning_rate": 1e-4, "kl_penalty_coef": 0.01, "temperature": 1.0}


def _metrics(step: int) -> dict[str, float | None]:
    """A scripted trajectory: KL blows past 0.1, entropy collapses, a NaN loss."""
    kl = 0.16 if 8 <= step <= 11 else 0.03
    entropy = 0.2 if 16 <= step <= 19 else 1.0
    metrics: dict[str, float | None] = {
        "kl": kl, "entropy": entropy, "zero_variance_frac": 0.2, "loss": 0.1, "grad_norm": 1.0,
        "judge_error_rate": 0.0, "reward_mean": 0.5, "verify_rate": 0.5,
    }  # fmt: skip
    if step == 28:
        metrics.update(loss=None, nonfinite_loss=1.0)
    return metrics


def _drive(log: EventLog, config: PolicyConfig, steps: int = 30) -> None:
    """Run a fake GRPO stage: one batch per step, decisions right after their trigger events,
    then the runner's acts (RolledBack, HyperparametersChanged)."""
    log.append(
        RUN,
        [
            RunStarted(
                config={
                    **RECORDED_CONFIG,
                    "policies": config.model_dump(),
                },
                config_hash="h" * 64,
                hyperparameters=HYPERPARAMETERS,
            ),
            StateChanged(trigger="start", source="created", dest="sft_preparation"),
            BaselineRecorded(
                verify_rate=0.5, capability={"reverse": 1.0}, n_heldout=100, checkpoint="b" * 64
            ),
            StateChanged(trigger="advance", source="data_generation", dest="rlvr_optimization"),
        ],
        expected_seq=0,
    )
    state = project(log.read(RUN))
    for step in range(1, steps + 1):
        attempts: list[list[Event]] = []
        if step == 29:
            attempts.append([StepFailed(step=step, kind="oom", message="out of memory")])
        events: list[Event] = [
            RolloutsSampled(step=step, attempt=len(attempts), n_groups=4, group_size=8),
            VerdictsRecorded(step=step, verifier={"kind": "math"}, n_passed=16, n_total=32),
            MetricsRecorded(step=step, metrics=_metrics(step)),
        ]
        if step % 5 == 0:
            reverse = 0.9 if step == 25 else 0.99
            events += [
                CheckpointSaved(step=step, checkpoint=f"{step:064x}"),
                EvalRecorded(step=step, verify_rate=0.6, capability={"reverse": reverse}),
            ]
        for batch in [*attempts, events]:
            batch, decisions = with_decisions(state, batch, config)
            log.append(RUN, batch, expected_seq=state.last_seq)
            acts: list[Event] = []
            for d in decisions:
                if d.action == "rollback":
                    p = d.parameters
                    acts.append(
                        RolledBack(
                            from_step=p["from_step"],
                            to_step=p["to_step"],
                            checkpoint=p["checkpoint"],
                        )
                    )
                elif d.action == "adjust_hyperparameters":
                    acts.append(HyperparametersChanged(changes=d.parameters, reason=d.reason))
            log.append(RUN, acts, expected_seq=log.last_seq(RUN))
            state = project(log.read(RUN))


@pytest.fixture
def chaos_log(tmp_path: Path) -> EventLog:
    log = EventLog(tmp_path / "events.db")
    _drive(log, PolicyConfig())
    return log


def test_replay_with_the_runs_own_settings_reproduces_every_decision(chaos_log: EventLog) -> None:
    rows = replay(chaos_log.read(RUN), PolicyConfig())
    assert identical(rows)
    decided = {f"{d.policy}:{d.action}" for row in rows for d in row.decided}
    assert {
        "kl:adjust_hyperparameters",
        "kl:rollback",
        "entropy:rollback",
        "entropy:adjust_hyperparameters",
        "rollback:rollback",
        "faults:skip_update",
        "faults:rollback",
        "faults:retry_smaller_microbatch",
    } <= decided
    assert [r.event_type for r in rows if r.step == 25] == ["EvalRecorded"]


def test_other_thresholds_show_where_the_run_would_have_differed(chaos_log: EventLog) -> None:
    looser = PolicyConfig.model_validate({"kl": {"limit": 0.2}})
    rows = replay(chaos_log.read(RUN), looser)
    assert not identical(rows)
    kl_rows = [r for r in rows if any(d.policy == "kl" for d in r.decided)]
    assert kl_rows and all(not any(d.policy == "kl" for d in r.would) for r in kl_rows)
    # Decisions that do not depend on KL are still the same on the recorded trajectory.
    assert all(r.same for r in rows if r.event_type == "StepFailed")


def test_the_command_prints_the_table_and_says_identical(chaos_log: EventLog) -> None:
    buffer = io.StringIO()
    rows = replay_command(RUN, None, [], chaos_log, Console(file=buffer, width=200))
    text = buffer.getvalue()
    assert identical(rows)
    assert "identical: these settings reproduce all" in text
    assert "kl: adjust_hyperparameters" in text and "Counterfactual caveat" not in text


@pytest.mark.skipif(
    "policies" not in RunConfig.model_fields, reason="RunConfig.policies is wired by the runner"
)
def test_the_command_with_overrides_says_different_with_the_caveat(
    chaos_log: EventLog, tmp_path: Path
) -> None:
    buffer = io.StringIO()
    replay_command(RUN, None, ["policies.kl.limit=0.2"], chaos_log, Console(file=buffer, width=300))
    text = " ".join(buffer.getvalue().split())
    assert "different:" in text and " ".join(CAVEAT.split()) in text
    other = tmp_path / "other.toml"
    other.write_text("[policies.kl]\nlimit = 0.3\n")
    assert policy_config_for({}, other, ["policies.entropy.floor_ratio=0.1"]).kl.limit == 0.3


def test_every_row_names_its_trigger_event_and_that_event_s_own_step(chaos_log: EventLog) -> None:
    # Replay reads each trigger's step from the fold (or its JSON), not from the event model:
    # the rows must say what the decoded events say, for every trigger type the run holds.
    rows = replay(chaos_log.read(RUN), PolicyConfig.model_validate({"kl": {"limit": 0.01}}))
    by_seq = {stored.seq: stored for stored in chaos_log.read(RUN)}
    triggers = [r for r in rows if r.event_type in TRIGGER_TYPES]
    assert {r.event_type for r in triggers} == set(TRIGGER_TYPES)
    for row in triggers:
        stored = by_seq[row.seq]
        assert (row.event_type, row.step) == (stored.type, stored.event.step)
