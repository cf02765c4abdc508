"""The check an export file passes before any of it is written (`checked_import`): its rows in
canonical text, one history, an unbroken chain ending on its head (and, with a key, the head and
batch marks signed). Needs no store: the CLI checks a file before it opens, and so creates, one."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import orjson

from store import lineage
from store.errors import StoreError
from store.keyed import ChainKey, Head, check_export_head, signed_marks
from store.rows import StoredEvent
from store.run_ids import check_run_id
from store.verification import canonical_json, verify_rows


def checked_import(
    rows: Iterable[StoredEvent],
    head: Head | None,
    key: ChainKey | None,
    batch_ends: Sequence[int] = (),
) -> list[StoredEvent]:
    """An export's rows in canonical text (the hash covers that form, whatever spacing the
    export used), refused unless they are one history whose chain holds and (given a head, or
    with a key) ends on it, and its `batch_ends` marks as the head signs them (`signed_marks`).
    Needs no store: the CLI checks a file before it opens, and so creates, one (red team round
    12: a refused import left an empty store behind)."""
    rows = [_canonical_row(r) for r in rows]
    if not rows:
        return rows
    run_id = check_run_id(rows[-1].run_id)
    lineage.check_one_history(rows)
    report = verify_rows(run_id, rows)
    if not report.ok:
        raise StoreError(f"import refused: seq {report.first_bad_seq}: {report.reason}")
    if head is not None or key is not None:
        check_export_head(run_id, rows[-1].seq, rows[-1].hash, head, key)
    if head is not None and head.ends_mac is not None:  # (unsigned marks: dropped on import)
        signed_marks(batch_ends, head, key)
    return rows


def _canonical_row(row: StoredEvent) -> StoredEvent:
    try:
        payload = canonical_json(orjson.loads(row.payload))
    except orjson.JSONDecodeError as e:
        raise StoreError(f"seq {row.seq}: payload is not valid JSON") from e
    return StoredEvent(
        row.run_id, row.seq, row.type, row.schema_version, row.recorded_at, row.prev_hash,
        row.hash, payload,
    )  # fmt: skip
