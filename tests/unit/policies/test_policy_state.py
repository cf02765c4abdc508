"""The folded state the policies read: windows, lineage, failures and decision marks."""

from __future__ import annotations

from store.events import PolicyDecided, RolledBack, StepFailed
from store.projections import EARLY_METRICS, METRICS_WINDOW


def test_the_metrics_window_keeps_the_latest_steps_and_the_earliest_entropies(run) -> None:
    for step in range(1, METRICS_WINDOW + 11):
        run.metrics(step, entropy=float(step))
    assert len(run.state.metrics_window) == METRICS_WINDOW
    assert run.state.metrics_window[-1].step == METRICS_WINDOW + 10
    assert run.state.early_metrics["entropy"] == tuple(
        float(s) for s in range(1, EARLY_METRICS + 1)
    )


def test_a_rollback_cuts_the_lineage_back_to_its_checkpoint(run) -> None:
    for step in (10, 20, 30):
        run.checkpoint(step)
    marker = run.append(RolledBack(from_step=35, to_step=10, checkpoint=f"{10:064x}"))
    assert [ref.step for ref in run.state.lineage] == [10]
    assert run.state.last_rollback_seq == marker.seq
    run.append(RolledBack(from_step=40, to_step=0, checkpoint="b" * 64))
    assert run.state.lineage == ()


def test_decisions_and_failures_are_counted(run) -> None:
    decided = run.append(
        PolicyDecided(policy="kl", action="rollback", trigger_metric="kl", value=0.3, threshold=0.1)
    )
    run.append(StepFailed(step=3, kind="oom"), StepFailed(step=3, kind="oom"))
    assert run.state.decisions == {"kl:rollback": 1}
    assert run.state.decision_seqs == {"kl:rollback": decided.seq}
    assert run.state.step_failures == {"3:oom": 2}


def test_a_nonfinite_metric_is_stored_as_null_with_its_flag(run) -> None:
    run.metrics(1, loss=None, nonfinite_loss=1.0)
    assert run.state.last_metrics["loss"] is None
    assert run.state.early_metrics["entropy"] == (1.0,)
