"""Batch boundaries: which seqs end an appended batch, so a cut point (`resume --from`, `branch
--at`) never splits one (a decision from its consequence, a step's rollouts from its metrics).

A side table `batches(run_id, first_seq, last_seq)`, one row per `EventLog.append`, written in the
append's transaction; the `events` table is unchanged, so databases written before it keep
working. Logs without the record (written before it existed, or imported from an export that did
not carry it) are read this way: the seqs before a run's first recorded batch are a legacy span
whose inner boundaries are unknown, so a cut inside it is refused with a message naming the span;
the seq just before the first recorded batch is a boundary (every append was atomic).

The table is not covered by the chain. A recorded boundary inside another recorded batch is
refused (`check_disjoint`). With a chain key each row carries an HMAC over (run, first, last)
written with it, and every row a cut reads must verify (`_trusted`): a row added, or two put in
place of one, is refused naming its seq. Rows recorded before they were signed are refused the
same way with a key (cut such a run without the key, or at a step).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from store.backends import lenient_text
from store.errors import StoreError
from store.keyed import ChainKey


class BatchRow(SQLModel, table=True):
    __tablename__ = "batches"

    run_id: str = Field(primary_key=True, max_length=200)
    last_seq: int = Field(primary_key=True)
    first_seq: int
    mac: str | None = Field(default=None, max_length=100)  # with a chain key: see `_trusted`


TABLE = BatchRow.__table__


class CutError(StoreError):
    """A cut point that cannot be honoured (unknown boundaries, or none at or before it)."""


@dataclass(frozen=True)
class Cut:
    """Where a cut asked for at `asked` lands: the end of the last whole batch at or before it."""

    asked: int
    seq: int
    batch_first: int | None = None  # the batch `asked` falls inside, when it was rounded down
    batch_last: int | None = None

    @property
    def rounded(self) -> bool:
        return self.seq != self.asked

    def note(self, run_id: str) -> str:
        return (
            f"seq {self.asked} of run {run_id} is inside a batch appended as one (seqs "
            f"{self.batch_first}..{self.batch_last}); cutting at seq {self.seq}, the end of the "
            "batch before it"
        )


def record(
    conn: sa.Connection,
    run_id: str,
    spans: Iterable[tuple[int, int]],
    key: ChainKey | None = None,
) -> None:
    """Record the (first_seq, last_seq) spans of batches written in `conn`'s transaction."""
    rows = [
        {"run_id": run_id, "first_seq": a, "last_seq": b,
         "mac": key.side_mac("batch", run_id, a, b) if key is not None else None}
        for a, b in spans
    ]  # fmt: skip
    if rows:
        conn.execute(sa.insert(TABLE), rows)


def _trusted(run_id: str, row: sa.Row, key: ChainKey | None) -> tuple[int, int]:
    """`row`'s (first_seq, last_seq), once its MAC verifies (with a key)."""
    first, last = row.first_seq, row.last_seq
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (first, last)):
        raise CutError(  # a careless edit, with or without a key (round 21)
            f"run {run_id}: the batch boundary recorded at seq {last!r:.40} (first_seq "
            f"{first!r:.40}) is garbled (not seqs; the batches table was changed): refusing to cut "
            "by it"
        )
    if key is not None and not key.side_authentic(row.mac, "batch", run_id, first, last):
        raise CutError(
            f"run {run_id}: the batch boundary recorded at seq {last} (seqs {first}..{last}) is "
            "not signed with the chain key (the batches table was changed, or the row predates "
            "signed boundaries): refusing to cut by it"
        )
    return first, last


def spans_of(
    conn: sa.Connection,
    run_id: str,
    to_seq: int | None = None,
    key: ChainKey | None = None,
    *,
    drop_unsigned: bool = False,
) -> list[tuple[int, int]]:
    """The recorded (first_seq, last_seq) spans of a run, in order, up to `to_seq`; with `key`,
    each checked (`_trusted`), or with `drop_unsigned` left out when its MAC does not verify (an
    export carries only boundaries a key holder wrote: fewer cut points, never a forged one)."""
    query = sa.select(TABLE).where(TABLE.c.run_id == run_id)
    if to_seq is not None:
        query = query.where(TABLE.c.last_seq <= to_seq)
    with lenient_text(conn):  # a MAC edited to bytes that are not UTF-8 does not verify
        rows = list(conn.execute(query.order_by(TABLE.c.last_seq)))
    if drop_unsigned and key is not None:
        spans = [(r.first_seq, r.last_seq, r.mac) for r in rows]
        return [(a, b) for a, b, mac in spans if key.side_authentic(mac, "batch", run_id, a, b)]
    return [_trusted(run_id, r, key) for r in rows]


def check_disjoint(run_id: str, spans: list[tuple[int, int]]) -> None:
    """Batches never overlap (each append starts after the last row): a recorded boundary inside
    another recorded batch was not written by an append (the side table was changed), and a cut
    there could split that batch. `spans` in `spans_of`'s order."""
    for (a, b), (c, d) in zip(spans, spans[1:], strict=False):
        if c <= b:
            raise CutError(
                f"run {run_id}: the batch boundary recorded at seq {b} (seqs {a}..{b}) overlaps "
                f"the batch recorded as seqs {c}..{d} (the batches table was changed): refusing "
                "to cut by it"
            )


def cut_at(conn: sa.Connection, run_id: str, seq: int, key: ChainKey | None = None) -> Cut:
    """`seq` if it ends a batch, else the end of the last whole batch before it (see `Cut`).
    A boundary another recorded batch spans over is refused (`check_disjoint`); with `key`, so is
    every row read that does not verify (`_trusted`). Text that is not UTF-8 (edited) is read
    with U+FFFD, so such a boundary fails `_trusted` by its seq, not SQLite's error (round 21)."""
    with lenient_text(conn):
        return _cut_at(conn, run_id, seq, key)


def _cut_at(conn: sa.Connection, run_id: str, seq: int, key: ChainKey | None) -> Cut:
    c = TABLE.c
    ended = conn.execute(sa.select(TABLE).where(c.run_id == run_id, c.last_seq == seq)).first()
    inside = conn.execute(
        sa.select(TABLE).where(c.run_id == run_id, c.first_seq <= seq, c.last_seq > seq).limit(1)
    ).first()
    inside = _trusted(run_id, inside, key) if inside is not None else None
    if ended is not None:
        ended = _trusted(run_id, ended, key)
        if inside is not None:
            check_disjoint(run_id, [ended, inside])
        return Cut(seq, seq)
    first_row = conn.execute(
        sa.select(TABLE).where(c.run_id == run_id).order_by(c.first_seq).limit(1)
    ).first()
    first_recorded = _trusted(run_id, first_row, key)[0] if first_row is not None else None
    if first_recorded is not None and seq == first_recorded - 1:
        return Cut(seq, seq)  # the legacy span's end: the append after it was atomic
    if first_recorded is None or seq < first_recorded:
        known = (
            "no batch boundaries are recorded for it"
            if first_recorded is None
            else f"seqs 1..{first_recorded - 1} were written before batch boundaries were "
            f"recorded (cut at {first_recorded - 1} or later)"
        )
        raise CutError(
            f"cannot cut run {run_id} at seq {seq}: {known} (an old log, or an import of an "
            "export that did not carry them), so a cut there could split a batch"
        )
    if inside is None:
        raise CutError(f"cannot cut run {run_id} at seq {seq}: {_why_no_batch(conn, run_id)}")
    first, last = inside
    if first == 1:
        raise CutError(f"cannot cut run {run_id} at seq {seq}: it is inside the run's first batch")
    return Cut(seq, first - 1, first, last)


def _why_no_batch(conn: sa.Connection, run_id: str) -> str:
    """Why no recorded batch holds a seq of the run: a garbled boundary row (SQLite keeps text
    in an integer column, and compares text above every number), else a seq past the run's end."""
    c = TABLE.c
    for first, last in conn.execute(sa.select(c.first_seq, c.last_seq).where(c.run_id == run_id)):
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (first, last)):
            return (
                f"its batch boundary row (table batches) first_seq={first!r:.40}, "
                f"last_seq={last!r:.40} is garbled (not seqs)"
            )
    return "the run has no such seq"


def split_at(first: int, last: int, ends: Iterable[int]) -> list[tuple[int, int]]:
    """Seqs `first..last` cut into (first, last) spans after each of `ends` inside it."""
    spans, start = [], first
    for end in sorted(e for e in ends if first <= e < last):
        spans.append((start, end))
        start = end + 1
    return [*spans, (start, last)]
