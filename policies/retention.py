"""Checkpoint retention: which of a run's checkpoints stay (a pure function of the folded state).

Retention keeps, of the run's checkpoints (`RunState.checkpoints`: saved and not yet pruned):
- the last `keep_last` (the newest is the final one, and the resume fallbacks);
- the last good one (its evals passed a gate that judges checkpoints: the rollback target);
- the best by held-out verify rate among those whose evals kept every capability benchmark within
  the rollback policy's allowed drop;
- every checkpoint a rollback policy may still pick (`policies.signals.rollback_target` for any
  trigger the policies' windows still allow, under each policy's rule).
Everything else is pruned, and so is every checkpoint a `resume --from` abandoned (no rollback or
resume of this run can reach it; a branch cut inside that span copied the rows that name it, so
the GC still counts it referenced). Of the checkpoints that stay, only the newest
`keep_optimizer_last` keep their optimizer state (the AdamW moments: two thirds of a full
fine-tune's checkpoint); older ones keep their weights. A rollback to one of those restores its
weights with a fresh AdamW state (`RolledBack.fresh_optimizer`), and a resume (or branch) falls
back to the newest checkpoint that still has its optimizer state, or the base model, since only
that replays the logged steps exactly. A checkpoint a logged rollback restored stays, with its
optimizer state if it had it then: a resume or branch cut after that rollback re-applies it.
All of it goes in one `CheckpointsPruned` event, then the driver deletes the blobs no run of the
store references any more (orchestrator/driver/checkpoints.py: a branch shares its parent's
checkpoints, and the disk budget `max_bytes`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from policies.signals import evals_passed, rollback_target
from store.events import CheckpointsPruned
from store.projections import CheckpointRef, RunState

# `config` below: an orchestrator.config.RunConfig, typed loosely (the orchestrator imports this
# module's CheckpointsConfig).
RunConfig = Any


class CheckpointsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    keep_last: int | None = Field(
        None,
        ge=1,
        le=1_000_000,
        description="Keep the last K checkpoints (plus the last good, the best and any rollback "
        "target); older ones are pruned and their blobs deleted. Default: keep every checkpoint.",
    )
    max_bytes: int | None = Field(
        None,
        ge=1,
        le=2**60,
        description="Bound on the bytes of a run's retained checkpoints: a checkpoint that would "
        "exceed it pauses the run instead (`rlvr resume RUN checkpoints.max_bytes=N`).",
    )
    keep_optimizer_last: int | None = Field(
        2,
        ge=1,
        le=1_000_000,
        description="Only the newest N retained checkpoints keep their optimizer state; older "
        "ones keep their weights (a rollback to one starts a fresh AdamW state; a resume falls "
        "back to the newest checkpoint with its optimizer state). None: keep it for every one.",
    )


def _rollback_targets(state: RunState, config: RunConfig) -> list[tuple[str, CheckpointRef]]:
    """Every checkpoint a rollback policy could pick from now on, with why."""
    policies = config.policies
    drop, kl_limit = policies.rollback.max_capability_drop, policies.kl.limit
    # A policy fires on a trailing run of bad steps at most this long, and rolls back to before
    # its first step: no future trigger looks back further than this.
    window = max(policies.kl.rollback_after_steps, policies.entropy.consecutive_steps, 1)
    rules = (
        ("capability rollback target", {"require_passed": True}),
        ("rollback target", {"require_passed": False}),
        ("KL rollback target", {
            "require_passed": False,
            "healthy": lambda r: r.metrics_after.get("kl") is None
            or r.metrics_after["kl"] <= kl_limit,
        }),
    )  # fmt: skip
    out = []
    for before in range(max(state.step + 1 - window, 1), state.step + 2):
        for why, kwargs in rules:
            target = rollback_target(state, before, drop, **kwargs)
            if target is not None and target.step > 0:  # step 0: the base model, never pruned
                out.append((why, target))
    return out


def retained(state: RunState, config: RunConfig, keep_last: int) -> dict[str, list[str]]:
    """Digest -> why it is kept, for each checkpoint of `state.checkpoints` that must stay."""
    checkpoints = state.checkpoints
    why: dict[str, list[str]] = {}

    def keep(ref: CheckpointRef | None, reason: str) -> None:
        if ref is not None and any(c.digest == ref.digest for c in checkpoints):
            why.setdefault(ref.digest, [])
            if reason not in why[ref.digest]:
                why[ref.digest].append(reason)

    for ref in checkpoints[-keep_last:]:
        keep(ref, f"one of the last {keep_last}")
    keep(state.last_good_checkpoint, "last good (rollback target)")
    drop = config.policies.rollback.max_capability_drop
    rates = {ev.checkpoint: ev.verify_rate for ev in state.evals if ev.checkpoint is not None}
    intact = [
        c for c in checkpoints
        if c.digest in rates and evals_passed(state, c, drop) is not False
    ]  # fmt: skip
    if intact:
        keep(max(intact, key=lambda c: (rates[c.digest], c.seq)), "best held-out verify rate")
    for reason, ref in _rollback_targets(state, config):
        keep(ref, reason)
    for digest in state.rolled_back_to:
        # A resume or branch cut between that rollback and the next checkpoint replays it.
        ref = next((c for c in checkpoints if c.digest == digest), None)
        keep(ref, "restored by a logged rollback (a cut after it replays it)")
    return why


def plan(state: RunState, config: RunConfig) -> CheckpointsPruned | None:
    """The pruning the retention rule calls for now, or None."""
    keep_last = config.checkpoints.keep_last
    pruned: list[dict[str, Any]] = []
    kept: list[dict[str, Any]] = []
    reason = ""
    if keep_last is not None:
        why = retained(state, config, keep_last)
        gone = [c for c in state.checkpoints if c.digest not in why]
        pruned = [{"step": c.step, "checkpoint": c.digest, "seq": c.seq} for c in gone]
        pruned += [
            {"step": c.step, "checkpoint": c.digest, "seq": c.seq,
             "why": "abandoned by a rewind (resume --from): no longer part of the run"}
            for c in state.abandoned_checkpoints
        ]  # fmt: skip
        kept = [
            {"step": c.step, "checkpoint": c.digest, "why": why[c.digest]}
            for c in state.checkpoints
            if c.digest in why
        ]
        reason = (
            f"checkpoints.keep_last = {keep_last}: not among the last {keep_last}, "
            "not the last good, the best or a rollback target"
        )
    going = {p["checkpoint"] for p in pruned}
    dropped = _optimizer_dropped(state, config, going)
    if not pruned and not dropped:
        return None
    keep_optimizer = config.checkpoints.keep_optimizer_last
    return CheckpointsPruned(
        step=state.step,
        pruned=pruned,
        kept=kept,
        reason=reason,
        optimizer_dropped=[{"step": c.step, "checkpoint": c.digest, "seq": c.seq} for c in dropped],
        optimizer_reason=(
            f"checkpoints.keep_optimizer_last = {keep_optimizer}: weights kept, optimizer state "
            f"only for the newest {keep_optimizer}"
        )
        if dropped
        else "",
    )


def _optimizer_dropped(state: RunState, config: RunConfig, going: set[str]) -> list[CheckpointRef]:
    """Retained checkpoints older than the newest `keep_optimizer_last` that still have their
    optimizer state, but for those a logged rollback restored with it (a resume's catch-up
    that re-applies the rollback needs the same state)."""
    keep_optimizer = config.checkpoints.keep_optimizer_last
    if keep_optimizer is None:
        return []
    staying = [c for c in state.checkpoints if c.digest not in going]
    newest = {c.digest for c in staying[-keep_optimizer:]}
    return [
        c for c in staying
        if c.optimizer and c.digest not in newest and c.digest not in state.rolled_back_to
    ]  # fmt: skip


def staying_after_next(state: RunState, config: RunConfig) -> tuple[CheckpointRef, ...]:
    """The checkpoints still retained once the next one is saved and pruning has run (it takes
    one of the last-K places)."""
    keep_last = config.checkpoints.keep_last
    if keep_last is None:
        return state.checkpoints
    why = retained(state, config, keep_last)
    newest = {c.digest for c in state.checkpoints[len(state.checkpoints) - keep_last + 1 :]}
    return tuple(
        c for c in state.checkpoints
        if c.digest in newest
        or any(not w.startswith("one of the last") for w in why.get(c.digest, []))
    )  # fmt: skip
