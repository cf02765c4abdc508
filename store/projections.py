"""`RunState = fold(events)`: a pure, incremental projection of a run's log.

Nothing else keeps a copy of the truth: stage, step, hyper-parameters, baseline and latest evals,
checkpoints and counters are all derived here. A gap in `seq` raises `SequenceGapError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from operator import attrgetter
from typing import Any

from store.errors import SequenceGapError
from store.event_base import MAX_STEP
from store.log import StoredEvent
from store.rows import PAYLOAD_ERRORS, payload_mismatch
from store.run_state import (  # noqa: F401  (re-exported: readers import them from here)
    EARLY_METRICS,
    METRICS_WINDOW,
    CheckpointRef,
    EvalRef,
    GateRecord,
    MetricsRef,
    RunState,
)
from store.setting_values import checked_settings

_DIGEST = attrgetter("digest")


def _merge(mapping: dict, key: str, value: Any) -> dict:
    # States are values: never mutate a mapping another state may share.
    return {**mapping, key: value}


# The rows of every step: the few fields of metrics and verdicts are checked by hand (`_metrics`,
# `_verdicts`); building pydantic events for 200k of them is the slow part of a long fold.
_PER_STEP = frozenset({"MetricsRecorded", "RolloutsSampled", "VerdictsRecorded"})


def decoded_payload(stored: StoredEvent) -> dict[str, Any]:
    """The payload as the current code knows it (upcast), as plain JSON values
    (`StoredEvent.fields`). Any other row is checked against its event's schema first: a
    chain-consistent row the code never wrote ("capability": [1]) is refused by its seq here, not
    kept in the state for a reader to trip over."""
    if stored.type in _PER_STEP:
        return stored.fields()
    return stored.checked_fields()


# A metric's value: a number or None (type() of each value, compared as a set, runs in C: this is
# checked on every step's row).
_METRIC_TYPES = frozenset({int, float, type(None)})


# The step's range is the events' schema's (`store.event_base.Step`), checked by hand here only
# for the per-step rows the fold reads without building their events.


def _checked_step(step: Any) -> int:
    if type(step) is not int:
        raise TypeError(f"step {step!r} is not an integer")
    if not 0 <= step <= MAX_STEP:
        raise ValueError(f"step {step} is out of range (0..{MAX_STEP})")
    return step


def fold(state: RunState, stored: StoredEvent) -> RunState:
    """Apply one stored event. Pure: returns a new state, never mutates `state`."""
    return _apply(replace(state), stored)


def fold_in_place(state: RunState, stored: StoredEvent) -> RunState:
    """Apply one stored event to a state that no one else holds (a reader's private fold):
    `fold` without the copy, for readers that fold a whole run one event at a time."""
    return _apply(state, stored)


def fold_checked_before(state: RunState, stored: StoredEvent) -> RunState:
    """`fold_in_place` for a row at or before a usable snapshot's seq (`replay`): the fold that
    wrote the snapshot checked the row against its schema, and the chain, walked by the read,
    pins its text since. A step's `RolloutsSampled` row (its 256 rewards, ~15 us to check again:
    a quarter of a 10,000-step replay) then gives only its step, its canonical text's last key;
    every other row folds as `fold_in_place` folds it."""
    if stored.type == "RolloutsSampled" and stored.seq == state.last_seq + 1:
        step = _last_step(stored.payload)
        if step is not None:
            state.last_seq, state.run_id = stored.seq, stored.run_id
            state.step = max(state.step, step)
            return state
    return _apply(state, stored)


def _last_step(payload: str) -> int | None:
    """The step a canonical `RolloutsSampled` payload ends with (`...,"step":12}`: its keys are
    sorted), or None for any other text (which then folds the whole way)."""
    at = payload.rfind(',"step":')
    digits = payload[at + 8 : -1]
    if at < 0 or not payload.endswith("}") or not (digits.isascii() and digits.isdigit()):
        return None
    step = int(digits)
    return step if step <= MAX_STEP else None


def _apply(state: RunState, stored: StoredEvent) -> RunState:
    # Handlers set attributes on `state` in place: callers hand them a private copy.
    if stored.seq != state.last_seq + 1:
        raise SequenceGapError(
            f"run {stored.run_id}: seq {stored.seq} follows {state.last_seq} (a gap in the log)"
        )
    state.last_seq = stored.seq
    state.run_id = stored.run_id
    handler = _HANDLERS.get(stored.type)
    try:
        if handler is not None:
            handler(state, stored)
        elif stored.type != "RunRewound":  # `project`'s
            # A type the fold has no use for (a stage's start, a pause request: a few rows a run)
            # is still a row the code wrote: decoded, an unknown type or a payload that is not
            # its event's is refused by its seq, as `verify` refuses it (red team round 30).
            _ = stored.event
    except PAYLOAD_ERRORS as e:
        # A chain-consistent row the code never wrote: refuse it by its seq, not a traceback.
        raise payload_mismatch(stored, e) from e
    return state


def project(
    events: Iterable[StoredEvent],
    state: RunState | None = None,
    state_at: Callable[[int], RunState] | None = None,
) -> RunState:
    """Fold a whole history. A `RunRewound` restores the state as of its `to_seq`; the abandoned
    span stays in the log but no longer counts. `state_at(seq)` gives that earlier state (from
    the store, see `store.snapshots.fold_run`); without it the events are kept in memory to
    re-fold the prefix."""
    state = replace(state) if state is not None else RunState()
    history: list[StoredEvent] = []
    for stored in events:
        if stored.type == "RunRewound":
            try:
                to_seq = int(decoded_payload(stored)["to_seq"])
            except PAYLOAD_ERRORS as e:
                raise payload_mismatch(stored, e) from e
            before = state
            if state_at is not None:
                state = state_at(to_seq)
            else:
                # Re-fold the prefix (it may hold earlier rewinds, which re-apply themselves).
                history = [e for e in history if e.seq <= to_seq]
                state = project(history)
            state.abandoned_checkpoints = _abandoned(before, state)
            state.last_seq = stored.seq
            state.run_id = stored.run_id
            if state_at is None:
                history.append(stored)
            continue
        if state_at is None:
            history.append(stored)
        _apply(state, stored)
    return state


def _abandoned(before: RunState, after: RunState) -> tuple[CheckpointRef, ...]:
    """The checkpoints a rewind from `before` back to `after` leaves out of the live run (a
    digest saved again before the cut stays live)."""
    live = {c.digest for c in after.checkpoints}
    out: dict[str, CheckpointRef] = {}
    for ref in (*after.abandoned_checkpoints, *before.abandoned_checkpoints, *before.checkpoints):
        if ref.digest not in live:
            out.setdefault(ref.digest, ref)
    return tuple(sorted(out.values(), key=lambda c: c.seq))


def _run_started(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    s.config = p["config"]
    s.config_hash = p["config_hash"]
    s.parent = (p["parent_run_id"], p["parent_seq"]) if p.get("parent_run_id") else None
    s.hyperparameters = dict(checked_settings(p["hyperparameters"]))
    s.data_digest = p.get("data_digest")


def _state_changed(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    s.state = p["dest"]
    s.paused_from = p["source"] if p["dest"] == "paused" else None
    s.finished = p["dest"] in ("completed", "failed")


def _run_failed(s: RunState, e: StoredEvent) -> None:
    s.failure_reason = decoded_payload(e)["reason"]


def _baseline(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    s.baseline_verify_rate = p["verify_rate"]
    s.baseline_capability = p["capability"]
    s.baseline_seq = e.seq
    s.baseline_checkpoint = p.get("checkpoint")
    s.stage_seqs = _merge(s.stage_seqs, e.type, e.seq)


def _stage_result(s: RunState, e: StoredEvent) -> None:
    # Gates read these numbers; long lists (dropped tasks, accepted answers) stay in the log.
    small = {k: v for k, v in decoded_payload(e).items() if not isinstance(v, list)}
    s.stage_seqs = _merge(s.stage_seqs, e.type, e.seq)
    s.stage_results = _merge(s.stage_results, e.type, small)


def _step_event(s: RunState, e: StoredEvent) -> None:
    # Only the step counts here, but the whole row is checked, strict as `events export` checks
    # it (~10 us a row): a rollout row the code never wrote, its chain recomputed, is refused by
    # its seq. (Reading the step out of the payload's last digits let `n_groups: "x"` through.)
    step = _checked_step(e.event.step)
    if step > s.step:
        s.step = step


def _verdicts(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    s.step = max(s.step, _checked_step(p["step"]))
    if not isinstance(p["verifier"], dict):
        raise TypeError("verifier is not an object")
    if s.verifier and p["verifier"] != s.verifier:
        change = {"step": p["step"], "seq": e.seq, "from": s.verifier, "to": p["verifier"]}
        s.verifier_changes = (*s.verifier_changes, change)
    s.verifier = p["verifier"]


def _metrics(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    s.step = max(s.step, _checked_step(p["step"]))
    if not isinstance(p["metrics"], dict) or not _METRIC_TYPES.issuperset(
        map(type, p["metrics"].values())
    ):
        raise TypeError("metrics is not an object of numbers")
    s.last_metrics = p["metrics"]
    s.metrics_window = (
        *s.metrics_window[-(METRICS_WINDOW - 1) :],
        MetricsRef(p["step"], e.seq, p["metrics"]),
    )
    metrics = p["metrics"]
    if s.lineage:
        after = s.lineage[-1].metrics_after
        # A subset test first (no set built): after a checkpoint's first step, every metric is
        # usually known.
        if metrics.keys() <= after.keys():
            first = None
        else:
            first = {k: v for k, v in metrics.items() if k not in after and v is not None}
        if first:
            ref = replace(s.lineage[-1], metrics_after={**after, **first})
            s.lineage = (*s.lineage[:-1], ref)
    early = s.early_metrics
    if metrics.keys() <= early.keys() and min(map(len, early.values()), default=0) >= EARLY_METRICS:
        return  # every metric has its early values (checked in C: this runs on every step)
    grown = {
        k: (*early.get(k, ()), v)
        for k, v in metrics.items()
        if v is not None and len(early.get(k, ())) < EARLY_METRICS
    }
    if grown:
        s.early_metrics = {**early, **grown}


def _step_failed(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    key = f"{p['step']}:{p['kind']}"
    s.step_failures = _merge(s.step_failures, key, s.step_failures.get(key, 0) + 1)


def _eval(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    s.last_eval = {**p, "seq": e.seq}
    ref = EvalRef(p["step"], e.seq, p["verify_rate"], p["capability"], p.get("checkpoint"))
    s.evals = (*s.evals, ref)


def _checkpoint(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    ref = CheckpointRef(step=p["step"], digest=p["checkpoint"], seq=e.seq)
    s.latest_checkpoint = ref
    s.lineage = (*s.lineage, replace(ref, hyperparameters=s.hyperparameters))
    s.checkpoints = (*s.checkpoints, ref)
    if any(c.digest == ref.digest for c in s.abandoned_checkpoints):
        # Saved again after a rewind (a deterministic replay writes the same bytes): live again.
        s.abandoned_checkpoints = tuple(
            c for c in s.abandoned_checkpoints if c.digest != ref.digest
        )


def _pruned(s: RunState, e: StoredEvent) -> None:
    # A pruned checkpoint's blobs may be gone: nothing may roll back or fall back to it.
    p = decoded_payload(e)
    gone = {c["checkpoint"] for c in p["pruned"]}
    if gone:  # retention often drops only optimizer state
        s.lineage = tuple(ref for ref in s.lineage if ref.digest not in gone)
        s.checkpoints = tuple(ref for ref in s.checkpoints if ref.digest not in gone)
        s.abandoned_checkpoints = tuple(r for r in s.abandoned_checkpoints if r.digest not in gone)
    # Weights without their optimizer state: a rollback restores them with a fresh AdamW state,
    # a resume cannot replay the log from them.
    dropped = {c["checkpoint"] for c in p.get("optimizer_dropped", ())}
    if dropped:

        def strip(ref: CheckpointRef | None) -> CheckpointRef | None:
            if ref is None or ref.digest not in dropped:
                return ref
            return replace(ref, optimizer=False)

        def strip_all(refs: tuple[CheckpointRef, ...]) -> tuple[CheckpointRef, ...]:
            # Usually one or two of hundreds change: find them, copy the rest as they are.
            hits = [i for i, digest in enumerate(map(_DIGEST, refs)) if digest in dropped]
            if not hits:
                return refs
            out = list(refs)
            for i in hits:
                out[i] = replace(out[i], optimizer=False)
            return tuple(out)

        s.lineage = strip_all(s.lineage)
        s.checkpoints = strip_all(s.checkpoints)
        s.latest_checkpoint = strip(s.latest_checkpoint)
        s.last_good_checkpoint = strip(s.last_good_checkpoint)


def _overridden(s: RunState, e: StoredEvent) -> None:
    s.config_overrides = (*s.config_overrides, *decoded_payload(e)["overrides"])


def _gate(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    record = GateRecord(
        p["gate"], p["stage"], p["metric"], p["value"], p["threshold"], p["comparator"],
        p["passed"], e.seq,
    )  # fmt: skip
    s.gates = _merge(s.gates, p["gate"], record)
    # A checkpoint whose evals passed a gate that judges checkpoints is a safe place to roll back to.
    if p["judges_checkpoint"] and s.latest_checkpoint is not None:
        ref = replace(s.latest_checkpoint, evals_passed=p["passed"])
        s.latest_checkpoint = ref
        if p["passed"]:
            s.last_good_checkpoint = ref


def _policy(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    key = f"{p['policy']}:{p['action']}"
    s.decisions = _merge(s.decisions, key, s.decisions.get(key, 0) + 1)
    s.decision_seqs = _merge(s.decision_seqs, key, e.seq)


def _hyperparameters(s: RunState, e: StoredEvent) -> None:
    s.hyperparameters = {**s.hyperparameters, **checked_settings(decoded_payload(e)["changes"])}


def _rolled_back(s: RunState, e: StoredEvent) -> None:
    s.rollbacks += 1
    s.last_rollback_seq = e.seq
    # The live trajectory now continues from the restored checkpoint: later ones are abandoned.
    digest = decoded_payload(e)["checkpoint"]
    if digest not in s.rolled_back_to:
        s.rolled_back_to = (*s.rolled_back_to, digest)
    kept = [i for i, ref in enumerate(s.lineage) if ref.digest == digest]
    s.lineage = s.lineage[: kept[-1] + 1] if kept else ()


def _lease(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    s.lease_owner = p["owner"]
    s.lease_expires_at = p["expires_at"]


def _branched(s: RunState, e: StoredEvent) -> None:
    p = decoded_payload(e)
    s.parent = (p["parent_run_id"], p["parent_seq"])
    s.config_overrides = (*s.config_overrides, *p["overrides"])


def _supervisor(s: RunState, e: StoredEvent) -> None:
    if decoded_payload(e)["action"] == "restart":
        s.supervisor_restarts += 1
    s.last_supervisor_action_at = e.recorded_at


_HANDLERS = {
    "RunStarted": _run_started,
    "StateChanged": _state_changed,
    "RunFailed": _run_failed,
    "BaselineRecorded": _baseline,
    "SFTCompleted": _stage_result,
    "TrainingStoppedEarly": _stage_result,
    "TasksDesigned": _stage_result,
    "VerifierCalibrated": _stage_result,
    "TrainingSetBuilt": _stage_result,
    "RolloutsSampled": _step_event,
    "VerdictsRecorded": _verdicts,
    "MetricsRecorded": _metrics,
    "StepFailed": _step_failed,
    "EvalRecorded": _eval,
    "CheckpointSaved": _checkpoint,
    "CheckpointsPruned": _pruned,
    "SettingsOverridden": _overridden,
    "GateEvaluated": _gate,
    "PolicyDecided": _policy,
    "HyperparametersChanged": _hyperparameters,
    "RolledBack": _rolled_back,
    "LeaseAcquired": _lease,
    "RunBranched": _branched,
    "SupervisorActed": _supervisor,
}
