"""Resume: restore the last checkpoint, then re-run every step the log holds after it *without
appending* (same seeds, the logged rewards, the same decisions applied in the same order, each
step with the settings the log had in force for it): the log keeps each step once and the weights
end where an uninterrupted run's would. The settings are the log's fold from where the replay
begins, whatever the run's config says now (a branch's overrides apply from its own first step,
by its `HyperparametersChanged`), so a resume, a branch and a catch-up take them by construction."""

from __future__ import annotations

import math
from collections.abc import Sequence

import structlog

from stages.curriculum import curriculum_of
from stages.errors import StageInterrupted
from stages.rl.chaos import poison
from stages.rl.checkpoints import fresh, restore_newest_intact
from stages.rl.decisions import apply
from stages.rl.logged_step import logged_step, step_events
from stages.rl.session import RLSession
from stages.tasks.types import Task
from stages.training.types import TrainerState
from store.events import CatchUpDiverged, MetricsRecorded
from store.log import StoredEvent
from store.settings import Settings

log_ = structlog.get_logger("rlvr.rl")


def open_trainer(session: RLSession) -> TrainerState:
    """The live trainer: from this driver's memory, or restored from the log and blobs."""
    if session.trainer is not None:
        return session.trainer
    ctx = session.ctx
    checkpoint = ctx.state().latest_checkpoint
    if checkpoint is None:
        session.trainer, since = fresh(session), _first_step_seq(session)
    else:
        # The latest checkpoint, or the newest intact one before it (None: the base model).
        session.trainer, checkpoint = restore_newest_intact(session)
        since = _first_step_seq(session) if checkpoint is None else checkpoint.seq
    at = ctx.state_at(since)
    tasks = curriculum_of(
        session.services,
        at.stage_results.get("TrainingSetBuilt", {}).get("pass_rates", {}),
        at.stage_seqs.get("TrainingSetBuilt"),
    )
    try:
        catch_up(session, ctx.read(since + 1), tasks, session.settings(at))
    except Diverged as e:
        session.trainer = None  # weights that are not the log's: never train on or save them
        ctx.emit([CatchUpDiverged(
            step=e.step, checkpoint=checkpoint.digest if checkpoint else None, metrics=e.metrics
        )])  # fmt: skip
        raise StageInterrupted(
            f"resume could not reproduce step {e.step} from the log "
            f"({', '.join(sorted(e.metrics))} differ): paused rather than train on other weights"
        ) from e
    return session.trainer


class Diverged(Exception):
    """A recomputed step's figures differ from the logged ones."""

    def __init__(self, step: int, metrics: dict) -> None:
        super().__init__(f"step {step}: {sorted(metrics)}")
        self.step, self.metrics = step, metrics


def _first_step_seq(session: RLSession) -> int:
    """With no checkpoint yet, every logged step is replayed from the base model."""
    first = next((r.seq for r in session.ctx.read(1) if r.type == "RolloutsSampled"), None)
    return (first - 1) if first is not None else session.ctx.state().last_seq


def catch_up(
    session: RLSession, after: Sequence[StoredEvent], tasks: list[Task], settings: Settings
) -> None:
    """Recompute the steps logged after the restored checkpoint with their logged rewards,
    switching curriculum, changing settings and applying decisions exactly where the log did.
    `settings`: those in force where `after` begins (the log's fold there)."""
    trainer = session.trainer
    assert trainer is not None
    replayed, step_rows = 0, []
    for row in after:
        if row.type == "TrainingSetBuilt":
            tasks = curriculum_of(session.services, row.event.pass_rates, row.seq)
        elif row.type == "RolloutsSampled":
            step_rows = [row.event]
        elif row.type == "BatchRefilled":
            step_rows.append(row.event)
        elif row.type == "MetricsRecorded":
            _replay_step(session, tasks, settings, [*step_rows, row.event])
            replayed += 1
        elif row.type == "HyperparametersChanged":
            settings = settings.changed(row.event.changes)
        elif row.type == "RolledBack":
            apply(session, [row])
        elif row.type == "FaultInjected" and row.event.kind == "capability_poison":
            poison(session, row.event.parameters)
    session.services.rl.discarded = []  # the log holds their `RolloutsDiscarded` already
    if replayed:
        log_.info("caught up from checkpoint", steps=replayed, now_at=trainer.step)


def _replay_step(
    session: RLSession, tasks: list[Task], settings: Settings, step_rows: list
) -> None:
    """Recompute one logged step (its rows: `RolloutsSampled`, `BatchRefilled`s, then
    `MetricsRecorded`); `Diverged` when its figures are not the log's."""
    trainer, logged = session.trainer, step_rows[-1]
    assert trainer is not None
    if logged.step != trainer.step:  # the restored weights are not the log's either
        raise Diverged(logged.step, {"step": {"logged": logged.step, "recomputed": trainer.step}})
    attempt = int(logged.metrics.get("attempt") or 0)
    events = step_events(session, tasks, attempt, settings, replay=logged_step(step_rows))
    recomputed = next(e for e in events if isinstance(e, MetricsRecorded)).metrics
    drift = {k: {"logged": logged.metrics[k], "recomputed": recomputed.get(k)}
             for k in logged.metrics if not k.endswith("_s") and not k.endswith("per_s")
             and _differs(logged.metrics[k], recomputed.get(k), session.keyed)}  # fmt: skip
    if drift:
        log_.error("catch-up step differs from the log", step=logged.step, metrics=sorted(drift))
        raise Diverged(logged.step, drift)


# A distributed run resumed with another split or on fewer ranks sums each rank's gradients in
# another order: its figures may move in the last bits (and its weights with them). Beyond this
# relative difference the recomputed step is another step. A world of one must match exactly.
DISTRIBUTED_TOLERANCE = 1e-4


def _differs(logged: float | None, recomputed: float | None, distributed: bool) -> bool:
    if logged is None or recomputed is None or not distributed:
        return logged != recomputed
    return not math.isclose(logged, recomputed, rel_tol=DISTRIBUTED_TOLERANCE, abs_tol=1e-7)


def owes_schedule(session: RLSession, due: bool, last_step: bool) -> bool:
    """A crash between a step's two batches (the step with its decisions, then its checkpoint and
    eval) leaves the second unwritten. True when the last logged step was a `due` one and the log
    holds neither a checkpoint nor an eval of it, nor (unless it is the stage's last step, which
    is checkpointed anyway) a rollback that voided it."""
    trainer, state = session.trainer, session.ctx.state()
    if trainer is None or trainer.step == 0 or not due or not state.metrics_window:
        return False
    after = session.ctx.read(state.metrics_window[-1].seq + 1)
    if any(r.type == "RolledBack" for r in after) and not last_step:
        return False
    return not any(
        r.type in ("CheckpointSaved", "EvalRecorded") and r.event.step == trainer.step
        for r in after
    )
