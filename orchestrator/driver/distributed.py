"""`rlvr run` / `rlvr resume` under `mlx.launch`: rank 0 drives and appends, the others follow.

Rank 0 runs the usual driver (lease, stages, gates). When it enters an RL stage it sends the other
ranks its folded `RunState` (itself folded from the newest usable snapshot, see
store/snapshots.py): a snapshot at the log's end, so the tail that follows it is empty and the
message does not grow with the log. Every rank then runs the same stage code. Inside it each
`ctx.emit` and `ctx.should_stop` of rank 0 is shared: rank 0 appends and sends only the rows it
appended since (the batch, the policies' decisions on it, a pruning), the others fold them into
their state and keep none; `ctx.read` and `ctx.state_at` are answered by rank 0 from the store.
So policy decisions, rollbacks and stops happen on every rank at the same point. The other ranks
never open the event log; they read checkpoints from the blob store (`log_path` must be shared
storage across machines). Payloads of any size go through, in bounded pieces (`World.share_json`).

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

import orjson

from orchestrator.config import RunConfig, check_data, check_log_path, load_config, run_store
from orchestrator.driver.commands import load_state, start_run, transition
from orchestrator.driver.lease import release_held_leases
from orchestrator.driver.lifecycle import config_of, drive
from orchestrator.driver.lifecycle import resume as resume_run
from orchestrator.driver.machine import STAGES
from orchestrator.driver.observers import UNOBSERVED, Observers
from orchestrator.driver.runner import Driver
from orchestrator.errors import OrchestratorError
from orchestrator.logging import get_logger
from stages.distributed import DistributedConfig, RankLost, World
from stages.services import RunServices
from stages.types import Stage, StageContext, StageError, StageInterrupted
from store.blobs import BlobStore
from store.events import Event, RunPaused
from store.log import EventLog, StoredEvent
from store.projections import RunState, project
from store.snapshots import state_from_json, state_to_json

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


def _state_message(state: RunState) -> dict[str, Any]:
    """A `RunState` as the snapshot table writes it (the same encoding, the same fields)."""
    return orjson.loads(state_to_json(state))


def _state_of(message: dict[str, Any]) -> RunState:
    return state_from_json(orjson.dumps(message).decode())


def _raised(error: Exception | None) -> list[str] | None:
    """An error of rank 0's, as the other ranks re-raise it (the stage stops the same way)."""
    if error is None:
        return None
    return ["StageInterrupted" if isinstance(error, StageInterrupted) else "StageError", str(error)]


def _reraise(message: dict[str, Any]) -> None:
    if message["raise"] is not None:
        kind, text = message["raise"]
        raise (StageInterrupted if kind == "StageInterrupted" else StageError)(text)


class LeaderDriver(Driver):
    """Rank 0's driver: appends as usual and shares what each RL-stage call returned."""

    def __init__(self, *args: Any, world: World, **kwargs: Any) -> None:
        super().__init__(*args, world=world, **kwargs)
        self.world = world
        self.stage: str | None = None
        self.sharing = False  # the other ranks follow the stage now running
        self.unsent: list[StoredEvent] = []  # appended since the other ranks last heard
        world.on_timeout = self._timed_out

    def _run_stage(self, name: str) -> None:
        self.stage = name
        try:
            super()._run_stage(name)
        finally:
            self.sharing, self.unsent = False, []

    def _folded(self, stored: list[StoredEvent]) -> None:
        # Every append of this driver passes here (a stage's batch, the decisions and the
        # pruning it causes): the rows the others need, collected without reading the store back.
        super()._folded(stored)
        if self.sharing:
            self.unsent.extend(stored)

    def _take_unsent(self) -> list[dict[str, Any]]:
        rows, self.unsent = self.unsent, []
        return _encode(rows)

    def context(self) -> StageContext:
        ctx = super().context()
        if self.stage not in DISTRIBUTED_STAGES:
            return ctx
        message = {"kind": "stage", "name": self.stage, "state": _state_message(self.state)}
        self.world.share_json(message, "stage")
        self.sharing, self.unsent = True, []
        return dataclasses.replace(
            ctx, emit=self._emit_shared, should_stop=self._stop_shared, read=self._read_shared,
            state_at=self._state_at_shared,
        )  # fmt: skip

    def _emit_shared(self, events: list[Event]) -> list[StoredEvent]:
        error: Exception | None = None
        stored: list[StoredEvent] = []
        try:
            stored = Driver.emit(self, events)
        except Exception as e:  # the other ranks stop the stage the same way
            error = e
        returned = [stored[0].seq, stored[-1].seq] if stored else None
        message = {"kind": "emit", "rows": self._take_unsent(), "returned": returned,
                   "raise": _raised(error)}  # fmt: skip
        self.world.share_json(message, "emit")
        if error is not None:
            raise error
        return stored

    def _answer(self, kind: str, asked: int, compute: Callable[[], Any]) -> Any:
        """A read of rank 0's store, shared: every rank asks at the same point of the stage."""
        if self.world.size == 1:
            return compute()
        error: Exception | None = None
        value: Any = None
        try:
            value = compute()
        except Exception as e:
            error = e
        encoded = None if error is not None else (
            _encode(value) if kind == "read" else _state_message(value)
        )  # fmt: skip
        message = {"kind": kind, "asked": asked, "value": encoded, "raise": _raised(error)}
        self.world.share_json(message, kind)
        if error is not None:
            raise error
        return value

    def _read_shared(self, from_seq: int) -> list[StoredEvent]:
        return self._answer("read", from_seq, lambda: Driver.read(self, from_seq))

    def _state_at_shared(self, seq: int) -> RunState:
        return self._answer("state_at", seq, lambda: Driver.state_at(self, seq))

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
            log = EventLog(self.log.target)
            state = load_state(log, self.run_id)
            if state.state in STAGES:
                transition(log, self.run_id, "pause", state=state, reason=reason,
                           before=[RunPaused(reason=reason)])  # fmt: skip
        finally:
            release_held_leases("collective timed out")
            os._exit(TIMEOUT_EXIT)


class Follower:
    """A rank other than 0: folds the rows rank 0 appends into its `RunState` and drops them, runs
    RL stages with shared emit, stop and reads."""

    def __init__(self, world: World, stages: Mapping[str, Stage]) -> None:
        self.world = world
        self.stages = stages
        self.state = RunState()
        self.services: RunServices | None = None  # built at the first stage, from its config
        world.on_timeout = self._timed_out

    def _receive(self, kind: str, timeout: bool = True) -> dict[str, Any]:
        message = self.world.share_json(None, kind, -1.0 if timeout else None)
        if message["kind"] != kind:
            raise StageError(
                f"ranks out of step: expected {kind!r}, rank 0 sent {message['kind']!r}"
            )
        return message

    def _fold(self, rows: list[dict[str, Any]]) -> list[StoredEvent]:
        """Fold rank 0's new rows; they are returned to the stage, not kept."""
        new = _decode(rows)
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
            self.state = _state_of(message["state"])
            config = config_of(self.state)
            if self.services is None or self.services.config != config:
                # A new config (the first stage's): what was built from the old one goes.
                self.world.config = config.distributed
                root = Path(config.log_path)
                self.services = RunServices.for_run(
                    config, root / self.state.run_id / f"rank{self.world.rank}",
                    BlobStore(root / "blobs"), self.world,
                )  # fmt: skip
            try:
                self.stages[message["name"]].run(self.context(config))
            except RankLost as e:
                log_.error("a rank was lost", reason=str(e))
                return 1
            except (StageError, StageInterrupted) as e:
                log_.warning("stage stopped", stage=message["name"], reason=str(e))

    def context(self, config: RunConfig) -> StageContext:
        services = self.services
        assert services is not None
        return StageContext(
            run_id=self.state.run_id, config=config, run_dir=services.run_dir,
            blobs=services.blobs, emit=self._emit, state=lambda: self.state,
            services=services, read=lambda seq: _decode(self._answer("read", seq)),
            state_at=lambda seq: _state_of(self._answer("state_at", seq)),
            should_stop=lambda: self._receive("stop")["value"],
        )  # fmt: skip

    def _answer(self, kind: str, asked: int) -> Any:
        message = self._receive(kind)
        _reraise(message)
        if message["asked"] != asked:
            raise StageError(
                f"ranks out of step: this rank asked {kind} {asked}, rank 0 {message['asked']}"
            )
        return message["value"]

    def _emit(self, _events: Any) -> list[StoredEvent]:
        message = self._receive("emit")
        new = self._fold(message["rows"])  # a batch that paused the stage is in the log too
        _reraise(message)
        if message["returned"] is None:
            return []
        first, last = message["returned"]
        return [r for r in new if first <= r.seq <= last]

    def _timed_out(self, reason: str) -> None:
        log_.error("collective timed out", reason=reason)
        os._exit(TIMEOUT_EXIT)


# --- what the CLI calls -------------------------------------------------------------------------


def run_launched(
    config_path: Path, overrides: list[str], store: str | None, stages: Mapping[str, Stage],
    finish: Callable[[str, RunState, EventLog], None], observers: Observers = UNOBSERVED,
) -> bool:  # fmt: skip
    """`rlvr run` on every rank of an mlx.launch job; False when not launched with several ranks."""
    world = launched_world(load_config(config_path, overrides).distributed)
    if world is None:
        return False
    # Launched: the config as a distributed run records it (refused here, at start, with one
    # line naming the field, when it asks for what ranks do not support: grpo.max_staleness).
    overrides = [*overrides, "distributed.enabled=true"]
    cfg = load_config(config_path, overrides)
    check_data(cfg)
    check_log_path(cfg)
    if not world.leader:
        _exit_follower(Follower(world, stages).follow())
    log = EventLog(run_store(store, cfg))
    run_id, _ = start_run(
        log, cfg, config_path=str(config_path), overrides=overrides, observers=observers
    )
    log_.warning("distributed run started", run_id=run_id, ranks=world.size)
    leader = partial(LeaderDriver, world=world)
    finish(run_id, drive(log, run_id, cfg, stages, driver_factory=leader, observers=observers), log)
    return True


def resume_launched(
    target: Callable[[], tuple[EventLog, str, int | None]], stages: Mapping[str, Stage],
    finish: Callable[[str, RunState, EventLog], None], overrides: Sequence[str] = (),
    observers: Observers = UNOBSERVED,
) -> bool:  # fmt: skip
    """`rlvr resume` on every rank of an mlx.launch job; False when not launched with several ranks.
    `target`: the store, the run and the seq to rewind to (None: none), as rank 0 reads them (the
    other ranks never open the event log)."""
    world = launched_world()
    if world is None:
        return False
    if not world.leader:
        _exit_follower(Follower(world, stages).follow())
    log, run_id, from_seq = target()
    world.config = config_of(load_state(log, run_id)).distributed
    factory = partial(LeaderDriver, world=world)
    state = resume_run(
        log, run_id, stages, from_seq=from_seq, overrides=overrides, driver_factory=factory,
        observers=observers,
    )  # fmt: skip
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
