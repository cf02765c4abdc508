"""Starting, resuming, rewinding and branching runs: each one a lease, signals, and the driver.

- resume: fold the log, take the lease (a live owner refuses us), continue where the log ends.
- rewind (`resume --from SEQ`): append `RunRewound`; the fold skips the abandoned span.
- branch: a new run whose history is the parent's up to SEQ, plus `RunBranched` with overrides.
A cut point (SEQ) is the end of an appended batch: one inside a batch is rounded down to the end
of the batch before it, and `say` is told (store/batches.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from orchestrator.config import (
    RunConfig,
    apply_overrides,
    check_data,
    override_path,
    override_paths,
    validate_config,
)
from orchestrator.driver.branch_inputs import check_branch_history
from orchestrator.driver.checkpoints import check_side_files
from orchestrator.driver.commands import load_state, new_run_id
from orchestrator.driver.lease import LeaseKeeper
from orchestrator.driver.machine import STAGES
from orchestrator.driver.observers import UNOBSERVED, Observers
from orchestrator.driver.runner import Driver
from orchestrator.driver.signals import StopRequest, graceful_signals
from orchestrator.errors import ConfigError, OrchestratorError
from orchestrator.logging import configure, get_logger, release_run_file
from stages.types import Stage
from store.batches import CutError
from store.blobs import BlobStore
from store.events import (
    CheckpointsPruned,
    Event,
    HyperparametersChanged,
    RunBranched,
    RunResumed,
    RunRewound,
    SettingsOverridden,
)
from store.log import EventLog
from store.projections import RunState, project
from store.run_ids import run_path
from store.snapshots import fold_run

log_ = get_logger("rlvr.lifecycle")


def config_of(state: RunState) -> RunConfig:
    """The run's config: what RunStarted recorded plus any branch overrides."""
    data = apply_overrides(copy.deepcopy(dict(state.config)), list(state.config_overrides))
    return validate_config(
        data,
        source=f"run {state.run_id}'s recorded config",
        overridden=override_paths(state.config_overrides),
        overrides_source=f"run {state.run_id}'s recorded overrides",
    )


def drive(
    log: EventLog,
    run_id: str,
    config: RunConfig,
    stages: Mapping[str, Stage],
    *,
    rewind_to: int | None = None,
    resumed_from_step: int | None = None,
    overrides: Sequence[str] = (),
    stop: StopRequest | None = None,
    driver_factory: Callable[..., Driver] = Driver,
    state: RunState | None = None,
    on_stage: Callable[[str], None] = lambda line: None,
    observers: Observers = UNOBSERVED,
    pauses_after: int | None = None,
) -> RunState:
    """Hold the lease, honour SIGTERM/SIGINT, and run the driver until it stops
    (`driver_factory`: orchestrator.driver.distributed's rank-0 driver under mlx.launch;
    `on_stage`: told as each stage starts, see `Driver`; `observers`: who follows the appends,
    the metric sinks the command line brings)."""
    stop = stop or StopRequest()
    log_root = Path(config.log_path)
    run_dir = run_path(log_root, run_id)
    configure(json_file=run_dir / "driver.jsonl")
    try:
        # Signals are handled before the lease is taken and until after it is released: a SIGTERM
        # in between would otherwise kill the process with the lease still held. Sinks open first:
        # a missing package refuses the run before the lease is taken.
        with (
            observers.follow(log, config, run_dir, run_id),
            graceful_signals(stop),
            LeaseKeeper(log, run_id, ttl_s=config.lease_ttl_s) as lease,
        ):
            asked = _pause_asked(log, run_id, pauses_after) if pauses_after is not None else None
            marks = _resume_marks(rewind_to, resumed_from_step, overrides, lease.owner)
            if marks:
                log.append(run_id, marks, expected_seq=log.last_seq(run_id))
            if state is not None:
                state = _caught_up(log, run_id, state)
            driver = driver_factory(
                log,
                run_id,
                config,
                stages,
                run_dir=run_dir,
                blobs=BlobStore(log_root / "blobs"),
                should_stop=lambda: stop() or lease.lost.is_set(),
                stop_reason=lambda: stop.reason or "the lease was lost to another driver",
                release_lease=lease.release,
                state=state,
                on_stage=on_stage,
            )
            if asked is not None:
                driver.pause_requested = asked  # it resumes, then pauses before its first stage
            return driver.run()
    finally:
        # The run's file is this drive's: a later run in this process (the console, tests) logs
        # to its own, never into this one's folder (which may be gone by then).
        release_run_file()


def _pause_asked(log: EventLog, run_id: str, after_seq: int) -> str | None:
    """Why the run is to pause again: the last `rlvr pause` recorded after `after_seq` (read
    under the lease, so none lands after it unseen: later ones are queued for this driver)."""
    rows = list(log.read(run_id, from_seq=after_seq + 1, types=["PauseRequested"]))
    return rows[-1].event.pause_reason() if rows else None


def _resume_marks(
    rewind_to: int | None, resumed_from_step: int | None, overrides: Sequence[str], owner: str
) -> list[Event]:
    """What a resume appends under the new lease before the driver starts: the rewind, the
    resume and the operational overrides, as asked."""
    marks: list[Event] = []
    if rewind_to is not None:
        marks.append(RunRewound(to_seq=rewind_to, reason=f"resume --from {rewind_to}"))
    if resumed_from_step is not None:
        marks.append(RunResumed(owner=owner, from_step=resumed_from_step))
    if overrides:
        marks.append(
            SettingsOverridden(
                overrides=list(overrides), reason=f"rlvr resume {' '.join(overrides)}"
            )
        )
    return marks


def _caught_up(log: EventLog, run_id: str, known: RunState) -> RunState:
    """The caller's fold plus what was appended since (the lease, the marks): one fold. A
    rewind's target state is the one the caller passed."""

    def state_at(seq: int) -> RunState:
        return replace(known) if seq == known.last_seq else fold_run(log, run_id, seq)

    since = log.read(run_id, from_seq=known.last_seq + 1)
    return project(since, known, state_at=state_at)


# Settings a resume may change (`rlvr resume RUN key=value`): how the run is kept, never what it
# computes, so the log still replays to the same weights. Anything else: `rlvr branch`.
OPERATIONAL_SETTINGS = (
    "checkpoints.keep_last", "checkpoints.max_bytes", "checkpoints.keep_optimizer_last",
    "lease_ttl_s", "tensorboard",
    "wandb_project", "wandb_name", "policies.faults.backoff_s", "policies.faults.max_backoff_s",
)  # fmt: skip


def operational_overrides(state: RunState, overrides: Sequence[str]) -> list[str]:
    """`overrides` checked: operational keys only, and the run's config still valid with them."""
    for item in overrides:
        dotted = ".".join(override_path(item))
        if dotted not in OPERATIONAL_SETTINGS:
            raise ConfigError(
                f"resume cannot change {dotted!r}: only operational settings "
                f"({', '.join(OPERATIONAL_SETTINGS)}); to change what the run computes, "
                f"`rlvr branch {state.run_id} --at SEQ {item}`"
            )
    validate_overrides(state, overrides)
    return list(overrides)


def resume(
    log: EventLog,
    run_id: str,
    stages: Mapping[str, Stage],
    *,
    from_seq: int | None = None,
    overrides: Sequence[str] = (),
    stop: StopRequest | None = None,
    driver_factory: Callable[..., Driver] = Driver,
    say: Callable[[str], None] = log_.warning,
    on_stage: Callable[[str], None] = lambda line: None,
    observers: Observers = UNOBSERVED,
    asked_at_seq: int | None = None,
    notes: Sequence[str] = (),
) -> RunState:
    """`asked_at_seq`: the run's last seq when the resume was asked for (`start_resume`'s child
    starts later); a `rlvr pause` recorded after it pauses the run again at its first batch.
    `notes` (the caller's) and the cut's own are said once the checks pass: a refusal is one
    line."""
    asked_at = asked_at_seq if asked_at_seq is not None else log.last_seq(run_id)
    pending = list(notes)
    if from_seq is not None:
        from_seq, state = _cut_and_fold(log, run_id, from_seq, pending.append, "--from", "continue")
    else:
        state = load_state(log, run_id)
    overrides = operational_overrides(state, overrides)  # before anything is written
    if from_seq is None and state.finished:
        raise OrchestratorError(
            f"run {run_id} is {state.state}; use `rlvr resume {run_id} --from SEQ` or `rlvr branch`"
        )
    config = config_of(replace(state, config_overrides=(*state.config_overrides, *overrides)))
    check_data(config)  # the task file is read again: refused here if it went bad since
    check_side_files(BlobStore(Path(config.log_path) / "blobs"))  # before `--from` rewinds
    for line in pending:
        say(line)
    return drive(
        log,
        run_id,
        config,
        stages,
        rewind_to=from_seq,
        resumed_from_step=state.step,
        overrides=overrides,
        stop=stop,
        driver_factory=driver_factory,
        state=state,
        on_stage=on_stage,
        observers=observers,
        pauses_after=asked_at,
    )


def cut_point(log: EventLog, run_id: str, seq: int, say: Callable[[str], None]) -> int:
    """`seq` when it ends an appended batch, else the end of the batch before it (said)."""
    try:
        cut = log.cut_at(run_id, seq)
    except CutError as e:
        raise OrchestratorError(str(e)) from e
    if cut.rounded:
        say(cut.note(run_id))
    return cut.seq


def branch_point(
    log: EventLog, parent_id: str, at_seq: int, say: Callable[[str], None]
) -> tuple[int, RunState]:
    """Where a branch at `at_seq` is cut (a batch's end) and the parent's state there; refused
    outside the parent's seqs or where it had finished."""
    return _cut_and_fold(log, parent_id, at_seq, say, "--at", "branch")


def _cut_and_fold(
    log: EventLog, run_id: str, seq: int, say: Callable[[str], None], flag: str, verb: str
) -> tuple[int, RunState]:
    """`seq` rounded to a batch's end and the run's state there, for `resume --from` (a seq
    before the last: resuming from the last is a plain resume) and `branch --at` (any seq);
    refused outside the run's seqs or where it had finished."""
    last = log.require(run_id)
    highest = last if flag == "--at" else last - 1
    if not 1 <= seq <= highest:
        raise OrchestratorError(f"{flag} {seq}: run {run_id} has seqs 1..{last}")
    seq = cut_point(log, run_id, seq, say)
    state = fold_run(log, run_id, seq)
    if state.state not in (*STAGES, "paused", "created"):
        raise OrchestratorError(f"at seq {seq} run {run_id} was {state.state}: nothing to {verb}")
    return seq, state


def branch(
    log: EventLog,
    parent_id: str,
    at_seq: int,
    overrides: Sequence[str],
    say: Callable[[str], None] = log_.warning,
    notes: Sequence[str] = (),
) -> tuple[str, int]:
    """A new run whose history is the parent's up to `at_seq` (rounded down to a batch's end), by
    reference (store/lineage.py: nothing is copied, the parent is untouched), and the overrides.
    The child's id and the seq it was cut at. Its first events are written in one transaction.
    `notes` and the cut's own are said once the checks pass."""
    pending = list(notes)
    at_seq, state = branch_point(log, parent_id, at_seq, pending.append)
    # Everything is checked before the first row is written: the overrides, the task file, the
    # side files, and what the branch's driver will replay of the parent (branch_inputs.py).
    validate_overrides(state, overrides)
    branched = replace(state, config_overrides=(*state.config_overrides, *overrides))
    check_data(config_of(branched))
    check_side_files(BlobStore(Path(config_of(state).log_path) / "blobs"))
    before = config_of(state).grpo.start_settings().values()
    check_branch_history(log, parent_id, at_seq, config_of(branched), before)
    for line in pending:
        say(line)
    child = new_run_id(f"{config_of(state).run_name}-branch")
    marks: list = [
        RunBranched(parent_run_id=parent_id, parent_seq=at_seq, overrides=list(overrides))
    ]
    # The settings in force are the log's fold (store/settings.py): a branch changing one (its
    # LR, ...) changes it from here on, as a policy would, by the same event.
    after = config_of(branched).grpo.start_settings().values()
    changes = {k: v for k, v in after.items() if before.get(k) != v}
    if changes:
        marks.append(
            HyperparametersChanged(
                changes=changes, reason=f"branch overrides: {' '.join(overrides)}"
            )
        )
    gone = pruned_after_cut(log, parent_id, at_seq, state)
    if gone is not None:
        marks.append(gone)
        say(gone.reason or gone.optimizer_reason)
    # The child reads the parent's rows where they are (and their batch boundaries, so it can be
    # cut there too); every read of the child checks them, so a tampered parent is not laundered.
    log.branch(parent_id, child, at_seq, then=marks)
    return child, at_seq


def pruned_after_cut(
    log: EventLog, parent_id: str, at_seq: int, state: RunState
) -> CheckpointsPruned | None:
    """What the parent pruned after the cut, of the checkpoints the branch's prefix names, whose
    blobs are gone by now (retention ran after the cut, and the GC before the branch existed to
    keep them): the branch records it in its first batch, so its own fold, and with it its
    rollback targets and its resume, know (a rollback restores such weights with a fresh AdamW
    state; a resume falls back to a checkpoint that has its state). From the branch's creation
    on the GC keeps everything its prefix names."""
    known = {c.digest: c for c in state.checkpoints}
    if not known:
        return None
    blobs = BlobStore(Path(config_of(state).log_path) / "blobs")
    pruned: dict[str, dict] = {}
    dropped: dict[str, dict] = {}
    for row in log.read(parent_id, types=["CheckpointsPruned"], from_seq=at_seq + 1):
        event = row.event
        for entry in event.pruned:
            ref = known.get(entry["checkpoint"])
            if ref is not None and not blobs.exists(ref.digest):
                pruned[ref.digest] = {"step": ref.step, "checkpoint": ref.digest, "seq": ref.seq}
        if event.optimizer_dropped:
            # Here, not at the top: it loads the RL stage (mlx-lm, transformers), ~2 s of a
            # branch whose parent dropped no optimizer state.
            from stages.rl.checkpoints import optimizer_missing
        for entry in event.optimizer_dropped:
            ref = known.get(entry["checkpoint"])
            if ref is not None and ref.optimizer and optimizer_missing(blobs, ref.digest):
                dropped[ref.digest] = {"step": ref.step, "checkpoint": ref.digest, "seq": ref.seq}
    if not pruned and not dropped:
        return None
    cut = f"after seq {at_seq}, where this branch was cut"

    def steps(entries: dict[str, dict]) -> str:
        return ", ".join(str(e["step"]) for e in entries.values())

    return CheckpointsPruned(
        step=state.step,
        pruned=list(pruned.values()),
        reason=f"run {parent_id} pruned the checkpoint(s) of step {steps(pruned)} {cut}; their "
        "blobs are gone"
        if pruned
        else "",
        optimizer_dropped=list(dropped.values()),
        optimizer_reason=f"run {parent_id} dropped the optimizer state of the checkpoint(s) of "
        f"step {steps(dropped)} {cut}: a rollback to one restores its weights with a fresh AdamW "
        "state, a resume falls back to a checkpoint that has its state"
        if dropped
        else "",
    )


def validate_overrides(state: RunState, overrides: Sequence[str]) -> None:
    """`ConfigError` naming the field when the run's config does not validate with `overrides`."""
    data = apply_overrides(copy.deepcopy(dict(state.config)), [*state.config_overrides, *overrides])
    validate_config(
        data,
        source=f"run {state.run_id}'s recorded config",
        overridden=override_paths(overrides),
    )
