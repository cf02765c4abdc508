"""What someone with write access to the store can do to a run's log, for the tests that catch it."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import orjson
import sqlalchemy as sa

from store.events import MetricsRecorded, RunStarted, StateChanged
from store.log import EventLog, canonical_json, chain_hash


def synthetic_run(log: EventLog, run_id: str, steps: int) -> None:
    """A run to tamper with: its opening batch (seqs 1-2), then one MetricsRecorded batch a step
    (step n at seq n + 2)."""
    opening = [
        RunStarted(config={"seed": 1}, config_hash="abc"),
        StateChanged(trigger="start", source="created", dest="sft_preparation"),
    ]
    log.append(run_id, opening, expected_seq=0)
    for step in range(1, steps + 1):
        event = MetricsRecorded(step=step, metrics={"kl": 0.01 * step})
        log.append(run_id, [event], expected_seq=log.last_seq(run_id))


def edit_payload(log: EventLog, run_id: str, seq: int, payload: dict) -> None:
    """A careless edit: the row's payload changes, its hash does not."""
    with log.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE events SET payload = :p WHERE run_id = :r AND seq = :s"),
            {"p": json.dumps(payload), "r": run_id, "s": seq},
        )


def forge_chain(
    log: EventLog, run_id: str, seq: int, change: dict, *, raw: str | None = None
) -> None:
    """A careful forgery: row `seq`'s payload updated with `change` (or replaced by the text
    `raw`, JSON or not), and every hash from there on recomputed, the verified-prefix record
    included: the unkeyed chain verifies."""
    rows = list(log._stream(run_id, 1, None, None, 1000))
    prev = rows[seq - 2].hash if seq > 1 else "0" * 64
    with log.engine.begin() as conn:
        for row in rows[seq - 1 :]:
            payload = orjson.loads(row.payload)
            if row.seq == seq:
                payload.update(change)
            text = raw if raw is not None and row.seq == seq else canonical_json(payload)
            digest = chain_hash(
                prev, run_id, row.seq, row.type, row.schema_version, row.recorded_at, text
            )
            conn.execute(
                sa.text(
                    "UPDATE events SET payload = :p, prev_hash = :ph, hash = :h "
                    "WHERE run_id = :r AND seq = :s"
                ),
                {"p": text, "ph": prev, "h": digest, "r": run_id, "s": row.seq},
            )
            prev = digest
        conn.execute(
            sa.text("UPDATE verified_prefix SET hash = :h WHERE run_id = :r"),
            {"h": prev, "r": run_id},
        )


def truncate(log: EventLog, run_id: str, keep: int, *, cover_tracks: bool) -> None:
    """Delete the rows after `keep`; with `cover_tracks`, move the verified prefix back too."""
    with log.engine.begin() as conn:
        conn.execute(
            sa.text("DELETE FROM events WHERE run_id = :r AND seq > :k"), {"r": run_id, "k": keep}
        )
        if cover_tracks:
            conn.execute(sa.text("DELETE FROM verified_prefix WHERE run_id = :r"), {"r": run_id})


def write_key(directory: Path) -> Path:
    path = directory / "chain.key"
    path.write_bytes(os.urandom(32).hex().encode())
    return path


def forge_snapshot(log: EventLog, run_id: str, seq: int, change: dict, mac: str | None) -> None:
    """A snapshot row nobody's fold wrote: the true state at `seq` with `change` applied, tied to
    the real event hash there (copied from the row), inserted with `mac` (no key needed)."""
    from dataclasses import replace

    from store.projections import project
    from store.snapshots import FOLD_KEY, SnapshotRow, state_to_json

    table = SnapshotRow.__table__
    state = replace(project(log.read(run_id, to_seq=seq)), **change)
    event_hash = next(log.read(run_id, from_seq=seq, to_seq=seq)).hash
    table.create(log.engine, checkfirst=True)
    with log.engine.begin() as conn:
        conn.execute(sa.delete(table).where((table.c.run_id == run_id) & (table.c.seq == seq)))
        conn.execute(
            sa.insert(table),
            [{"run_id": run_id, "seq": seq, "event_hash": event_hash, "fold_key": FOLD_KEY,
              "mac": mac, "state": state_to_json(state)}],
        )  # fmt: skip


def own_hash_edit(log: EventLog, run_id: str, seq: int, change: dict) -> None:
    """Row `seq`'s payload updated with `change` and its own hash recomputed; the rows after it
    left as they are (the next one still names the old hash)."""
    row = next(log.read(run_id, from_seq=seq, to_seq=seq))
    payload = orjson.loads(row.payload)
    payload.update(change)
    text = canonical_json(payload)
    digest = chain_hash(
        row.prev_hash, run_id, seq, row.type, row.schema_version, row.recorded_at, text
    )
    with log.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE events SET payload = :p, hash = :h WHERE run_id = :r AND seq = :s"),
            {"p": text, "h": digest, "r": run_id, "s": seq},
        )


def delete_row(log: EventLog, run_id: str, seq: int) -> None:
    with log.engine.begin() as conn:
        conn.execute(
            sa.text("DELETE FROM events WHERE run_id = :r AND seq = :s"), {"r": run_id, "s": seq}
        )


def _stored(log: EventLog, run_id: str) -> dict[int, object]:
    return {row.seq: row for row in log._stream(run_id, 1, None, None, 1000)}


def _rewrite(conn: sa.Connection, run_id: str, at: int, row: object, prev: str) -> None:
    """Row `row`'s content written at seq `at` with `prev` as its prev_hash, its hash recomputed
    over its own columns."""
    digest = chain_hash(
        prev, run_id, at, row.type, row.schema_version, row.recorded_at, row.payload
    )
    conn.execute(
        sa.text(
            "UPDATE events SET type = :t, schema_version = :v, recorded_at = :a, payload = :p, "
            "prev_hash = :ph, hash = :h WHERE run_id = :r AND seq = :s"
        ),
        {"t": row.type, "v": row.schema_version, "a": row.recorded_at, "p": row.payload,
         "ph": prev, "h": digest, "r": run_id, "s": at},
    )  # fmt: skip


def forge_columns(log: EventLog, run_id: str, seq: int, **columns: object) -> None:
    """A careful forgery of row `seq`'s columns (`type`, `recorded_at`, `payload` ...), every
    hash from there on recomputed and the verified prefix moved with them: the unkeyed chain
    holds."""
    rows = _stored(log, run_id)
    prev = rows[seq - 1].hash if seq > 1 else "0" * 64
    with log.engine.begin() as conn:
        for at in range(seq, max(rows) + 1):
            row = replace(rows[at], **columns) if at == seq else rows[at]
            _rewrite(conn, run_id, at, row, prev)
            prev = conn.execute(
                sa.text("SELECT hash FROM events WHERE run_id = :r AND seq = :s"),
                {"r": run_id, "s": at},
            ).scalar_one()
        conn.execute(
            sa.text("UPDATE verified_prefix SET hash = :h WHERE run_id = :r"),
            {"h": prev, "r": run_id},
        )


def transplant(log: EventLog, run_id: str, seq: int, from_seq: int) -> None:
    """Row `seq` := a copy of row `from_seq` (its prev_hash too), its hash recomputed."""
    rows = _stored(log, run_id)
    with log.engine.begin() as conn:
        _rewrite(conn, run_id, seq, rows[from_seq], rows[from_seq].prev_hash)


def rewrite_prev(log: EventLog, run_id: str, seq: int, prev: str) -> None:
    """Row `seq`'s prev_hash set to `prev` (junk), its hash recomputed."""
    rows = _stored(log, run_id)
    with log.engine.begin() as conn:
        _rewrite(conn, run_id, seq, rows[seq], prev)


def swap_rows(log: EventLog, run_id: str, seq: int) -> None:
    """Rows `seq` and `seq + 1` exchanged (each keeps its prev_hash), each hash recomputed."""
    rows = _stored(log, run_id)
    with log.engine.begin() as conn:
        _rewrite(conn, run_id, seq, rows[seq + 1], rows[seq + 1].prev_hash)
        _rewrite(conn, run_id, seq + 1, rows[seq], rows[seq].prev_hash)


def delete_and_shift(log: EventLog, run_id: str, seq: int) -> None:
    """Row `seq` deleted; each later row moved down one seq (its prev_hash kept), its hash
    recomputed."""
    rows = _stored(log, run_id)
    with log.engine.begin() as conn:
        for at in range(seq, max(rows)):
            _rewrite(conn, run_id, at, rows[at + 1], rows[at + 1].prev_hash)
        conn.execute(
            sa.text("DELETE FROM events WHERE run_id = :r AND seq = :s"),
            {"r": run_id, "s": max(rows)},
        )


def chain_holds(log: EventLog, run_id: str) -> bool:
    """Whether the run's hash chain holds (seqs, links, each row's own hash), its payloads aside:
    a forged payload's chain recomputed, as the tests that then read it need. `verify` also refuses
    a payload that is not canonical JSON (red team round 19)."""
    return log._walk_history(run_id).ok
