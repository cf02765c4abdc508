"""Entropy-collapse recovery: given these steps, expect this recovery."""

from __future__ import annotations

import pytest

from policies.config import PolicyConfig
from store.events import MetricsRecorded


def _steps(run, entropies: list[float], start: int = 1, zvf: float = 0.1, config=None) -> list:
    decisions = []
    for offset, entropy in enumerate(entropies):
        step = start + offset
        metrics = {"entropy": entropy, "zero_variance_frac": zvf, "kl": 0.01}
        decisions.append(run.step([MetricsRecorded(step=step, metrics=metrics)], config))
    return decisions


def test_entropy_below_its_floor_for_three_steps_recovers_and_rolls_back(run) -> None:
    _steps(run, [1.0] * 5)  # early mean 1.0: floor 0.3
    run.checkpoint(5)
    first, second, third = _steps(run, [0.25, 0.2, 0.2], start=6)
    assert first == [] and second == []
    assert run.keys(third) == ["entropy:rollback", "entropy:adjust_hyperparameters"]
    back, adjust = third
    assert back.parameters["to_step"] == 5 and back.parameters["from_step"] == 8
    assert (adjust.trigger_metric, adjust.value, adjust.threshold) == ("entropy", 0.2, 0.3)
    assert adjust.parameters == {"temperature": 1.25, "entropy_coef": 0.01}
    assert len(adjust.evidence_seqs) == 3  # the three collapsed steps
    assert run.state.hyperparameters["temperature"] == 1.25


def test_no_recovery_just_above_the_floor_or_before_enough_steps(run) -> None:
    _steps(run, [1.0] * 5)
    assert _steps(run, [0.3, 0.31, 0.3, 0.3], start=6) == [[], [], [], []]
    assert _steps(run, [0.1, 0.1, 0.5, 0.1, 0.1], start=10) == [[], [], [], [], []]


def test_a_share_of_zero_variance_groups_over_the_ceiling_counts_as_collapse(run) -> None:
    assert _steps(run, [1.0] * 3, zvf=0.8) == [[], [], []]  # at the ceiling: fine
    decisions = _steps(run, [1.0] * 3, start=4, zvf=0.85)[-1]
    assert run.keys(decisions) == ["entropy:rollback", "entropy:adjust_hyperparameters"]
    assert decisions[1].trigger_metric == "zero_variance_frac"
    assert decisions[0].parameters["checkpoint"] == "b" * 64  # nothing saved before: baseline


def test_counting_restarts_after_a_recovery(run) -> None:
    config = PolicyConfig.model_validate({"entropy": {"rollback": False}})
    assert run.keys(_steps(run, [1.0] * 3, zvf=0.9, config=config)[-1]) == [
        "entropy:adjust_hyperparameters"
    ]
    later = _steps(run, [1.0] * 3, start=4, zvf=0.9, config=config)
    assert later[0] == [] and later[1] == [] and later[2] != []
    assert run.state.hyperparameters["temperature"] == pytest.approx(1.5)  # 1.25 * 1.25 capped


def test_group_size_shrinks_when_configured(run) -> None:
    config = PolicyConfig.model_validate(
        {"entropy": {"recoveries": ["shrink_group_size"], "rollback": False}}
    )
    decisions = _steps(run, [1.0] * 3, zvf=0.9, config=config)[-1]
    assert decisions[0].parameters == {"group_size": 4}


def test_a_collapse_with_every_recovery_at_its_limit_and_no_rollback_fails(run) -> None:
    config = PolicyConfig.model_validate(
        {
            "entropy": {
                "recoveries": ["raise_temperature"],
                "max_temperature": 1.0,
                "rollback": False,
            }
        }
    )
    decisions = _steps(run, [1.0] * 3, zvf=0.9, config=config)[-1]
    assert run.keys(decisions) == ["entropy:fail"]
    assert "at its limit" in decisions[0].reason


def test_recoveries_run_out_then_the_run_fails(run) -> None:
    config = PolicyConfig.model_validate({"entropy": {"max_recoveries": 1, "consecutive_steps": 1}})
    assert run.keys(_steps(run, [1.0], zvf=0.9, config=config)[-1])[0] == "entropy:rollback"
    decisions = _steps(run, [1.0], start=2, zvf=0.9, config=config)[-1]
    assert run.keys(decisions) == ["entropy:fail"]
    assert decisions[0].parameters["budget"] == "entropy.max_recoveries"
