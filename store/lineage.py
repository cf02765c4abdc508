"""Branches by reference: a branch's history is its parent's rows up to a seq, then its own.

A side table `run_parents(run_id, parent_run_id, parent_seq)` holds one pointer per branch. The
branch's own rows start at `parent_seq + 1`, and the first of them chains from the parent's row at
`parent_seq` (its `prev_hash` is that row's hash), so the parent's prefix stays under the branch's
chain: rewriting it (even with the parent's chain recomputed) breaks the branch's first link.
A parent may itself be a branch: the pointers form a chain, resolved here into `Segment`s, each a
span of one stored run's rows. Rows keep the run id their chain was hashed with (the ancestor's,
for a shared prefix).

Runs without a pointer (every run written before this table existed, branches then copied their
parent's rows) are read as before: one segment of their own rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from store import batches
from store.backends import lenient_text
from store.errors import IntegrityError, StoreError
from store.event_base import MAX_SEQ
from store.keyed import ChainKey
from store.verification import GENESIS_HASH, ChainBroken, chain_hash, junction_broken


class RunParentRow(SQLModel, table=True):
    __tablename__ = "run_parents"

    run_id: str = Field(primary_key=True, max_length=200)
    parent_run_id: str = Field(max_length=200, index=True)
    parent_seq: int


TABLE = RunParentRow.__table__
# Deeper than any real lineage; a pointer loop (a hand-edited table) stops here instead of hanging.
MAX_DEPTH = 1000


@dataclass(frozen=True)
class Parent:
    run_id: str
    seq: int


@dataclass(frozen=True)
class Segment:
    """Seqs `first..last` of a run's history are `run_id`'s stored rows (`last` None: to its end)."""

    run_id: str
    first: int
    last: int | None

    def clip(self, from_seq: int, to_seq: int | None) -> tuple[int, int | None] | None:
        """This segment's part of `from_seq..to_seq`, or None when they do not overlap."""
        first = max(self.first, from_seq)
        ends = [e for e in (self.last, to_seq) if e is not None]
        last = min(ends) if ends else None
        if last is not None and first > last:
            return None
        return first, last


def parent_of(conn: sa.Connection, run_id: str) -> Parent | None:
    with lenient_text(conn):  # a pointer edited to bytes that are not UTF-8 names no stored run
        row = conn.execute(
            sa.select(TABLE.c.parent_run_id, TABLE.c.parent_seq).where(TABLE.c.run_id == run_id)
        ).first()
    if row is not None and (not isinstance(row[0], str) or "\ufffd" in row[0]):
        raise IntegrityError(  # the code writes run ids it generated: ASCII text
            f"run {run_id}: its branch pointer (run_parents) names a parent run {row[0]!r:.60} "
            "that is not UTF-8 text (the run_parents table was changed)"
        )
    return Parent(row[0], row[1]) if row else None


def record(conn: sa.Connection, run_id: str, parent: Parent) -> None:
    conn.execute(
        sa.insert(TABLE),
        [{"run_id": run_id, "parent_run_id": parent.run_id, "parent_seq": parent.seq}],
    )


def segments(
    conn: sa.Connection, run_id: str, known: dict[str, Parent] | None = None
) -> list[Segment]:
    """The stored runs a run's history is read from, oldest first. `known`: the whole pointer
    table as a caller read it (a run absent from it has no parent); None reads each pointer."""
    chain: list[tuple[str, Parent | None]] = []
    current: str | None = run_id
    while current is not None:
        if len(chain) >= MAX_DEPTH:
            raise StoreError(f"run {run_id}: its branch pointers loop or are {MAX_DEPTH} deep")
        parent = known.get(current) if known is not None else parent_of(conn, current)
        if parent is not None and not _is_branch_seq(parent.seq):  # before any arithmetic on it
            raise IntegrityError(
                f"run {run_id}: its history cannot be verified: the branch pointer of run "
                f"{current} (run_parents) names run {parent.run_id} at seq {parent.seq!r}, "
                "which is not a seq a branch can start after"
            )
        chain.append((current, parent))
        current = parent.run_id if parent else None
    out: list[Segment] = []
    last: int | None = None  # how far the descendant reads into this run
    for name, parent in chain:
        first = parent.seq + 1 if parent else 1
        if last is None or last >= first:
            out.append(Segment(name, first, last))
        if parent is not None:
            last = parent.seq if last is None else min(last, parent.seq)
    return out[::-1]


def _is_branch_seq(value: object) -> bool:
    """A pointer's seq from the side table no key signs: an int >= 1 (not text, a float, a bool)
    with a seq after it (2**63 - 1 made the branch's first seq overflow SQLite's integer: round 20)."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value < MAX_SEQ


def check_junction(
    run_id: str,
    parent: Parent,
    junction: str | None,
    own_first: tuple[object, str | None],
    parent_hash_before_first: str | None,
) -> str:
    """The hash of the parent's row at the branch point (`junction`), once the branch's rows bear
    its pointer out: its first own row (`own_first`: seq and prev_hash) is the one after the
    branch point and chains from that row. The pointer needs no MAC of its own (with or without a
    key): the branch's first row fixes where it branched, and the chain covers that row. Where the
    rows show the pointer itself is wrong (the run has rows of its own at or before the branch
    point, or its first row chains from another row of the parent), the pointer is named; where
    they show rows missing or changed, the first seq the pointer's history lacks is."""
    first_seq, link = own_first
    said = (
        f"run {run_id}: its history cannot be verified: the branch pointer of run {run_id} "
        f"(run_parents) says it branched from run {parent.run_id} at seq {parent.seq}, but"
    )
    if isinstance(first_seq, int) and first_seq <= parent.seq:
        raise IntegrityError(
            f"{said} the run has rows of its own from seq {first_seq}: the pointer was added "
            "or moved (the run_parents table was changed)"
        )
    moved = parent_hash_before_first is not None and link == parent_hash_before_first
    if isinstance(first_seq, int) and first_seq > parent.seq + 1 and moved:
        raise IntegrityError(
            f"{said} its first row (seq {first_seq}) chains from run {parent.run_id}'s row at seq "
            f"{first_seq - 1}: the pointer was moved (the run_parents table was changed)"
        )
    if junction is None:
        why = f"branched from run {parent.run_id} at seq {parent.seq}, whose row is missing"
    elif first_seq != parent.seq + 1:
        why = f"seq {parent.seq + 1} is missing (the branch's first own row)"
    elif link != junction:
        why = junction_broken(parent.run_id, parent.seq)
    else:
        return junction
    raise ChainBroken(run_id, parent.seq + 1, why)


def owner_of(spans: list[Segment], seq: int) -> str:
    """The stored run holding `seq` of the history `spans` describe."""
    for span in reversed(spans):
        if seq >= span.first:
            return span.run_id
    return spans[0].run_id


def batch_ends(
    conn: sa.Connection,
    run_id: str,
    to_seq: int | None,
    key: ChainKey | None = None,
    checked: bool = True,
) -> list[int]:
    """The last seqs of the batches of a run's history up to `to_seq`: each segment's recorded
    batches, and each ancestor segment's end (the branch's own rows start a batch after it)."""
    ends: set[int] = set()
    for span in segments(conn, run_id):
        part = span.clip(1, to_seq)
        if part is None:
            continue
        spans = batches.spans_of(conn, span.run_id, key=key, drop_unsigned=not checked)
        if checked:
            batches.check_disjoint(span.run_id, spans)
        ends |= {
            last for _, last in spans if part[0] <= last and (part[1] is None or last <= part[1])
        }
        if span.last is not None and part[1] == span.last:
            ends.add(span.last)
    return sorted(ends)


# --- importing a branch's export ----------------------------------------------------------------


def check_one_history(rows: list[Any]) -> None:
    """An import is one run's history: its ancestors' rows (a branch's export), then its own,
    each run's rows in one span."""
    seen: list[str] = []
    for row in rows:
        if not seen or seen[-1] != row.run_id:
            if row.run_id in seen:
                raise StoreError(
                    f"import refused: seq {row.seq}: run {row.run_id}'s rows are interleaved with "
                    "another run's (an export holds one run's history)"
                )
            seen.append(row.run_id)


def rechained(run_id: str, rows: Iterable[Any]) -> list[Any]:
    """`rows` (store.log.StoredEvent: payload, version and time as stored) on a fresh chain
    under `run_id`."""
    prev, out = GENESIS_HASH, []
    for row in rows:
        digest = chain_hash(prev, run_id, row.seq, row.type, row.schema_version, row.recorded_at,
                            row.payload)  # fmt: skip
        out.append(replace(row, run_id=run_id, prev_hash=prev, hash=digest))
        prev = digest
    return out
