"""KL control: given these steps' KL, expect this decision."""

from __future__ import annotations

import pytest

from policies import kl
from policies.config import PolicyConfig
from store.events import HyperparametersChanged, MetricsRecorded, StateChanged
from tests.unit.policies.conftest import STEPWISE


def _step(step: int, value: float) -> list[MetricsRecorded]:
    return [MetricsRecorded(step=step, metrics={"kl": value, "entropy": 1.0})]


def test_kl_over_the_limit_halves_the_learning_rate_and_doubles_the_kl_coefficient(run) -> None:
    trigger = run.metrics(1, kl=0.15)
    decisions = run.decide()
    assert run.keys(decisions) == ["kl:adjust_hyperparameters"]
    (adjust,) = decisions
    assert adjust.parameters == {"learning_rate": 5e-5, "kl_penalty_coef": 0.02}
    assert (adjust.trigger_metric, adjust.value, adjust.threshold) == ("kl", 0.15, 0.1)
    assert adjust.evidence_seqs == [trigger.seq]
    assert "learning_rate 0.0001 -> 5e-05" in adjust.reason


@pytest.mark.parametrize("value", [0.1, 0.0999, None])
def test_no_decision_at_or_under_the_limit(run, value: float | None) -> None:
    run.metrics(1, kl=value)
    assert kl.decide(run.state, run.stored[-1], STEPWISE) == []


def test_one_spike_is_averaged_away_but_a_sustained_rise_is_not(run) -> None:
    default = PolicyConfig()  # KL averaged over the last 5 steps
    for step, value in enumerate([0.04, 0.05, 0.04, 0.05], start=1):
        run.metrics(step, kl=value)
    run.metrics(5, kl=0.3)  # mean 0.096
    assert kl.decide(run.state, run.stored[-1], default) == []
    run.metrics(6, kl=0.12)  # mean 0.112
    (decision,) = kl.decide(run.state, run.stored[-1], default)
    assert decision.action == "adjust_hyperparameters"
    assert decision.value == pytest.approx((0.05 + 0.04 + 0.05 + 0.3 + 0.12) / 5)
    assert "mean of the last 5 steps" in decision.reason


def test_a_kl_decision_cites_every_step_of_the_mean_it_quotes(run) -> None:
    default = PolicyConfig()  # the mean of the last 5 steps
    seqs = [run.metrics(step, kl=value).seq
            for step, value in enumerate([0.04, 0.05, 0.04, 0.05, 0.3, 0.12], start=1)]  # fmt: skip
    (decision,) = kl.decide(run.state, run.stored[-1], default)
    assert decision.evidence_seqs[0] == seqs[-1]  # the trigger first
    assert sorted(decision.evidence_seqs) == seqs[1:]  # steps 2..6: the five the mean is over


def test_only_the_configured_knob_moves(run) -> None:
    run.metrics(1, kl=0.3)
    config = PolicyConfig.model_validate({"kl": {"adjust": ["kl_penalty_coef"]}})
    assert run.decide(config)[0].parameters == {"kl_penalty_coef": 0.02}


def test_adaptive_mode_scales_the_coefficient_by_kl_over_target_with_a_cap(run) -> None:
    adaptive = {
        "mode": "adaptive",
        "target": 0.05,
        "kl_coef_factor": 4.0,
        "adjust": ["kl_penalty_coef"],
    }
    run.metrics(1, kl=0.15)
    coef = run.decide(PolicyConfig.model_validate({"kl": adaptive}))[0].parameters
    assert coef["kl_penalty_coef"] == pytest.approx(0.03)  # x3 = 0.15 / 0.05
    run.metrics(2, kl=0.5)
    coef = run.decide(PolicyConfig.model_validate({"kl": adaptive}))[0].parameters
    assert coef["kl_penalty_coef"] == pytest.approx(0.04)  # x10 capped at x4


def test_persistent_high_kl_waits_for_the_adjustment_then_rolls_back_before_the_excursion(
    run,
) -> None:
    run.step(_step(1, 0.05))
    run.checkpoint(2)  # saved before step 2, which measures its weights' KL: 0.05
    run.step(_step(2, 0.05))
    assert run.keys(run.step(_step(3, 0.15))) == ["kl:adjust_hyperparameters"]
    assert run.step(_step(4, 0.14)) == []  # the adjustment gets its steps
    run.checkpoint(5)  # saved inside the excursion: not a target
    decisions = run.step(_step(5, 0.13))
    assert run.keys(decisions) == ["kl:rollback", "kl:adjust_hyperparameters"]
    back, adjust = decisions
    assert back.parameters["to_step"] == 2 and back.parameters["from_step"] == 5
    assert "for 3 consecutive steps (since step 3)" in back.reason
    assert adjust.parameters["learning_rate"] == pytest.approx(2.5e-5)  # halved twice now
    # The rollback restarts the count: one high step after it only adjusts (or waits).
    assert run.step(_step(6, 0.12)) == []
    assert run.keys(run.step(_step(7, 0.12))) == ["kl:adjust_hyperparameters"]


def test_the_learning_rate_never_drops_below_its_floor(run) -> None:
    run.metrics(1, kl=0.2)
    config = PolicyConfig.model_validate({"kl": {"min_learning_rate": 1e-4}})
    assert run.decide(config)[0].parameters == {"kl_penalty_coef": 0.02}


def test_an_exhausted_adjustment_budget_fails_the_run(run) -> None:
    config = PolicyConfig.model_validate(
        {"kl": {"max_adjustments": 1, "adjust_every_steps": 1, "rollback_after_steps": 10}}
    )
    assert run.keys(run.step(_step(1, 0.2), config)) == ["kl:adjust_hyperparameters"]
    decisions = run.step(_step(2, 0.2), config)
    assert run.keys(decisions) == ["kl:fail"]
    assert decisions[0].parameters["budget"] == "kl.max_adjustments"


def test_policies_stay_quiet_outside_training(run) -> None:
    run.append(StateChanged(trigger="advance", source="iterative_training", dest="evaluation"))
    run.metrics(1, kl=0.5)
    assert run.decide() == []


def test_a_kl_rollback_skips_a_checkpoint_whose_own_kl_was_over_the_limit(run) -> None:
    # the regression (chaos run): rolling back to a checkpoint whose weights already measured KL
    # 0.1065 > 0.1 brought the excursion straight back and spent the last rollback
    run.checkpoint(1)
    run.step(_step(1, 0.02))  # the KL of checkpoint 1's weights: healthy
    run.checkpoint(2)
    run.step(_step(2, 0.11))  # checkpoint 2's: already over the limit
    run.step(_step(3, 0.09))
    assert run.state.lineage[-1].metrics_after["kl"] == pytest.approx(0.11)
    decisions = []
    for step in (4, 5, 6):
        decisions = run.step(_step(step, 0.2))
    back = next(d for d in decisions if d.action == "rollback")
    assert back.parameters["to_step"] == 1  # not 2, though 2 was saved before the excursion


def test_after_a_kl_rollback_a_raised_learning_rate_is_scaled_from_the_checkpoints(run) -> None:
    run.checkpoint(1)  # saved at the starting learning rate, 1e-4
    run.step(_step(1, 0.02))
    run.append(HyperparametersChanged(changes={"learning_rate": 1e-2}, reason="a fault"))
    decisions = []
    for step in (2, 3, 4):
        decisions = run.step(_step(step, 0.3))
    assert run.keys(decisions) == ["kl:rollback", "kl:adjust_hyperparameters"]
    adjust = decisions[1]
    # halved from the checkpoint's 1e-4, not from the 5e-3 the earlier adjustment left
    assert adjust.parameters["learning_rate"] == pytest.approx(5e-5)
    assert "scaled from the 0.0001 in force at the checkpoint of step 1" in adjust.reason


def test_a_rollback_that_may_not_touch_the_learning_rate_does_not_claim_to(run) -> None:
    config = PolicyConfig.model_validate({"kl": {"window": 1, "adjust": ["kl_penalty_coef"]}})
    run.checkpoint(1)
    run.step(_step(1, 0.02), config)
    run.append(HyperparametersChanged(changes={"learning_rate": 1e-2}, reason="a fault"))
    decisions = []
    for step in (2, 3, 4):
        decisions = run.step(_step(step, 0.3), config)
    adjust = next(d for d in decisions if d.action == "adjust_hyperparameters")
    assert set(adjust.parameters) == {"kl_penalty_coef"}
    assert "learning rate scaled" not in adjust.reason


def test_a_kl_adjustment_quotes_the_sampler_trainer_log_prob_gap_of_an_async_step(run) -> None:
    run.metrics(1, kl=0.15, logprob_gap=0.0421)
    (adjust,) = run.decide()
    assert "; sampler-trainer log-prob gap 0.0421 on that step:" in adjust.reason
    run.metrics(2, kl=0.0)
    run.metrics(9, kl=0.15)  # on-policy: no gap logged, none quoted
    assert all("log-prob gap" not in d.reason for d in run.decide())
