"""What the policies read from the folded state: metric windows, current hyper-parameters,
capability drops and safe checkpoints. Pure helpers shared by the policy modules.

The fold keeps raw numbers only (see `RunState.metrics_window`); every threshold is applied here,
from the config passed in, so one log can be judged under any settings.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence

from policies.types import Decision
from store.projections import CheckpointRef, MetricsRef, RunState
from store.settings import BY_NAME as SETTINGS


def hyperparameter(state: RunState, name: str) -> float | None:
    """The value in force of setting `name` (store/settings.py): the log's fold first, else the
    latest step's metric of that name (a log from before the setting was recorded)."""
    if name not in SETTINGS:
        raise KeyError(f"{name!r} is not a setting a run changes (store/settings.py)")
    value = state.hyperparameters.get(name)
    if value is None and state.metrics_window:
        value = state.metrics_window[-1].metrics.get(name)
    return None if value is None else float(value)


def since(state: RunState, seq: int) -> tuple[MetricsRef, ...]:
    """The window's steps recorded after `seq` (the window is in seq order: a bisection, since
    every trigger event of a replay asks this of every policy)."""
    window = state.metrics_window
    if not window or window[0].seq > seq:
        return window  # the usual case: no rollback or recovery inside the window
    return window[bisect_right(window, seq, key=lambda m: m.seq) :]


def trailing_run(
    entries: Sequence[MetricsRef], predicate: Callable[[dict], bool]
) -> tuple[MetricsRef, ...]:
    """The longest suffix of `entries` whose every step's metrics satisfy `predicate`."""
    start = len(entries)
    while start > 0 and predicate(entries[start - 1].metrics):
        start -= 1
    return tuple(entries[start:])


# Scores are shares of a finite set: 0.95 vs a baseline of 1.0 is a 5% drop, not 5.0000000000000044%.
_TOLERANCE = 1e-9


def too_far(drop: float, max_drop: float) -> bool:
    """Whether a capability drop exceeds the allowed one (beyond float noise)."""
    return drop > max_drop + _TOLERANCE


def capability_drops(capability: dict, baseline: dict) -> dict[str, float]:
    """Relative drop below baseline per benchmark scored in both (positive means worse)."""
    return {
        name: (base - capability[name]) / base
        for name, base in baseline.items()
        if name in capability and base
    }


def evals_passed(state: RunState, ref: CheckpointRef, max_drop: float) -> bool | None:
    """Whether the latest eval of this checkpoint kept every benchmark within `max_drop` of
    baseline; None when it was never evaluated."""
    for ev in reversed(state.evals):
        if ev.checkpoint == ref.digest or (ev.checkpoint is None and ev.step == ref.step):
            drops = capability_drops(ev.capability, state.baseline_capability)
            return not any(too_far(drop, max_drop) for drop in drops.values())
    return None


def rollback_target(
    state: RunState,
    before_step: int,
    max_drop: float,
    *,
    require_passed: bool,
    healthy: Callable[[CheckpointRef], bool] | None = None,
) -> CheckpointRef | None:
    """The latest checkpoint of the live trajectory saved before `before_step` whose evals did
    not fail (with `require_passed`: whose evals passed) and that `healthy` accepts; else the
    baseline checkpoint."""
    for ref in reversed(state.lineage):
        if ref.step >= before_step or (healthy is not None and not healthy(ref)):
            continue
        passed = evals_passed(state, ref, max_drop)
        if passed is False or (require_passed and passed is None):
            continue
        return ref
    if state.baseline_checkpoint is not None:
        return CheckpointRef(step=0, digest=state.baseline_checkpoint, seq=state.baseline_seq or 0)
    return None


def rollback_or_fail(
    policy: str,
    state: RunState,
    target: CheckpointRef | None,
    *,
    step: int,
    trigger_metric: str,
    value: float | None,
    threshold: float | None,
    evidence: list[int],
    reason: str,
    onset: dict | None = None,
) -> Decision:
    """A rollback from `step` to `target`, or a `fail` saying there is nothing safe to go back to.
    `onset`: where the excursion began and first crossed (policies/onset.py), kept in the
    parameters so `why` and `replay` show them."""
    if target is None:
        return Decision(
            policy=policy,
            action="fail",
            trigger_metric=trigger_metric,
            value=value,
            threshold=threshold,
            evidence_seqs=evidence,
            parameters=dict(onset or {}),
            reason=f"{reason}; no checkpoint to roll back to",
        )
    return Decision(
        policy=policy,
        action="rollback",
        trigger_metric=trigger_metric,
        value=value,
        threshold=threshold,
        evidence_seqs=[*evidence, target.seq],
        parameters={
            "checkpoint": target.digest,
            "to_step": target.step,
            "from_step": step,
            "checkpoint_seq": target.seq,
            **(onset or {}),
        },
        reason=f"{reason}; rolling back from step {step} to the checkpoint of step {target.step}",
    )


def scaled(
    state: RunState,
    name: str,
    factor: float,
    lower: float = 0.0,
    upper: float = float("inf"),
    base: float | None = None,
) -> float | None:
    """`name`'s current value (or `base`, when given) times `factor`, kept in [lower, upper];
    None when the value is unknown or would not change."""
    current = hyperparameter(state, name)
    if current is None:
        return None
    new = min(max((current if base is None else base) * factor, lower), upper)
    # A bound must never turn a reduction into a raise (or the reverse).
    moved = new < current if factor < 1 else new > current
    return new if moved else None


def describe_changes(state: RunState, changes: dict) -> str:
    return ", ".join(
        f"{name} {_fmt(hyperparameter(state, name))} -> {_fmt(value)}"
        for name, value in changes.items()
    )


def _fmt(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.4g}"
