"""`rlvr run` / `rlvr resume` under `mlx.launch`: rank 0 drives and appends, the others follow.

Rank 0 runs the usual driver (lease, stages, gates). When it enters an RL stage it sends the other
ranks the log rows they have not seen; every rank then runs the same stage code. Inside it each
`ctx.emit` and `ctx.should_stop` of rank 0 is shared: rank 0 appends, the others
receive the stored rows and fold them, so policy decisions, rollbacks and stops happen on every rank
at the same point. The other ranks never open the event log; they read checkpoints from the blob
store (`log_path` must be shared storage across machines).

Failure: a lost peer raises `RankLost` (a `StageInterrupted`), so rank 0's driver pauses the run
with the reason; a hang trips the collective deadline, and rank 0 records the pause from the
watchdog thread and exits. `rlvr resume RUN` continues, under mlx.launch or as a single process
(which keeps the distributed sampler, so rollouts match the log).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from orchestrator.config import RunConfig, check_data, load_config, run_store
from orchestrator.driver.commands import load_state, start_run, transition
from orchestrator.driver.lease import release_held_leases
from orchestrator.driver.lifecycle import config_of, drive
from orchestrator.driver.lifecycle import resume as resume_run
from orchestrator.driver.machine import STAGES
from orchestrator.driver.runner import Driver
from orchestrator.errors import OrchestratorError
from orchestrator.logging import get_logger
from stages.distributed import DistributedConfig, RankLost, World
from stages.types import Stage, StageContext, StageError, StageInterrupted
from store.blobs import BlobStore
from store.events import Event, RunPaused
from store.log import EventLog, StoredEvent
from store.projections import RunState, project
from store.rewinds import Rewinds

log_ = get_logger("rlvr.distributed")
DISTRIBUTED_STAGES = ("rlvr_optimization", "iterative_training")
_LAUNCH_VARS = ("MLX_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK")
TIMEOUT_EXIT = 75


def launched_world(config: DistributedConfig | None = None) -> World | None:
    """The group `mlx.launch` started this process in, if it has more than one rank."""
    if not any(v in os.environ for v in _LAUNCH_VARS):
        return None
    import stages.training  # noqa: F401  (OpenBLAS before mlx)
    from stages.distributed import init_world

    world = init_world(config or DistributedConfig())
    return world if world.size > 1 else None


def _encode(rows: list[StoredEvent]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(r) for r in rows]


def _decode(rows: list[dict[str, Any]]) -> list[StoredEvent]:
    return [StoredEvent(**r) for r in rows]


def _readable(rows: list[StoredEvent], from_seq: int) -> list[StoredEvent]:
    """`Driver.read` over rows in memory: the spans that rewinds abandoned left out."""
    return Rewinds.of(rows).kept(r for r in rows if r.seq >= from_seq)


class LeaderDriver(Driver):
    """Rank 0's driver: appends as usual and shares what each RL-stage call returned."""

    def __init__(self, *args: Any, world: World, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.world = world
        self.synced = 0  # the last seq the other ranks hold
        self.stage: str | None = None
        self.workspace["world"] = world
        world.on_timeout = self._timed_out

    def _run_stage(self, name: str) -> None:
        self.stage = name
        super()._run_stage(name)

    def _unsent(self) -> list[dict[str, Any]]:
        rows = list(self.log.read(self.run_id, from_seq=self.synced + 1))
        self.synced = rows[-1].seq if rows else self.synced
        return _encode(rows)

    def context(self) -> StageContext:
        ctx = super().context()
        if self.stage not in DISTRIBUTED_STAGES:
            return ctx
        self.world.share_json(
            {"kind": "stage", "name": self.stage, "rows": self._unsent()}, "stage"
        )
        return dataclasses.replace(ctx, emit=self._emit_shared, should_stop=self._stop_shared)

    def _emit_shared(self, events: list[Event]) -> list[StoredEvent]:
        first = self.state.last_seq + 1
        error: Exception | None = None
        stored: list[StoredEvent] = []
        try:
            stored = Driver.emit(self, events)
        except Exception as e:  # the other ranks stop the stage the same way
            error = e
        kind = "StageInterrupted" if isinstance(error, StageInterrupted) else "StageError"
        message = {"kind": "emit", "first": first, "rows": self._unsent(),
                   "raise": None if error is None else [kind, str(error)]}  # fmt: skip
        self.world.share_json(message, "emit")
        if error is not None:
            raise error
        return stored

    def _stop_shared(self) -> bool:
        return self.world.share_json({"kind": "stop", "value": self.should_stop()}, "stop")["value"]

    def run(self) -> RunState:
        try:
            return super().run()
        finally:
            if not self.world.broken:
                with contextlib.suppress(RankLost):
                    self.world.share_json({"kind": "exit"}, "exit")

    def _timed_out(self, reason: str) -> None:
        """Watchdog thread: the main thread is stuck in a collective. Record the pause, exit."""
        log_.error("collective timed out: pausing the run", reason=reason)
        try:
            log = EventLog(self.log.url)
            state = load_state(log, self.run_id)
            if state.state in STAGES:
                transition(log, self.run_id, "pause", state=state, reason=reason,
                           before=[RunPaused(reason=reason)])  # fmt: skip
        finally:
            release_held_leases("collective timed out")
            os._exit(TIMEOUT_EXIT)


class Follower:
    """A rank other than 0: folds rank 0's rows, runs RL stages with shared emit/stop."""

    def __init__(self, world: World, stages: Mapping[str, Stage]) -> None:
        self.world = world
        self.stages = stages
        self.rows: list[StoredEvent] = []
        self.state = RunState()
        self.workspace: dict[str, Any] = {"world": world}
        world.on_timeout = self._timed_out

    def _receive(self, kind: str, timeout: bool = True) -> dict[str, Any]:
        message = self.world.share_json(None, kind, -1.0 if timeout else None)
        if message["kind"] != kind:
            raise StageError(
                f"ranks out of step: expected {kind!r}, rank 0 sent {message['kind']!r}"
            )
        return message

    def _fold(self, rows: list[dict[str, Any]]) -> list[StoredEvent]:
        new = _decode(rows)
        self.rows.extend(new)
        self.state = project(new, self.state)
        return new

    def follow(self) -> int:
        """Serve rank 0 until it says the job is over; the exit code."""
        while True:
            try:
                message = self.world.share_json(None, "waiting for rank 0", None)
            except RankLost as e:
                log_.error("rank 0 is gone", reason=str(e))
                return 1
            if message["kind"] == "exit":
                return 0
            if message["kind"] != "stage":
                log_.error("ranks out of step", expected="stage", got=message["kind"])
                return 1
            self._fold(message["rows"])
            config = config_of(self.state)
            if self.world.config != config.distributed:
                self.world.configure(config.distributed)
            try:
                self.stages[message["name"]].run(self.context(config))
            except RankLost as e:
                log_.error("a rank was lost", reason=str(e))
                return 1
            except (StageError, StageInterrupted) as e:
                log_.warning("stage stopped", stage=message["name"], reason=str(e))

    def context(self, config: RunConfig) -> StageContext:
        root = Path(config.log_path)
        return StageContext(
            run_id=self.state.run_id, config=config,
            run_dir=root / self.state.run_id / f"rank{self.world.rank}",
            blobs=BlobStore(root / "blobs"), emit=self._emit, state=lambda: self.state,
            read=lambda seq: _readable(self.rows, seq),
            state_at=lambda seq: project(r for r in self.rows if r.seq <= seq),
            workspace=self.workspace, should_stop=lambda: self._receive("stop")["value"],
        )  # fmt: skip

    def _emit(self, _events: Any) -> list[StoredEvent]:
        message = self._receive("emit")
        stored = [r for r in self._fold(message["rows"]) if r.seq >= message["first"]]
        if message["raise"] is not None:
            kind, text = message["raise"]
            raise (StageInterrupted if kind == "StageInterrupted" else StageError)(text)
        return stored

    def _timed_out(self, reason: str) -> None:
        log_.error("collective timed out", reason=reason)
        os._exit(TIMEOUT_EXIT)


# --- what the CLI calls -------------------------------------------------------------------------


def run_launched(
    config_path: Path, overrides: list[str], store: str | None, stages: Mapping[str, Stage],
    finish: Callable[[str, RunState, EventLog], None],
) -> bool:  # fmt: skip
    """`rlvr run` on every rank of an mlx.launch job; False when not launched with several ranks."""
    overrides = [*overrides, "distributed.enabled=true"]
    cfg = load_config(config_path, overrides)
    check_data(cfg)
    world = launched_world(cfg.distributed)
    if world is None:
        return False
    if not world.leader:
        _exit_follower(Follower(world, stages).follow())
    log = EventLog(run_store(store, cfg))
    run_id, _ = start_run(log, cfg, config_path=str(config_path), overrides=overrides)
    log_.warning("distributed run started", run_id=run_id, ranks=world.size)
    finish(
        run_id,
        drive(log, run_id, cfg, stages, driver_factory=partial(LeaderDriver, world=world)),
        log,
    )
    return True


def resume_launched(
    run_id: str, from_seq: int | None, stages: Mapping[str, Stage],
    open_store: Callable[[], EventLog], finish: Callable[[str, RunState, EventLog], None],
    overrides: Sequence[str] = (),
) -> bool:  # fmt: skip
    """`rlvr resume` on every rank of an mlx.launch job; False when not launched with several ranks."""
    world = launched_world()
    if world is None:
        return False
    if not world.leader:
        _exit_follower(Follower(world, stages).follow())
    log = open_store()
    world.configure(config_of(load_state(log, run_id)).distributed)
    factory = partial(LeaderDriver, world=world)
    state = resume_run(
        log, run_id, stages, from_seq=from_seq, overrides=overrides, driver_factory=factory
    )
    finish(run_id, state, log)
    return True


def driver_for(log: EventLog, run_id: str) -> Callable[..., Driver]:
    """A single process resuming a run recorded as distributed keeps the distributed step (a world
    of one), so its rollouts are the ones the log holds."""
    config = config_of(load_state(log, run_id))
    if not config.distributed.enabled:
        return Driver
    return partial(LeaderDriver, world=World(None, config.distributed))


def _exit_follower(code: int) -> None:
    if code:
        raise OrchestratorError(
            f"rank {os.environ.get('MLX_RANK', '?')} stopped: see its log above"
        )
    raise SystemExit(0)
