"""Capability rollback: given these evals, expect this decision."""

from __future__ import annotations

import pytest

from policies.config import PolicyConfig
from store.events import EvalRecorded, RolledBack


def test_a_capability_drop_over_five_percent_rolls_back_to_the_last_good_checkpoint(run) -> None:
    run.checkpoint(10, reverse=0.99)
    run.checkpoint(20, reverse=0.98)
    trigger = run.checkpoint(30, reverse=0.94)  # 6% below baseline 1.0

    decisions = run.decide()

    assert run.keys(decisions) == ["rollback:rollback", "rollback:adjust_hyperparameters"]
    back, adjust = decisions
    assert back.trigger_metric == "capability_drop.reverse"
    assert back.value == pytest.approx(0.06) and back.threshold == 0.05
    assert back.parameters["to_step"] == 20 and back.parameters["from_step"] == 30
    assert back.evidence_seqs[0] == trigger.seq
    assert adjust.parameters == {"learning_rate": 5e-5}  # KL coefficient factor 1: unchanged
    assert "reverse scored 0.940 at step 30, 6.0% below" in back.reason


@pytest.mark.parametrize("score", [0.95, 0.951, 1.0])  # a pass rate: at most 1
def test_no_rollback_at_or_under_the_allowed_drop(run, score: float) -> None:
    run.checkpoint(10, reverse=score)
    assert run.decide() == []


def test_a_checkpoint_whose_evals_failed_is_never_a_target(run) -> None:
    run.checkpoint(10, reverse=0.90)  # already bad: the rollback must go further back
    run.checkpoint(20, reverse=0.80)
    back = run.decide()[0]
    assert back.parameters["checkpoint"] == "b" * 64 and back.parameters["to_step"] == 0


def test_abandoned_checkpoints_are_not_targets_after_a_rollback(run) -> None:
    run.checkpoint(10, reverse=0.99)
    run.checkpoint(20, reverse=0.99)
    run.append(RolledBack(from_step=25, to_step=10, checkpoint=f"{10:064x}"))
    run.checkpoint(30, reverse=0.90)
    assert run.decide()[0].parameters["to_step"] == 10


def test_without_any_checkpoint_the_run_fails(new_run) -> None:
    bare = new_run().start(baseline_checkpoint=False)
    bare.checkpoint(10, reverse=0.5)
    decisions = bare.decide()
    assert bare.keys(decisions) == ["rollback:fail"]
    assert "no checkpoint to roll back to" in decisions[0].reason


def test_the_kl_coefficient_rises_when_configured(run) -> None:
    run.checkpoint(10, reverse=0.5)
    config = PolicyConfig.model_validate({"rollback": {"kl_coef_factor": 3.0}})
    adjust = run.decide(config)[1]
    assert adjust.parameters == {"learning_rate": 5e-5, "kl_penalty_coef": pytest.approx(0.03)}


def test_an_exhausted_rollback_budget_fails_the_run(run) -> None:
    config = PolicyConfig.model_validate({"rollback": {"max_rollbacks": 2}})
    for step in (10, 20):
        assert run.keys(run.step([_eval(step)], config))[0] == "rollback:rollback"
    assert run.state.decisions["rollback:rollback"] == 2
    decisions = run.step([_eval(30)], config)
    assert run.keys(decisions) == ["rollback:fail"]
    assert decisions[0].parameters == {"budget": "rollback.max_rollbacks", "used": 2, "limit": 2}
    assert "exhausted (2 of 2 used)" in decisions[0].reason


def _eval(step: int) -> EvalRecorded:
    return EvalRecorded(step=step, verify_rate=0.6, capability={"reverse": 0.5, "copy": 1.0})
