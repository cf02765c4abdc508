"""RunState is a pure fold of the log."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.errors import SequenceGapError
from store.events import (
    CheckpointSaved,
    CheckpointsPruned,
    GateEvaluated,
    HyperparametersChanged,
    MetricsRecorded,
    RolloutsSampled,
    RunRewound,
    RunStarted,
    StateChanged,
    VerdictsRecorded,
)
from store.log import EventLog
from store.projections import EARLY_METRICS, RunState, fold, project


def _log(tmp_path: Path) -> EventLog:
    log = EventLog(tmp_path / "e.db")
    log.append(
        "r",
        [
            RunStarted(
                config={"grpo": {"learning_rate": 1e-4}},
                config_hash="h",
                hyperparameters={"learning_rate": 1e-4},
            ),
            StateChanged(trigger="start", source="created", dest="sft_preparation"),
        ],
        0,
    )
    return log


def test_a_gap_in_seq_raises(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.append("r", [MetricsRecorded(step=1, metrics={})], 2)
    events = list(log.read("r"))
    with pytest.raises(SequenceGapError, match="seq 3 follows 1"):
        project([events[0], events[2]])


def test_fold_is_pure_and_incremental(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.append("r", [MetricsRecorded(step=4, metrics={"kl": 0.2})], 2)
    events = list(log.read("r"))
    first = project(events[:2])
    second = fold(first, events[2])
    assert first.step == 0 and first.last_seq == 2  # untouched
    assert second.step == 4 and second.last_metrics == {"kl": 0.2}
    assert project(events) == second
    assert project(events[2:], first) == second


def test_hyperparameter_changes_accumulate(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.append(
        "r", [HyperparametersChanged(changes={"learning_rate": 5e-5, "kl_penalty_coef": 0.02})], 2
    )
    state = project(log.read("r"))
    assert state.hyperparameters == {"learning_rate": 5e-5, "kl_penalty_coef": 0.02}


def test_a_passed_gate_that_judges_checkpoints_marks_the_checkpoint_good(tmp_path: Path) -> None:
    # The projection reads the verdict's own flag, not the gate's name: renaming it changes nothing.
    log = _log(tmp_path)
    gate = dict(stage="evaluation", metric="retention", threshold=0.95, comparator=">=")
    log.append("r", [CheckpointSaved(step=10, checkpoint="a" * 64)], 2)
    log.append(
        "r",
        [GateEvaluated(gate="any_name", value=0.99, passed=True, judges_checkpoint=True, **gate)],
        3,
    )
    log.append("r", [CheckpointSaved(step=20, checkpoint="b" * 64)], 4)
    log.append("r", [GateEvaluated(gate="other", value=0.99, passed=True, **gate)], 5)
    assert project(log.read("r")).last_good_checkpoint.digest == "a" * 64
    log.append(
        "r",
        [GateEvaluated(gate="any_name", value=0.80, passed=False, judges_checkpoint=True, **gate)],
        6,
    )
    state = project(log.read("r"))
    assert state.last_good_checkpoint.digest == "a" * 64
    assert state.latest_checkpoint.evals_passed is False


def test_a_rewind_skips_the_abandoned_span(tmp_path: Path) -> None:
    log = _log(tmp_path)
    log.append("r", [MetricsRecorded(step=1, metrics={"kl": 0.01})], 2)  # seq 3
    log.append("r", [MetricsRecorded(step=2, metrics={"kl": 0.9})], 3)  # seq 4, abandoned
    log.append("r", [HyperparametersChanged(changes={"learning_rate": 1.0})], 4)  # seq 5, abandoned
    log.append("r", [RunRewound(to_seq=3, reason="try again")], 5)  # seq 6
    state = project(log.read("r"))
    assert state.last_seq == 6
    assert state.step == 1 and state.last_metrics == {"kl": 0.01}
    assert state.hyperparameters == {"learning_rate": 1e-4}
    log.append("r", [MetricsRecorded(step=2, metrics={"kl": 0.02})], 6)
    assert project(log.read("r")).last_metrics == {"kl": 0.02}


def test_an_empty_state_is_created() -> None:
    assert RunState().state == "created"


def test_every_event_class_is_registered() -> None:
    import store.events as events

    classes = {
        name for name, obj in vars(events).items()
        if isinstance(obj, type) and issubclass(obj, events.Event) and obj is not events.Event
        and not obj.__dict__.get("_shared_base")  # a base of events (CitesEvidence)
    }  # fmt: skip
    assert classes == set(events.EVENT_TYPES)


def test_defining_an_event_class_registers_it_and_a_second_class_of_that_name_is_refused() -> None:
    import pytest

    from store.events import EVENT_TYPES, Event
    from store.upcasters import decode

    class ToyRecorded(Event):
        value: int

    try:
        assert EVENT_TYPES["ToyRecorded"] is ToyRecorded
        assert decode("ToyRecorded", 1, {"value": 3}) == ToyRecorded(value=3)
        with pytest.raises(TypeError, match="ToyRecorded"):

            class ToyRecorded(Event):  # noqa: F811 (the point: a second class of one name)
                other: str
    finally:
        EVENT_TYPES.pop("ToyRecorded", None)


def test_an_event_is_stored_as_its_full_json_form() -> None:
    # The log serialises an event's field dict directly; it must equal the model's own dump.
    import orjson

    from store.events import GateEvaluated, RolloutsSampled
    from store.log import canonical_json

    for event in (
        RolloutsSampled(
            step=1,
            n_groups=1,
            group_size=2,
            samples=[{"a": [1, {"b": None}]}],
            rewards=[[1.0, None]],
        ),
        GateEvaluated(
            gate="g", stage="s", metric="m", value=0.3, threshold=0.2, comparator=">=", passed=True
        ),
    ):
        assert orjson.loads(canonical_json(vars(event))) == event.model_dump()


def test_a_metric_first_logged_late_still_gets_its_early_values_and_its_first_value_after_a_checkpoint(
    tmp_path: Path,
) -> None:
    # The fold skips the per-metric work once every metric it has seen is complete: a metric that
    # appears only later must still be taken in.
    log = _log(tmp_path)
    log.append("r", [CheckpointSaved(step=0, checkpoint="c" * 64)], 2)
    for step in range(1, EARLY_METRICS + 6):
        metrics = {"kl": 0.1 * step, **({"entropy": float(step)} if step > EARLY_METRICS else {})}
        log.append("r", [MetricsRecorded(step=step, metrics=metrics)], log.last_seq("r"))
    state = project(log.read("r"))
    assert state.early_metrics["kl"] == tuple(0.1 * s for s in range(1, EARLY_METRICS + 1))
    assert state.early_metrics["entropy"] == tuple(
        float(s) for s in range(EARLY_METRICS + 1, EARLY_METRICS + 6)
    )
    assert state.lineage[-1].metrics_after == {"kl": 0.1, "entropy": float(EARLY_METRICS + 1)}


def test_dropping_a_checkpoint_s_optimizer_state_marks_every_copy_of_it_and_nothing_else(
    tmp_path: Path,
) -> None:
    log = _log(tmp_path)
    # The second checkpoint's bytes are saved again at step 3 (a deterministic replay does that).
    digests = [f"{i:064x}" for i in (0, 1, 2, 1)]
    saved = [CheckpointSaved(step=i, checkpoint=d) for i, d in enumerate(digests)]
    log.append("r", saved, 2)
    pruned = CheckpointsPruned(
        step=3, pruned=[], optimizer_dropped=[{"checkpoint": digests[1], "step": 1, "seq": 4}]
    )
    log.append("r", [pruned], log.last_seq("r"))
    state = project(log.read("r"))
    for refs in (state.lineage, state.checkpoints):
        assert [r.digest for r in refs] == digests
        assert [r.optimizer for r in refs] == [True, False, True, False]
    assert state.latest_checkpoint is not None and state.latest_checkpoint.optimizer is False


def test_a_step_row_s_step_is_its_own_whatever_its_samples_and_verdicts_carry(
    tmp_path: Path,
) -> None:
    # The fold reads a rollout row's step off the end of its text when it can: nested "step"
    # keys in the samples or verdicts (model output among them) must not be taken for it.
    log = _log(tmp_path)
    hostile = {"prompt": 'say ,"step":99}', "completions": ['","step":98}'], "step": 97}
    log.append(
        "r",
        [
            RolloutsSampled(step=3, n_groups=1, group_size=1, samples=[hostile], rewards=[[1.0]]),
            VerdictsRecorded(
                step=4,
                verifier={"kind": "math"},
                n_passed=1,
                n_total=1,
                verdicts=[{"ok": 1, "step": 96}],
            ),
        ],
        2,
    )
    rows = list(log.read("r"))
    assert rows[-2].payload.endswith(',"step":3}')  # the fast path's case: step is the last key
    state = project(rows[:-1])
    assert state.step == 3
    assert project(rows).step == 4


def test_a_rollout_batch_logged_before_policy_versions_reads_as_sampled_by_its_own_step() -> None:
    from store.upcasters import decode

    old = decode("RolloutsSampled", 1, {"step": 7, "n_groups": 1, "group_size": 2})
    assert old.policy_version == 7
    assert RolloutsSampled(step=7, n_groups=1, group_size=2, policy_version=5).policy_version == 5
