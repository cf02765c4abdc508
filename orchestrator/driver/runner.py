"""The driver: moves a run through its stages, appends what they emit, and applies the gates.

Each stage runs, emitting its events through `ctx.emit` (one transaction per call). Then the stage's
gates are evaluated as pure functions of the folded state; the verdicts and the resulting
`StateChanged` are appended together, so a crash never leaves a verdict without its consequence.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.exc import DBAPIError

from orchestrator.config import RunConfig
from orchestrator.driver.checkpoints import (
    ORPHAN_GRACE_S,
    claim,
    collect_garbage,
    over_budget,
    with_rollouts,
)
from orchestrator.driver.commands import load_state, transition
from orchestrator.driver.machine import STAGES
from orchestrator.driver.references import ReferenceCache
from orchestrator.errors import OrchestratorError
from orchestrator.logging import bind, get_logger
from policies.consequences import consequences
from policies.engine import with_decisions
from policies.gates import evaluate
from policies.retention import plan
from stages.distributed import World
from stages.services import RunServices
from stages.types import Stage, StageContext, StageError, StageInterrupted
from store import blob_users
from store.blobs import BlobStore, BlobWriteError
from store.errors import ConcurrencyError, StoreError
from store.events import Event, RunCompleted, RunFailed, RunPaused, StageStarted
from store.log import EventLog, StoredEvent
from store.projections import RunState, project
from store.retry import StoreUnavailable, with_retries
from store.rewinds import Rewinds
from store.snapshots import Snapshots, fold_run, maybe_snapshot

log_ = get_logger("rlvr.runner")


class RunNotPaused(OrchestratorError):
    """A runtime condition stopped the run and the store could not record the pause."""


class Driver:
    """Owns one run for the life of a process: its log, blobs, stages and the services its stages
    share (`RunServices`: built here, in memory only)."""

    def __init__(
        self,
        log: EventLog,
        run_id: str,
        config: RunConfig,
        stages: Mapping[str, Stage],
        *,
        run_dir: Path,
        blobs: BlobStore,
        should_stop: Callable[[], bool] = lambda: False,
        stop_reason: Callable[[], str] = lambda: "stop requested",
        release_lease: Callable[[], None] = lambda: None,
        state: RunState | None = None,
        world: World | None = None,
        on_stage: Callable[[str], None] = lambda line: None,
    ) -> None:
        """`state`: the run's folded state when the caller has it (resume folds once). `world`:
        the `mlx.launch` group this process is rank 0 of (default: a world of one). `on_stage`:
        told "stage k/7: NAME (elapsed)" as each stage starts (the CLI prints it)."""
        self.on_stage = on_stage
        self.started = time.monotonic()
        self.should_stop = should_stop
        self.release_lease = release_lease
        self.stop_reason = stop_reason
        self.log = log
        self.run_id = run_id
        self.config = config
        self.stages = stages
        self.run_dir = run_dir
        self.blobs = blobs
        self.services = RunServices.for_run(config, run_dir, blobs, world)
        self.state: RunState = state if state is not None else load_state(log, run_id)
        self.snapshots = Snapshots(log)
        self.snapshot_seq = self.state.last_seq  # a fold just read up to here
        self.next_orphan_sweep = 0.0  # monotonic time; the first checkpoint sweeps
        self.references = ReferenceCache()  # each run's blob references, for the GC
        # A person's `rlvr pause` (`PauseRequested`), seen in a batch this driver appended: the
        # run pauses right after that batch, with this reason (naming who asked).
        self.pause_requested: str | None = None
        try:
            claim(blobs, log)  # the orphan sweep's guard against another store's blobs
        except OSError as e:
            log_.warning("cannot claim the blob store: orphans are not swept", error=str(e))
        # Before any blob is written: the GCs of this blob store read the runs recorded with it,
        # and sweep as orphans the blobs those runs do not name.
        blob_users.record(log.engine, log.retry, run_id, blobs.identity)

    # --- what stages call ------------------------------------------------------------------

    def emit(self, events: Sequence[Event]) -> list[StoredEvent]:
        """Append one batch with the policies' decisions on it (and their consequences) in one
        transaction; then stop the stage if a decision paused or failed the run."""
        batch, decisions = with_decisions(self.state, events, self.config.policies, consequences)
        # Events other processes queued for this run follow in the same transaction
        # (orchestrator/driver/outside_writes.py): a driver's batch is the one way into its chain.
        stored = self.log.append(
            self.run_id, batch, expected_seq=self.state.last_seq, drain_requests=True
        )
        self._folded(stored)
        if any(row.type == "CheckpointSaved" for row in stored):
            # After the checkpoint's batch and the decisions on it (a rollback keeps its target).
            self._prune()
        for decision in decisions:
            log_.warning(
                "policy decided",
                policy=decision.policy,
                action=decision.action,
                reason=decision.reason,
            )
        for decision in decisions:
            if decision.action == "fail":
                raise StageError(f"policy {decision.policy}: {decision.reason}")
            if decision.action == "pause":
                raise StageInterrupted(f"policy {decision.policy}: {decision.reason}")
        if self.pause_requested is not None:
            raise StageInterrupted(self.pause_requested)  # the policies' pause path
        return stored

    def read(self, from_seq: int) -> list[StoredEvent]:
        """The run's events from `from_seq`, without the spans that rewinds abandoned."""
        rewinds = Rewinds.of(self.log.read(self.run_id, types=["RunRewound"]))
        return rewinds.kept(self.log.read(self.run_id, from_seq=from_seq))

    def state_at(self, seq: int) -> RunState:
        return fold_run(self.log, self.run_id, seq)

    def context(self) -> StageContext:
        return StageContext(
            run_id=self.run_id,
            config=self.config,
            run_dir=self.run_dir,
            blobs=self.blobs,
            emit=self.emit,
            state=lambda: self.state,
            read=self.read,
            checkpoint_refusal=lambda folder: over_budget(
                self.state, self.config, self.blobs, folder
            ),
            state_at=self.state_at,
            services=self.services,
            should_stop=self.should_stop,
        )

    # --- the loop ----------------------------------------------------------------------------

    def _transition(self, trigger: str, **kwargs: Any) -> None:
        stored = transition(
            self.log, self.run_id, trigger, state=self.state, drain_requests=True, **kwargs
        )
        self._folded(stored)

    def _folded(self, stored: list[StoredEvent]) -> None:
        """Fold a batch this driver appended; a snapshot every SNAPSHOT_EVERY events."""
        self.state = project(stored, self.state, state_at=self.state_at)
        for row in stored:
            if row.type == "PauseRequested":  # drained from the queue with this batch
                self.pause_requested = row.event.pause_reason()
        self.snapshot_seq = maybe_snapshot(
            self.snapshots, self.state, self.snapshot_seq, stored[-1].hash
        )

    def run(self) -> RunState:
        """Drive until the run completes, fails, or is paused by a stop request."""
        bind(run_id=self.run_id)
        if self.state.state == "paused":
            self._transition("resume", target=self.state.paused_from, reason="resumed")
        if self.state.state == "created":
            self._transition("start")
        while self.state.state in STAGES:
            if self.should_stop() or self.pause_requested is not None:
                self._pause(self.pause_requested or self.stop_reason())
                break
            try:
                self._run_stage(self.state.state)
            except StoreUnavailable as e:
                self._pause_for_store(e)
                break
            except DBAPIError as e:  # a read outside any retry, or an error that is not transient
                first = (str(e.orig).strip().splitlines() or [type(e.orig).__name__])[0]
                self._pause_for_store(StoreUnavailable(f"a store error mid-stage: {first}"))
                break
        return self.state

    def _pause_for_store(self, error: StoreUnavailable) -> None:
        """The store's retries ran out mid-stage: nothing of the failed batch was written. Pause
        with the reason once the store answers again; if it still does not, leave the lease to
        expire so a supervisor resumes the run."""
        reason = f"event store unavailable: {error}"
        log_.error("store unavailable", reason=reason)
        try:
            # Refold: a batch whose commit reply was lost may be in the log after all.
            self.state = load_state(self.log, self.run_id)
            if self.state.state in STAGES:
                self._pause(reason)
        except StoreUnavailable as again:
            raise StoreUnavailable(
                f"{reason}; the pause could not be recorded either ({again}): run {self.run_id} "
                "is left to its lease, which expires so that `rlvr supervise` resumes it"
            ) from error

    def _prune(self) -> None:
        """Apply checkpoint retention (`checkpoints.keep_last`, `keep_optimizer_last`): a
        `CheckpointsPruned` batch, then the GC of the blobs no run references any more; every
        ORPHAN_GRACE_S also of orphans (blobs no row names). Once the pruning is in the log a
        failed GC loses nothing: the next pruning's GC retries. A store that stays down through
        the GC's retries, or fails it otherwise, pauses the run with the reason."""
        pruned = plan(self.state, self.config)
        if pruned is not None:
            self.emit([with_rollouts(self.log, self.state, pruned)])
        sweep = time.monotonic() >= self.next_orphan_sweep
        if pruned is None and not sweep:
            return
        if sweep:
            self.next_orphan_sweep = time.monotonic() + ORPHAN_GRACE_S
        try:
            # The GC's reads ride out a store outage as an append does; all it deletes is
            # unreferenced, so a repeat after a lost connection is safe.
            count, freed = with_retries(
                "blob GC (reading the runs' checkpoints)",
                lambda: collect_garbage(
                    self.log,
                    self.blobs,
                    orphans_older_than_s=ORPHAN_GRACE_S if sweep else None,
                    cache=self.references,
                ),
                self.log.retry,
            )
        except StoreUnavailable:
            raise  # the run loop pauses with the reason (`_pause_for_store`)
        except DBAPIError as e:  # not transient (a dropped table, a refused login): pause too
            raise StageInterrupted(f"blob GC: event store error: {e.orig}") from e
        except (StoreError, OSError) as e:  # a blob unreadable or undeletable: nothing lost
            log_.warning("blob GC failed; the next pruning retries", error=str(e))
            return
        if count:
            log_.info("pruned checkpoints deleted", blobs=count, bytes=freed)

    def _pause(self, reason: str) -> None:
        log_.warning("run paused", reason=reason)
        try:
            self._transition("pause", reason=reason, before=[RunPaused(reason=reason)])
        except (StoreUnavailable, ConcurrencyError):
            # down, not full: the run loop's `_pause_for_store` handles it; or another driver took
            # the run (this one stalled past its lease, round 25 log 005): no space to free
            raise
        except (StoreError, OSError) as e:
            # The store itself cannot take the pause (its disk is full too): the lease expires
            # and a resume or the supervisor continues once there is room. One error, not two.
            self._release_lease_quietly()
            raise RunNotPaused(
                f"run {self.run_id} stopped ({reason}) but the pause could not be recorded: {e}; "
                f"free space, then `rlvr resume {self.run_id}`"
            ) from e
        # First act once the pause is in the log: nothing is appended after it, and a resume
        # must not wait for whatever slow cleanup (collectives, the summary) follows.
        self._release_lease_quietly()

    def _release_lease_quietly(self) -> None:
        try:
            self.release_lease()
        except Exception as e:  # the store is unwritable: the lease expires after its TTL
            log_.error("lease release failed: it expires after its TTL", error=str(e))

    def _run_stage(self, name: str) -> None:
        stage = self.stages.get(name)
        if stage is None:
            raise OrchestratorError(f"no stage is registered for {name!r}")
        bind(stage=name)
        number, elapsed = STAGES.index(name) + 1, time.monotonic() - self.started
        log_.info("stage started", stage=name, number=number, elapsed_s=round(elapsed, 1))
        minutes, seconds = divmod(int(elapsed), 60)
        self.on_stage(f"stage {number}/{len(STAGES)}: {name} ({minutes}:{seconds:02d} elapsed)")
        # What the stage runs without the isolation the house requires, said as it starts.
        self.emit([StageStarted(stage=name), *self.services.waivers()])
        try:
            stage.run(self.context())
        except StageInterrupted as e:
            self._pause(str(e) or self.stop_reason())
            return
        except (BlobWriteError, OSError) as e:
            # A full disk is a runtime condition: pause with the reason, resume once there is room.
            if getattr(e, "errno", None) not in (errno.ENOSPC, errno.EDQUOT):
                raise
            self._pause(f"stage {name}: disk full: {e}")
            return
        except StageError as e:
            reason = f"stage {name} failed: {e}"
            log_.error("stage failed", reason=reason)
            self._transition("fail", reason=reason, before=[RunFailed(reason=reason)])
            return
        verdicts = evaluate(name, self.state, self.config.gates)
        first_seq = self.state.last_seq + 1
        verdict_seqs = list(range(first_seq, first_seq + len(verdicts)))
        for verdict in verdicts:
            log_.info(
                "gate evaluated",
                gate=verdict.gate,
                value=verdict.value,
                threshold=verdict.threshold,
                passed=verdict.passed,
            )
        if all(v.passed for v in verdicts):
            after: list[Event] = []
            if name == STAGES[-1]:
                after.append(self._completion())
            self._transition("advance", gate_passed=True, before=verdicts, after=after)
            return
        failed = [v for v in verdicts if not v.passed]
        reason = "; ".join(
            f"gate {v.gate} failed: {v.metric} = {v.value} (needs {v.comparator} {v.threshold})"
            + (f" [{v.detail}]" if v.detail else "")
            for v in failed
        )
        log_.warning("gate failed", reason=reason)
        self._transition(
            "fail",
            reason=reason,
            before=verdicts,
            after=[RunFailed(reason=reason, evidence_seqs=verdict_seqs)],
        )

    def _completion(self) -> RunCompleted:
        # The evaluation stage's last eval names the checkpoint it chose.
        good = self.state.last_good_checkpoint or self.state.latest_checkpoint
        chosen = self.state.last_eval.get("checkpoint") or (good.digest if good else None)
        return RunCompleted(
            final_checkpoint=chosen,
            summary={
                "baseline_verify_rate": self.state.baseline_verify_rate,
                "final_verify_rate": self.state.last_eval.get("verify_rate"),
                "step": self.state.step,
            },
        )
