"""Faults: non-finite numbers, OOM, failing steps and a failing judge."""

from __future__ import annotations

import pytest

from policies.config import PolicyConfig
from store.events import MetricsRecorded, StepFailed


def test_a_nan_loss_skips_the_update_and_rolls_back(run) -> None:
    run.checkpoint(4)
    trigger = run.metrics(5, loss=None, nonfinite_loss=1.0, kl=0.5)
    decisions = run.decide()
    # KL 0.5 is past its limit too, but a void step is not evidence for the KL policy.
    assert run.keys(decisions) == ["faults:skip_update", "faults:rollback"]
    skip, back = decisions
    assert skip.parameters == {"step": 5} and skip.trigger_metric == "loss"
    assert back.parameters["to_step"] == 4 and back.evidence_seqs[0] == trigger.seq


def test_an_inf_grad_norm_flag_alone_is_enough(run) -> None:
    run.metrics(5, grad_norm=None, nonfinite_grad_norm=1.0)
    assert run.keys(run.decide())[0] == "faults:skip_update"


def test_finite_numbers_leave_the_step_alone(run) -> None:
    run.metrics(5, grad_norm=1e6, nonfinite_grad_norm=0.0)
    assert run.decide() == []


def test_judge_errors_over_the_ceiling_pause_the_run(run) -> None:
    run.metrics(3, judge_error_rate=0.25)
    (pause,) = run.decide()
    assert (pause.action, pause.value, pause.threshold) == ("pause", 0.25, 0.2)
    assert "missing rewards" in pause.reason


def test_judge_errors_at_the_ceiling_do_not_pause(run) -> None:
    run.metrics(3, judge_error_rate=0.2)
    assert run.decide() == []


def test_pauses_run_out_then_the_run_fails(run) -> None:
    config = PolicyConfig.model_validate({"faults": {"max_pauses": 1}})
    assert run.keys(run.step([_judged(1)], config)) == ["faults:pause"]
    assert run.keys(run.step([_judged(2)], config)) == ["faults:fail"]


def test_out_of_memory_retries_with_twice_the_micro_batches_then_fails(run) -> None:
    micro = 1
    for attempt in range(3):
        (retry,) = run.step([_oom(7, attempt, micro)])
        assert retry.action == "retry_smaller_microbatch"
        assert retry.parameters == {"step": 7, "attempt": attempt + 1, "micro_batches": micro * 2}
        micro *= 2
    (fail,) = run.step([_oom(7, 3, micro)])
    assert fail.action == "fail" and "out of memory 4 times" in fail.reason


def test_exceptions_retry_with_doubling_backoff_then_fail(run) -> None:
    waits = [run.step([_boom(9, a)])[0].parameters["backoff_s"] for a in range(3)]
    assert waits == [2.0, 4.0, 8.0]
    (fail,) = run.step([_boom(9, 3)])
    assert fail.action == "fail" and "disk full" in fail.reason


def test_failures_of_another_step_have_their_own_count(run) -> None:
    for attempt in range(3):
        run.step([_boom(9, attempt)])
    assert run.step([_boom(10, 0)])[0].action == "retry_step"


@pytest.mark.parametrize("kind", ["oom", "exception"])
def test_the_run_wide_retry_budget_fails_the_run(run, kind: str) -> None:
    config = PolicyConfig.model_validate({"faults": {"max_total_retries": 2}})
    for step in (1, 2):
        assert run.step([StepFailed(step=step, kind=kind, message="x")], config)[0].action != "fail"
    (fail,) = run.step([StepFailed(step=3, kind=kind, message="x")], config)
    assert fail.parameters["budget"] == "faults.max_total_retries"


def _judged(step: int) -> MetricsRecorded:
    return MetricsRecorded(step=step, metrics={"judge_error_rate": 0.5})


def _oom(step: int, attempt: int, micro_batches: int) -> StepFailed:
    return StepFailed(step=step, attempt=attempt, kind="oom", micro_batches=micro_batches)


def _boom(step: int, attempt: int) -> StepFailed:
    return StepFailed(step=step, attempt=attempt, kind="exception", message="disk full")


def test_verifier_errors_over_the_ceiling_pause_the_run_and_name_the_metric(run) -> None:
    run.metrics(3, judge_error_rate=0.0, verifier_error_rate=0.5)
    (pause,) = run.decide()
    assert (pause.action, pause.trigger_metric, pause.value) == (
        "pause",
        "verifier_error_rate",
        0.5,
    )
    assert "verifications raised" in pause.reason
