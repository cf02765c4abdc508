"""Reward health: given these steps' rewards and responses, expect this decision."""

from __future__ import annotations

import pytest

from policies import reward_health
from policies.config import PolicyConfig
from policies.settings import decision_keys
from store.events import MetricsRecorded

HEALTHY = {"kl": 0.02, "entropy": 1.0, "loss": 0.1, "reward_mean": 0.6, "reward_std": 0.45,
           "verify_rate": 0.6, "zero_variance_frac": 0.3, "response_len": 4.0,
           "repetition_share": 0.0, "verifier_error_rate": 0.0, "judge_error_rate": 0.0,
           "judge_injection_rate": 0.0}  # fmt: skip
# What a scorer that returns 0 for everything logs: no variance anywhere, nothing verified.
ALL_ZERO = {"reward_mean": 0.0, "reward_std": 0.0, "verify_rate": 0.0, "zero_variance_frac": 1.0}


def _step(step: int, **metrics: float) -> MetricsRecorded:
    return MetricsRecorded(step=step, metrics={**HEALTHY, **metrics})


def _healthy_until(run, last: int, save_every: int = 5, **metrics: float) -> None:
    for step in range(1, last + 1):
        run.step([_step(step, **metrics)])
        if step % save_every == 0:
            run.checkpoint(step)


@pytest.mark.parametrize("action", ["pause", "rollback"])
def test_all_zero_rewards_act_within_three_steps_and_the_temperature_stays(run, action) -> None:
    config = PolicyConfig.model_validate({"reward_health": {"action": action}})
    _healthy_until(run, 12)
    decided = []
    for step in range(13, 19):  # all-zero rewards from step 13 on
        decided += [(step, d) for d in run.step([_step(step, **ALL_ZERO)], config)]
        if any(d.action == "pause" for _, d in decided):
            break
    step, first = decided[0]
    assert step <= 15 and first.policy == "reward_health" and first.action == action
    assert not any(d.policy == "entropy" for _, d in decided)
    assert (
        "temperature" not in run.state.hyperparameters
        or run.state.hyperparameters["temperature"] == 1.0
    )
    assert "rule all_equal_rewards" in first.reason
    assert "steps 13-15; policies.reward_health.consecutive_steps = 3" in first.reason
    assert "verify rate moved -0.60" in first.reason
    assert first.parameters["onset_step"] == 13
    assert "policies.reward_health.consecutive_steps" in decision_keys(
        first.policy, first.trigger_metric
    )
    if action == "rollback":
        assert first.parameters["to_step"] == 10  # the last checkpoint before the onset
    else:
        assert first.parameters["checkpoint_step"] == 10
        assert "the last retained checkpoint before it is step 10" in first.reason


def test_equal_rewards_without_a_verifier_side_signal_are_the_entropy_policys(run) -> None:
    # A policy that has nearly solved its tasks and now solves all: the verify rate never jumped.
    _healthy_until(run, 12, verify_rate=0.9, zero_variance_frac=0.7)
    decided = []
    for step in range(13, 19):
        equal = {"reward_std": 0.0, "zero_variance_frac": 1.0, "verify_rate": 1.0}
        decided += run.step([_step(step, **equal)])
    assert not any(d.policy == "reward_health" for d in decided)
    assert any(d.policy == "entropy" and d.action == "adjust_hyperparameters" for d in decided)


def test_a_verifier_error_rate_with_equal_rewards_is_a_signal_but_not_a_second_pause(run) -> None:
    _healthy_until(run, 6)
    low_errors = {**ALL_ZERO, "verify_rate": 0.6, "verifier_error_rate": 0.05}
    for step in (7, 8):
        assert run.step([_step(step, **low_errors)]) == []
    (pause,) = run.step([_step(9, **low_errors)])
    assert pause.policy == "reward_health" and "verifier_error_rate 0.05" in pause.reason
    # Over the faults policy's ceiling it is the faults policy's pause alone.
    (faults,) = run.step([_step(10, **{**low_errors, "verifier_error_rate": 0.5})])
    assert faults.policy == "faults" and faults.action == "pause"


def test_response_length_blow_up_and_collapse(run) -> None:
    _healthy_until(run, 6)
    run.step([_step(7, response_len=20.0)])
    run.step([_step(8, response_len=20.0)])
    (blow_up,) = run.step([_step(9, response_len=20.0)])
    assert blow_up.trigger_metric == "response_len" and "blow-up" in blow_up.reason
    assert blow_up.threshold == pytest.approx(16.0)  # 4 x the early mean of 4 tokens
    config = PolicyConfig.model_validate({"reward_health": {"action": "rollback"}})
    other = type(run)().start()
    _healthy_until(other, 6)
    decided = [d for step in (7, 8, 9) for d in other.step([_step(step, response_len=0.5)], config)]
    assert [d.action for d in decided] == ["rollback"] and "collapse" in decided[0].reason


def test_repetitive_responses_pause_and_old_logs_say_the_rule_is_inactive(run) -> None:
    _healthy_until(run, 4)
    decided = [d for s in (5, 6, 7) for d in run.step([_step(s, repetition_share=0.8)])]
    assert [d.trigger_metric for d in decided] == ["repetition_share"]
    old_log_metrics = set(HEALTHY) - {"repetition_share"}
    assert reward_health.inactive_rules(old_log_metrics) == {
        "repetition": "the log has no repetition_share"
    }
    assert reward_health.inactive_rules(HEALTHY) == {}


def test_disabled_reward_health_leaves_equal_rewards_to_the_entropy_policy(run) -> None:
    config = PolicyConfig.model_validate({"reward_health": {"enabled": False}})
    _healthy_until(run, 12)
    decided = [d for s in range(13, 17) for d in run.step([_step(s, **ALL_ZERO)], config)]
    assert any(d.policy == "entropy" for d in decided)
    assert not any(d.policy == "reward_health" for d in decided)


def test_most_groups_without_variance_as_the_verify_rate_falls_is_a_scorer_finding(run) -> None:
    _healthy_until(run, 8)
    zeroed = {"zero_variance_frac": 0.97, "verify_rate": 0.2}  # a scorer zeroing most answers
    decided = [d for s in (9, 10, 11) for d in run.step([_step(s, **zeroed)])]
    assert [(d.policy, d.trigger_metric) for d in decided] == [
        ("reward_health", "zero_variance_frac")
    ]


def test_a_sampler_gone_greedy_is_the_entropy_policys_even_as_the_verify_rate_rises(run) -> None:
    # The chaos run's temperature fault: groups lose variance and greedy answers score better.
    _healthy_until(run, 8)
    greedy = {"zero_variance_frac": 0.97, "verify_rate": 0.9}
    decided = [d for s in (9, 10, 11) for d in run.step([_step(s, **greedy)])]
    assert not any(d.policy == "reward_health" for d in decided)
    assert any(d.policy == "entropy" and "temperature" in d.parameters for d in decided)


def test_a_weak_models_rare_passes_all_vanishing_is_too_unlikely_to_be_the_model(run) -> None:
    # Verify rate 0.15 -> 0: a shift under 0.25, but 3 steps of 32 groups all without variance
    # at the 60% share of the steps before is a 0.6^96 chance.
    weak = {"verify_rate": 0.15, "zero_variance_frac": 0.6, "scored_groups": 32.0}
    _healthy_until(run, 8, **weak)
    zeros = {**ALL_ZERO, "scored_groups": 32.0}
    decided = [d for s in (9, 10, 11) for d in run.step([_step(s, **zeros)])]
    assert [(d.policy, d.action) for d in decided] == [("reward_health", "pause")]
    assert "all 96 groups of the run without variance, a 5e-22 chance" in decided[0].reason


def test_a_model_that_nearly_solved_everything_solving_everything_is_no_such_signal(run) -> None:
    strong = {"verify_rate": 0.95, "zero_variance_frac": 0.9, "scored_groups": 32.0}
    _healthy_until(run, 8, **strong)
    solved = {
        "reward_std": 0.0,
        "zero_variance_frac": 1.0,
        "verify_rate": 1.0,
        "scored_groups": 32.0,
    }
    decided = [d for s in (9, 10, 11) for d in run.step([_step(s, **solved)])]
    assert not any(d.policy == "reward_health" for d in decided)  # 0.9^96: a 4e-5 chance
