"""The engine: fixed order, one rollback per event, budgets, and decisions appended with their step."""

from __future__ import annotations

from pathlib import Path

from policies.config import PolicyConfig
from policies.engine import decide_all, with_decisions
from policies.types import Decision
from store.events import EvalRecorded, MetricsRecorded, PolicyDecided
from store.log import EventLog
from store.projections import project


def test_a_decision_round_trips_through_its_event(run) -> None:
    run.metrics(1, kl=0.2)
    (decision,) = run.decide()
    event = decision.to_event()
    assert isinstance(event, PolicyDecided)
    assert Decision.from_event(event) == decision
    assert (
        decision.brief()
        == "kl: adjust_hyperparameters [kl 0.2 vs 0.1] (kl_penalty_coef=0.02, learning_rate=5e-05)"
    )


def test_only_the_first_rollback_of_an_event_is_kept(run) -> None:
    run.checkpoint(1)
    for step in (2, 3, 4):
        run.metrics(step, kl=0.3, entropy=1.0, zero_variance_frac=0.9)
    config = PolicyConfig.model_validate(
        {"kl": {"rollback_after_steps": 3}, "entropy": {"consecutive_steps": 3}}
    )
    decisions = run.decide(config)
    assert run.keys(decisions) == [
        "kl:rollback",
        "kl:adjust_hyperparameters",
        "entropy:adjust_hyperparameters",
    ]


def test_trigger_events_only(run) -> None:
    run.checkpoint(1)
    assert decide_all(run.state, run.stored[-1], PolicyConfig()) == []


def test_decisions_follow_their_trigger_event_in_the_appended_batch(tmp_path: Path, run) -> None:
    log = EventLog(tmp_path / "events.db")
    log.append("r", [s.event for s in run.stored], expected_seq=0)
    state = project(log.read("r"))
    step = [
        MetricsRecorded(step=1, metrics={"kl": 0.2}),
        EvalRecorded(step=1, verify_rate=0.5, capability={"reverse": 0.5, "copy": 1.0}),
    ]
    batch, decisions = with_decisions(state, step, PolicyConfig())
    assert [type(e).__name__ for e in batch] == [
        "MetricsRecorded",
        "PolicyDecided",  # kl adjusts
        "EvalRecorded",
        "PolicyDecided",  # capability rollback
        "PolicyDecided",  # and its learning-rate cut
    ]
    stored = log.append("r", batch, expected_seq=state.last_seq)
    metrics_seq, eval_seq = stored[0].seq, stored[2].seq
    assert [d.evidence_seqs[0] for d in decisions] == [metrics_seq, eval_seq, eval_seq]
    # Each decision is what decide_all says on the log folded through its trigger event.
    events = list(log.read("r"))
    for seq, expected in ((metrics_seq, decisions[:1]), (eval_seq, decisions[1:])):
        prefix = [e for e in events if e.seq <= seq]
        assert decide_all(project(prefix), prefix[-1], PolicyConfig()) == expected
