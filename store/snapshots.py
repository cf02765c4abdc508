"""Periodic `RunState` snapshots, so that a fold starts from the newest one instead of seq 1.

A snapshot is a cache of `project(events 1..seq)`, never the truth: it lives in its own table,
keyed by `(run_id, seq)`, and carries the hash of the event it folds up to, so it is ignored when
that row's hash no longer matches. It is not used when:
- a rewind after its seq abandoned it (the state it holds counts that span);
- it was written by another version of the fold (`FOLD_VERSION`, or RunState's fields changed).
With a chain key (store/keyed.py) a snapshot also carries a MAC over its run id, seq, event hash,
fold version and state: a fold refuses one whose MAC is missing or wrong, naming its seq (someone
who can write the store but not read the key forged it), and a reader without the key writes no
snapshot into a store whose snapshots are signed. Without a key, the event hash only ties a
snapshot to the chain against careless edits: whoever can write the store can forge its state.
Snapshots are written by the driver as it appends (`SNAPSHOT_EVERY` events apart) and by any
fold that had to read more than that many events, so old logs gain them on first read.
A branch's fold also uses its ancestors' snapshots within the prefix it shares with them
(store/lineage.py), and a fold that ends in that prefix keeps its snapshot with the ancestor.
(Snapshots live in `state_snapshots`; the unsigned `run_snapshots` of earlier versions is no
longer read.)
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import logging
from datetime import UTC, datetime
from typing import Any

import orjson
import sqlalchemy as sa
from pydantic import TypeAdapter
from sqlalchemy.exc import DBAPIError
from sqlmodel import Field, SQLModel

from store.backends import created_or_missing
from store.errors import IntegrityError, StoreError
from store.keyed import same_mac
from store.log import EventLog
from store.projections import (
    CheckpointRef,
    EvalRef,
    GateRecord,
    MetricsRef,
    RunState,
    project,
)
from store.rows import PAYLOAD_ERRORS
from store.verification import ChainBroken

SNAPSHOT_EVERY = 2000
# Bump when a fold handler changes what it derives from the same events: older snapshots are
# then ignored (a changed set of RunState fields is caught without a bump).
FOLD_VERSION = 2  # 2: optimizer state pruned (CheckpointRef.optimizer)
_FIELDS = tuple(f.name for f in dataclasses.fields(RunState))
FOLD_KEY = hashlib.sha256(f"{FOLD_VERSION}:{','.join(_FIELDS)}".encode()).hexdigest()[:16]
SIGNED_MARK = "snapshots_signed"  # set in a store once a reader with the key opened it


class SnapshotRow(SQLModel, table=True):
    __tablename__ = "state_snapshots"

    run_id: str = Field(primary_key=True, max_length=200)
    seq: int = Field(primary_key=True)
    event_hash: str = Field(max_length=64)  # the hash of the event at `seq` it folds up to
    fold_key: str = Field(max_length=16)
    mac: str | None = Field(default=None, max_length=64)  # with a chain key: see the docstring
    state: str


class StoreMark(SQLModel, table=True):
    """Facts about a store as a whole: `snapshots_signed` (a keyed reader has used it)."""

    __tablename__ = "store_marks"

    name: str = Field(primary_key=True, max_length=100)
    set_at: str


_log = logging.getLogger("rlvr.store")
_TABLE = SnapshotRow.__table__
_MARKS = StoreMark.__table__
_EVENTS = sa.table("events", sa.column("run_id"), sa.column("seq"), sa.column("hash"))


class SnapshotRefused(ChainBroken):
    """A keyed fold found a snapshot its key did not sign: nothing was folded from it."""

    def __init__(self, run_id: str, seq: int, reason: str) -> None:
        IntegrityError.__init__(
            self,
            f"run {run_id}: snapshot at seq {seq} refused: {reason} (a snapshot is only a cache: "
            f"delete its row from {_TABLE.name} and the fold reads the events)",
        )
        self.run_id, self.seq, self.reason = run_id, seq, reason


def state_to_json(state: RunState) -> str:
    return orjson.dumps(dataclasses.asdict(state)).decode()


# The state's declared types, read strictly: a snapshot row is outside the chain, and without a key
# nothing tells a forged one from a real one, but a state the code never wrote (a verify rate or
# a gate value stored as text) is refused here rather than handed to readers that format it.
# Built on first use: most commands that import this module read no snapshot row (a replay folds
# from the log), and building the schema is a good part of the import.
@functools.cache
def _state_shape() -> TypeAdapter[RunState]:
    return TypeAdapter(RunState)


def state_from_json(text: str) -> RunState:
    _state_shape().validate_json(text, strict=True)
    data: dict[str, Any] = orjson.loads(text)

    def checkpoint(d: dict | None) -> CheckpointRef | None:
        return CheckpointRef(**d) if d is not None else None

    data["latest_checkpoint"] = checkpoint(data["latest_checkpoint"])
    data["last_good_checkpoint"] = checkpoint(data["last_good_checkpoint"])
    data["lineage"] = tuple(CheckpointRef(**d) for d in data["lineage"])
    data["checkpoints"] = tuple(CheckpointRef(**d) for d in data["checkpoints"])
    data["abandoned_checkpoints"] = tuple(CheckpointRef(**d) for d in data["abandoned_checkpoints"])
    data["evals"] = tuple(EvalRef(**d) for d in data["evals"])
    data["metrics_window"] = tuple(MetricsRef(**d) for d in data["metrics_window"])
    data["gates"] = {k: GateRecord(**v) for k, v in data["gates"].items()}
    data["parent"] = tuple(data["parent"]) if data["parent"] is not None else None
    data["config_overrides"] = tuple(data["config_overrides"])
    data["rolled_back_to"] = tuple(data["rolled_back_to"])
    data["verifier_changes"] = tuple(data["verifier_changes"])
    data["early_metrics"] = {k: tuple(v) for k, v in data["early_metrics"].items()}
    return RunState(**data)


class Snapshots:
    """The snapshot table of one store, signed with the store's chain key when it has one."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self.key = log.key
        self._signed_store: bool | None = None  # read once, when an unkeyed reader would save
        # A store that cannot take the tables (read-only: a hot standby of a store written before
        # snapshots) has no snapshot to start from: folds read its events from seq 1, so a fault
        # is named by its seq, not by the table it could not create (round 22, log 039).
        try:
            self.absent = created_or_missing(log.engine, [_TABLE, _MARKS])
        except DBAPIError as e:
            raise StoreError(f"cannot create the snapshot table in {log.url}: {e}") from e
        if self.key is not None and not self.absent:
            self._mark_signed()

    def _mark_signed(self) -> None:
        """Record that this store's snapshots are signed, so readers without the key write none
        (a keyed fold would refuse them as forged)."""
        with contextlib.suppress(DBAPIError):  # a read-only store: nobody writes snapshots there
            if self._signs():
                return
            with self.log.engine.begin() as conn:
                conn.execute(sa.insert(_MARKS), [{"name": SIGNED_MARK, "set_at": _now()}])

    def _signs(self) -> bool:
        with self.log.engine.connect() as conn:
            query = sa.select(_MARKS.c.name).where(_MARKS.c.name == SIGNED_MARK)
            return conn.execute(query).first() is not None

    def save(self, state: RunState, event_hash: str) -> None:
        """Record `state` (folded up to `state.last_seq`, whose event has `event_hash`); signed
        with a key; not at all by a reader without the key in a store whose snapshots are."""
        if self.absent:
            return
        text = state_to_json(state)
        mac = None
        if self.key is not None:
            mac = self.key.snapshot_mac(state.run_id, state.last_seq, event_hash, FOLD_KEY, text)
        else:
            if self._signed_store is None:
                self._signed_store = self._signs()
            if self._signed_store:
                return
        row = {
            "run_id": state.run_id, "seq": state.last_seq, "event_hash": event_hash,
            "fold_key": FOLD_KEY, "mac": mac, "state": text,
        }  # fmt: skip
        try:
            with self.log.engine.begin() as conn:
                conn.execute(sa.delete(_TABLE).where(
                    (_TABLE.c.run_id == state.run_id) & (_TABLE.c.seq == state.last_seq)
                ))  # fmt: skip
                conn.execute(sa.insert(_TABLE), [row])
        except DBAPIError as e:
            raise StoreError(f"run {state.run_id}: saving a snapshot failed: {e.orig}") from e

    def newest_usable(self, run_id: str, to_seq: int | None = None) -> RunState | None:
        """The newest snapshot at or before `to_seq` that no rewind up to `to_seq` abandoned,
        whose event still has the hash it was folded from; None when there is none. With a key,
        `SnapshotRefused` when that snapshot's MAC is missing or wrong."""
        if self.absent:
            return None
        rewinds = _RewindsAfter(self.log, run_id, to_seq)
        # A branch's shared prefix is its ancestors' rows: their snapshots there are its own.
        for span in reversed(self.log.segments(run_id)):
            part = span.clip(1, to_seq)
            if part is None:
                continue
            state = self._newest_of(span.run_id, part[1], rewinds)
            if state is not None:
                state.run_id = run_id
                return state
        return None

    def check_signed(self, run_id: str) -> int:
        """With a key, `rlvr verify`'s look at the run's own snapshots: every one a fold could
        start from must carry its MAC (`SnapshotRefused` names the first that does not). The
        number checked."""
        if self.key is None or self.absent:
            return 0
        query = self._usable(run_id, None).with_only_columns(
            _TABLE.c.seq, _TABLE.c.event_hash, _TABLE.c.mac, _TABLE.c.state
        )
        n = 0
        with self.log.engine.connect() as conn:
            for seq, event_hash, mac, text in conn.execute(
                query.order_by(None).order_by(_TABLE.c.seq)
            ):
                self._check_mac(run_id, seq, event_hash, mac, text)
                n += 1
        return n

    def _usable(self, run_id: str, to_seq: int | None) -> sa.Select:
        """The run's own snapshots of this fold version whose event still has their hash."""
        query = (
            sa.select(_TABLE.c.seq)
            .select_from(
                _TABLE.join(
                    _EVENTS,
                    (_EVENTS.c.run_id == _TABLE.c.run_id)
                    & (_EVENTS.c.seq == _TABLE.c.seq)
                    & (_EVENTS.c.hash == _TABLE.c.event_hash),
                )
            )
            .where((_TABLE.c.run_id == run_id) & (_TABLE.c.fold_key == FOLD_KEY))
            .order_by(_TABLE.c.seq.desc())
        )
        if to_seq is not None:
            query = query.where(_TABLE.c.seq <= to_seq)
        return query

    def _newest_of(
        self, run_id: str, to_seq: int | None, rewinds: _RewindsAfter
    ) -> RunState | None:
        with self.log.engine.connect() as conn:
            candidates = list(conn.execute(self._usable(run_id, to_seq)).scalars())
        for seq in candidates:
            if rewinds.abandon(seq):
                continue
            with self.log.engine.connect() as conn:
                event_hash, mac, text = conn.execute(
                    sa.select(_TABLE.c.event_hash, _TABLE.c.mac, _TABLE.c.state).where(
                        (_TABLE.c.run_id == run_id) & (_TABLE.c.seq == seq)
                    )
                ).one()
            self._check_mac(run_id, seq, event_hash, mac, text)
            state = _readable_state(run_id, seq, text)
            if state is not None:
                return state
        return None

    def _check_mac(
        self, run_id: str, seq: int, event_hash: str, mac: str | None, text: str
    ) -> None:
        if self.key is None:
            return  # without a key nothing can tell a forged state from a real one
        expected = self.key.snapshot_mac(run_id, seq, event_hash, FOLD_KEY, text)
        if mac is None:
            raise SnapshotRefused(run_id, seq, "it carries no MAC and the store's key is set")
        if not same_mac(mac, expected):
            raise SnapshotRefused(
                run_id,
                seq,
                "its MAC does not match the chain key (forged, or signed with another key)",
            )


def _readable_state(run_id: str, seq: int, text: str) -> RunState | None:
    """The state a snapshot row holds, or None (with a warning naming its seq) when it is not one
    (`{}`, `null`, not JSON, another seq's state): a snapshot is only a cache, so the fold skips
    it and reads the events instead of refusing the run."""
    try:
        state = state_from_json(text)
    except PAYLOAD_ERRORS as e:
        why: str = f"{type(e).__name__}: {e}"
    else:
        if state.last_seq == seq:
            return state
        why = f"it holds the state at seq {state.last_seq!r}"
    _log.warning(
        "run %s: snapshot at seq %s skipped, the fold reads the events (%s)", run_id, seq, why
    )
    return None


class _RewindsAfter:
    """The rewinds that could abandon a candidate snapshot: only those after its seq. Read
    backwards in spans as older candidates come up, so a fold reads (and walks) no further back
    than the snapshot it starts from."""

    def __init__(self, log: EventLog, run_id: str, to_seq: int | None) -> None:
        self.log, self.run_id, self.to_seq = log, run_id, to_seq
        self.pairs: list[tuple[int, int]] = []  # (seq of a RunRewound, its to_seq)
        self.read_from: int | None = None  # rows from here to `to_seq` have been read

    def abandon(self, seq: int) -> bool:
        """Whether a rewind after `seq` (and up to `to_seq`) abandoned it."""
        from store.rewinds import Rewinds

        if self.read_from is None or seq + 1 < self.read_from:
            upper = self.to_seq if self.read_from is None else self.read_from - 1
            rows = self.log.read(self.run_id, types=["RunRewound"], from_seq=seq + 1, to_seq=upper)
            self.pairs += [(r.seq, orjson.loads(r.payload)["to_seq"]) for r in rows]
            self.read_from = seq + 1
        return Rewinds(self.pairs).abandoned_by(seq) is not None


def fold_run(log: EventLog, run_id: str, to_seq: int | None = None) -> RunState:
    """The run's state as of `to_seq` (its end by default), folded from the newest usable
    snapshot; a rewind in the folded range starts again from the snapshot before its target."""
    snapshots = Snapshots(log)
    with log.walking_once():  # the rewinds after the snapshot, then its tail: one walk of them
        return _fold(log, snapshots, run_id, to_seq)


def _fold(log: EventLog, snapshots: Snapshots, run_id: str, to_seq: int | None) -> RunState:
    start = snapshots.newest_usable(run_id, to_seq)
    if start is None or snapshots.key is not None:
        return _fold_from(log, snapshots, run_id, to_seq, start)
    try:
        return _fold_from(log, snapshots, run_id, to_seq, start)
    except IntegrityError as e:
        # Unsigned, the snapshot may be what is wrong (forged with a state the rows after it
        # cannot follow): without it, a real fault in those rows is named by its own seq, and a
        # fold that succeeds shows the snapshot was the fault. Only then is the snapshot worth a
        # warning: a fold that fails again is refused by its own one line (round 22, log 013).
        state = _fold_from(log, _NoSnapshots(snapshots), run_id, to_seq, None)
        _log.warning(
            "run %s: the events after the snapshot at seq %s do not fold onto it (%s); "
            "folded from the events instead",
            run_id, start.last_seq, e,
        )  # fmt: skip
        return state


class _NoSnapshots:
    """A fold's view of the snapshot table that offers none (and keeps none)."""

    def __init__(self, snapshots: Snapshots) -> None:
        self.key = snapshots.key

    def newest_usable(self, run_id: str, to_seq: int | None) -> None:
        return None

    def save(self, state: RunState, event_hash: str) -> None:
        return None


def _fold_from(
    log: EventLog, snapshots: Any, run_id: str, to_seq: int | None, start: RunState | None
) -> RunState:
    from_seq = start.last_seq + 1 if start is not None else 1
    last_hash, last_owner = "", run_id

    def tail():
        nonlocal last_hash, last_owner
        for row in log.read(run_id, from_seq=from_seq, to_seq=to_seq):
            last_hash, last_owner = row.hash, row.run_id
            yield row

    state = project(tail(), start, state_at=lambda seq: _fold(log, snapshots, run_id, seq))
    if state.last_seq - (start.last_seq if start else 0) >= SNAPSHOT_EVERY and last_hash:
        # Kept with the run that stores the last row (an ancestor, for a fold that ends in a
        # branch's shared prefix). A read-only store still folds: the snapshot is only a cache.
        with contextlib.suppress(StoreError):
            snapshots.save(dataclasses.replace(state, run_id=last_owner), last_hash)
    state.run_id = run_id  # the run asked for, also where the rows folded were an ancestor's
    return state


def maybe_snapshot(snapshots: Snapshots, state: RunState, last_saved: int, event_hash: str) -> int:
    """The writer's periodic snapshot: saved once `SNAPSHOT_EVERY` events have passed since
    `last_saved`. Returns the seq of the newest snapshot."""
    if state.last_seq - last_saved < SNAPSHOT_EVERY:
        return last_saved
    # Only a cache: a failed save (a reader saving the same seq at that moment) never stops a run.
    with contextlib.suppress(StoreError):
        snapshots.save(state, event_hash)
    return state.last_seq


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
