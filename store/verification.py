"""Checking the hash chain on every read, incrementally.

A side table, `verified_prefix(run_id, seq, hash)`, records how far each run's chain has been walked
and the hash it ended on. A read walks the rows past that record (the writer advances it in the
append transaction, so a driver's own reads walk nothing there), checks that the recorded row still
has the recorded hash and that the log has not become shorter. Then `ChainWalk` walks every row of
the span the read hands out, whatever types it asks for: each seq present, each link to the row
before, each row's stored text re-hashed (never decoded). A break raises `ChainBroken` naming the
first bad seq; a row rewritten with its own hash recomputed is named by its own seq (`blame_link`
says which side of a broken link was rewritten).

What this catches: accidental and careless edits (a changed payload, a deleted or truncated row, a
row rewritten with its own hash recomputed). What it cannot catch without a key: someone who can
write the store recomputing the chain and this record. That is `store.keyed`'s job.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from sqlmodel import Field, SQLModel

from store.errors import IntegrityError, StoreError

GENESIS_HASH = "0" * 64


class VerifiedPrefix(SQLModel, table=True):
    __tablename__ = "verified_prefix"

    run_id: str = Field(primary_key=True, max_length=200)
    seq: int  # every row up to here chains correctly from genesis
    hash: str = Field(max_length=64)  # ... and this was the hash of row `seq` when it was walked
    verified_at: str


VERIFIED_TABLE = VerifiedPrefix.__table__


class ChainBroken(IntegrityError):
    """A read found the run's hash chain broken; nothing past the check was handed out."""

    def __init__(self, run_id: str, seq: int, reason: str) -> None:
        super().__init__(
            f"run {run_id}: hash chain broken at seq {seq}: {reason} "
            f"(refusing to read it; `rlvr verify {run_id}` walks the whole chain)"
        )
        self.run_id = run_id
        self.seq = seq
        self.reason = reason


@dataclass(frozen=True)
class VerifyReport:
    run_id: str
    n_events: int
    first_bad_seq: int | None
    reason: str
    last_seq: int = 0  # the last row that chained correctly, and its hash
    last_hash: str = GENESIS_HASH

    @property
    def ok(self) -> bool:
        return self.first_bad_seq is None


def canonical_json(payload: dict[str, Any]) -> str:
    """One text per value: sorted keys, no spaces. (Events refuse NaN/inf at construction.)"""
    try:
        return orjson.dumps(payload, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError as e:
        raise StoreError(f"event payload is not JSON-native: {e}") from e


def payload_problem(row: Any) -> str | None:
    """Why a stored row's payload is not one the code writes, or None: canonical JSON (sorted
    keys, each once, no spaces, finite numbers) of its event's schema, as every reader that hands
    the row out checks it. The code stores every payload canonical, so any other text was written
    by hand, its chain recomputed: `NaN` or a key given twice (`"step":16,"step":99`, which one
    reader showed as 16 and the fold read as 99: round 19, log 007/009), or a canonical `"kl":"x"`
    that `events` refused while `verify` called the chain intact (round 20, log 009). Parsed once:
    the schema is checked on the parsed value (strict, as JSON: no event field is a tuple or a
    date, whose Python and JSON strict forms differ). Its time too: an ISO time with its UTC
    offset, as the code records it (`yesterday` in a middle row was shown by `events`: round 30)."""
    if not recorded_time(row.recorded_at):
        return f"recorded_at {row.recorded_at!r:.40} is not a time the code writes (edited?)"
    try:
        value = orjson.loads(row.payload)
    except orjson.JSONDecodeError as e:
        return f"payload is not JSON (edited?): {e}"
    if not isinstance(value, dict):
        return f"payload is a JSON {type(value).__name__}, not an object (edited?)"
    if orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode() != row.payload:
        return (
            "payload is not the canonical JSON the code writes "
            "(a key twice, reordered or spaced: edited?)"
        )
    return _schema_problem(row, value)


def recorded_time(value: object) -> bool:
    """Whether `value` is a row time as the code records it: ISO 8601 with a UTC offset."""
    try:
        return datetime.fromisoformat(value).tzinfo is not None  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _schema_problem(row: Any, value: dict[str, Any]) -> str | None:
    from store.events import EVENT_TYPES  # the schemas import this module's helpers
    from store.rows import PAYLOAD_ERRORS, payload_mismatch

    known = EVENT_TYPES.get(row.type)
    try:
        if known is not None and row.schema_version == known.schema_version:
            known.model_validate(value, strict=True, context={"seq": row.seq})
        else:
            _ = row.event  # an older version, upcast; an unknown type is read as stored
    except PAYLOAD_ERRORS as e:
        return _without_run_and_seq(str(payload_mismatch(row, e)))
    except StoreError as e:
        return _without_run_and_seq(str(e))
    return None


def _without_run_and_seq(message: str) -> str:
    """ "run R: seq N: why" as "why": the verify report names the run and seq itself."""
    parts = message.split(": ", 2)
    return parts[2] if len(parts) == 3 and message.startswith("run ") else message


def chain_hash(
    prev_hash: str, run_id: str, seq: int, type_name: str, version: int, at: str, payload: str
) -> str:
    content = f"{prev_hash}\n{run_id}\n{seq}\n{type_name}\n{version}\n{at}\n{payload}"
    return hashlib.sha256(content.encode()).hexdigest()


def _hash_as_stored(row: Any) -> str:
    """`chain_hash` of a row's stored text (canonical already), in one call."""
    content = (
        f"{row.prev_hash}\n{row.run_id}\n{row.seq}\n{row.type}\n{row.schema_version}\n"
        f"{row.recorded_at}\n{row.payload}"
    )
    return hashlib.sha256(content.encode()).hexdigest()


def row_problem(row: Any) -> str | None:
    """Why a stored row does not match its own hash, or None. Rows are stored in canonical form, so
    the stored text hashes directly; only a mismatch pays for re-canonicalising."""
    args = (row.prev_hash, row.run_id, row.seq, row.type, row.schema_version, row.recorded_at)
    if chain_hash(*args, row.payload) == row.hash:
        return None
    try:
        payload = canonical_json(orjson.loads(row.payload))
    except orjson.JSONDecodeError:
        return "payload is not valid JSON"
    if chain_hash(*args, payload) == row.hash:
        return None
    return "content does not match its hash (edited?)"


def chain_problem(
    row: Any,
    expected: int,
    prev: str | None,
    *,
    link_only: bool = False,
    prev_run: str | None = None,
    changed: Callable[[Any], bool] | None = None,
) -> tuple[int, str] | None:
    """What is wrong where `row` should continue a walk at seq `expected` (after a row whose hash
    is `prev`; None: not known), as (the first bad seq, why), or None. `link_only`: the row's own
    content is not checked unless its link is broken (a row just past what a read hands out).
    `prev_run`: the run that stores the row before; a broken link across a branch point names the
    branch's row. A broken link N-1 -> N between rows that each match their own hash is blamed by
    `blame_link` (`changed`: whether row N's own hash is not the one recorded after it)."""
    if row.seq != expected:
        return _misplaced(row.seq, expected)
    linked = prev is None or row.prev_hash == prev
    if link_only and linked:
        return None
    own = row_problem(row)
    if not linked and own is None and prev_run is not None and prev_run != row.run_id:
        return row.seq, junction_broken(prev_run, row.seq - 1)
    if not linked:
        if own is None and row.seq > 1:
            return blame_link(row, changed)
        return row.seq, own or "prev_hash does not match the previous event"
    return (row.seq, own) if own is not None else None


def junction_broken(parent_run: str, parent_seq: int) -> str:
    """Why a branch's first own row does not chain from its parent's row at the branch point:
    either side may have been changed, and the rows alone cannot say which."""
    return (
        f"its first own row does not chain from run {parent_run}'s row at seq {parent_seq}: that "
        "run's rows, or the branch pointer (run_parents), were changed"
    )


def _misplaced(seq: Any, expected: int) -> tuple[int, str]:
    """Why a walk expecting seq `expected` found `seq` instead. A seq that is no whole number
    (20.5, stored as REAL; text) or one that comes again (an export's line written twice) is named
    as what it is: "seq 21 is missing (next is 20.5)" blamed a row that is there."""
    if type(seq) is not int:
        return expected, (
            f"a row after seq {expected - 1} has its seq stored as {seq!r}, not a whole number "
            "(the store was edited)"
        )
    if seq < expected:
        return seq, f"seq {seq} appears again after seq {expected - 1} (a repeated row)"
    return expected, f"seq {expected} is missing (next is {seq})"


def blame_link(row: Any, changed: Callable[[Any], bool] | None) -> tuple[int, str]:
    """The row at fault at a broken link N-1 -> N where both rows match their own hashes. If row
    N's hash is not the one recorded after it (row N+1 does not chain from it either, or N is the
    last row and neither the keyed head nor the verified prefix vouches for it), N was rewritten
    (its prev_hash changed: transplanted, swapped, renumbered) and its hash recomputed: N. If only
    the one link is broken, N-1 was edited and its hash recomputed: N-1."""
    if changed is not None and changed(row):
        return row.seq, (
            f"its prev_hash is not the hash of seq {row.seq - 1} and its own hash is not the one "
            "recorded after it (rewritten, its hash recomputed?)"
        )
    return row.seq - 1, (
        f"its hash is not the one seq {row.seq} chains from (edited, its hash recomputed?)"
    )


def vouched(row: Any, heads: Iterable[Any] | None, record: tuple[int, str] | None) -> bool:
    """Whether a claim made when row `row` was written or last walked (a keyed head or pending
    head, the verified prefix's record) still names it with its hash."""
    claims = [(h.seq, h.hash) for h in heads or () if h is not None]
    if record is not None:
        claims.append(record)
    return (row.seq, row.hash) in claims


def verify_rows(
    run_id: str,
    rows: Iterable[Any],
    *,
    first_seq: int = 1,
    prev: str = GENESIS_HASH,
    vouches: Callable[[Any], bool] | None = None,
    payloads: bool = False,
) -> VerifyReport:
    """Walk the chain: contiguous seqs from `first_seq`, each prev_hash the last hash (`prev` for
    the first), each hash recomputed. Each row is checked with the next in hand (`blame_link`);
    `vouches`: whether a claim outside the rows vouches for the last row's hash. `payloads`: each
    stored payload must also be the canonical JSON the code writes (`noncanonical`)."""
    expected, n, last, prev_run = first_seq, 0, (first_seq - 1, prev), None
    rows = iter(rows)
    row = next(rows, None)
    while row is not None:
        after = next(rows, None)
        intact = row.seq == expected and row.prev_hash == prev and _hash_as_stored(row) == row.hash
        if not intact:  # the whole way, which names what is wrong (`chain_problem`)

            def changed(row: Any, after: Any = after) -> bool:
                if after is None:
                    return vouches is None or not vouches(row)
                return after.seq == row.seq + 1 and after.prev_hash != row.hash

            problem = chain_problem(row, expected, prev, prev_run=prev_run, changed=changed)
            if problem is not None:
                return VerifyReport(run_id, n, problem[0], problem[1], *last)
        if payloads and (why := payload_problem(row)) is not None:
            return VerifyReport(run_id, n, row.seq, why, *last)
        prev, expected, n, prev_run = row.hash, expected + 1, n + 1, row.run_id
        last = (row.seq, row.hash)
        row = after
    return VerifyReport(run_id, n, None, "ok", *last)


class ChainWalk:
    """A read's check of every row it walks, handed out or skipped: each seq present, each link
    to the row before, each row's own hash (its stored text re-hashed, never decoded). `step`
    raises `ChainBroken` naming the first bad seq, with `shared` noted for an ancestor's rows."""

    def __init__(
        self, run_id: str, first_seq: int, changed: Callable[[Any], bool] | None = None
    ) -> None:
        self.run_id = run_id
        self.changed = changed  # see `blame_link`: asked only at a broken link
        self.expected = first_seq
        self.prev: str | None = None  # the first row's link is checked by whoever knows it
        self.prev_run: str | None = None

    def step(self, row: Any, *, link_only: bool = False) -> None:
        # The usual row, checked inline: the seq, the link and the stored text's hash all match
        # (what `chain_problem` answers None to; a read pays this once a row). Any mismatch goes
        # the whole way, which names what is wrong.
        if (
            row.seq == self.expected
            and (self.prev is None or row.prev_hash == self.prev)
            and (link_only or _hash_as_stored(row) == row.hash)
        ):
            self.expected, self.prev, self.prev_run = row.seq + 1, row.hash, row.run_id
            return
        problem = chain_problem(
            row,
            self.expected,
            self.prev,
            link_only=link_only,
            prev_run=self.prev_run,
            changed=self.changed,
        )
        if problem is not None:
            seq, reason = problem
            if row.run_id != self.run_id:
                reason += f" (in run {row.run_id}'s rows, shared by this branch)"
            raise ChainBroken(self.run_id, seq, reason)
        self.expected, self.prev, self.prev_run = row.seq + 1, row.hash, row.run_id


def check_end(
    run_id: str,
    last_seq: int,
    record: tuple[int, str] | None,
    hash_at: Callable[[int], str | None],
    key: Any,
    heads: Any = None,
) -> None:
    """What the verified prefix (and the keyed head, with a `store.keyed.ChainKey`) say about the
    log's end: it has not become shorter, and the rows they name still have their hashes.
    `record` and `heads` must be read before `last_seq`: a writer appending meanwhile only moves
    them forward, so read in that order a concurrent append never looks like deleted rows."""
    if record is not None:
        seq, hash_ = record
        if seq > last_seq:
            reason = f"the log ends at seq {last_seq} but was verified up to seq {seq}"
            raise ChainBroken(run_id, last_seq + 1, reason + " (rows deleted)")
        if hash_at(seq) != hash_:
            raise ChainBroken(run_id, seq, "changed since it was verified (rewritten?)")
    if key is not None:
        key.check(run_id, last_seq, hash_at, heads)


def walk_from(
    run_id: str,
    start: tuple[int, str],
    rows: Iterable[Any],
    vouches: Callable[[Any], bool] | None = None,
) -> tuple[int, str]:
    """Walk `rows` (those after the verified prefix `start`); the new verified end."""
    report = verify_rows(run_id, rows, first_seq=start[0] + 1, prev=start[1], vouches=vouches)
    if not report.ok:
        raise ChainBroken(run_id, report.first_bad_seq, report.reason)
    return report.last_seq, report.last_hash
