"""Red team round 22 (log), typed as a person types the commands (the real `main`). Refusals that
came with more than their one `error:` line, or named the wrong thing:
- an unkeyed run with a genuine snapshot and a row forged after it: the fold's "do not fold onto
  it" warning came before the refusal (now only when folding from the events succeeds);
- a garbled `verified_prefix` row and a careless edit: "verified_prefix row ignored" came first
  (now at info level: the walk from seq 1 is the safe reading);
- a read-only PostgreSQL store (a hot standby): "could not record the verified prefix" came
  first; without the snapshot tables, `report` named the table it could not create, not the
  tampered seq (now such a store folds from its events);
- with a key, heads that another user could write (a replayed older head cuts the log back to
  it): refused, and the heads folder is created owner-only.
The shared cases are log22-013/029/031/033/035/039 and 001 (the heads' guard); the rest are
variants."""

from __future__ import annotations

import os
import sqlite3
import stat
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
import sqlalchemy as sa

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.runner import Driver
from store.blobs import BlobStore
from store.keyed import KEY_ENV, ChainKey
from store.log import EventLog
from store.projections import project
from store.snapshots import Snapshots
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built, _copy
from tests.scenario.test_tampered_round19_cli import _one_error
from tests.tampering import forge_chain, write_key

POSTGRES_URL = os.environ.get("RLVR_TEST_POSTGRES_URL")


@pytest.fixture(scope="module")
def unkeyed(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "round22", FakeStages(), keyed=False)


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "round22k", FakeStages(), keyed=True)


def _an_eval_after(log: EventLog, run_id: str, seq: int) -> int:
    return next(r.seq for r in log.read(run_id, types=["EvalRecorded"], from_seq=seq + 1))


def _snapshot_then_forged(built, name: str) -> tuple[str, int]:
    """A copy with a genuine snapshot at seq 30 (as the driver writes every 2,000 events) and an
    eval row after it forged, its chain recomputed: the seq forged."""
    log, store = _copy(built, name)
    run_id = built[1]
    state = project(log.read(run_id, to_seq=30))
    Snapshots(log).save(state, next(log.read(run_id, from_seq=30, to_seq=30)).hash)
    forged = _an_eval_after(log, run_id, 30)
    forge_chain(log, run_id, forged, {"verify_rate": "0.99"})
    log.close()
    return store, forged


@pytest.mark.parametrize(
    "command",
    [
        ["status", "{run}"],
        ["report", "{run}", "--out", "{dir}"],
        ["resume", "{run}", "--from", "40"],
    ],
    ids=["log22-013 status", "report", "resume --from"],
)
def test_a_row_forged_after_an_unsigned_snapshot_is_one_line_naming_it(
    capsys, unkeyed, command: list[str]
) -> None:
    store, forged = _snapshot_then_forged(unkeyed, f"snap-{command[0]}")
    args = [
        a.replace("{run}", unkeyed[1]).replace("{dir}", str(unkeyed[0] / "rep")) for a in command
    ]
    line = _one_error(rlvr(capsys, *args, "--store", store))
    assert f"seq {forged}: payload does not match EvalRecorded" in line


@pytest.mark.parametrize("value", ["'abc'", "-5"], ids=["log22-029 seq as text", "negative seq"])
@pytest.mark.parametrize("command", ["status", "events", "verify"])
def test_a_garbled_verified_prefix_adds_no_line_to_a_refusal(
    capsys, unkeyed, value: str, command: str
) -> None:
    log, store = _copy(unkeyed, f"prefix-{command}-{value.strip(chr(39))}")
    log.close()
    run_id = unkeyed[1]
    with sqlite3.connect(store) as db:
        db.execute(f"UPDATE verified_prefix SET seq = {value} WHERE run_id = ?", (run_id,))
        db.execute(
            "UPDATE events SET payload = replace(payload, '\"step\":', '\"step\":1') "
            "WHERE run_id = ? AND seq = 40",
            (run_id,),
        )
    line = _one_error(rlvr(capsys, command, run_id, "--store", store))
    assert "seq 40" in line


# --- a read-only PostgreSQL store: a schema of its own, read through a read-only session --------


def _pg_schema_run(drop_snapshot_tables: bool) -> tuple[str, str, str]:
    """A finished run in a fresh schema of the test database; the read-only URL of that schema
    (every session `default_transaction_read_only`, as a hot standby's), the writable one, and
    the schema."""
    if not POSTGRES_URL:
        pytest.skip("RLVR_TEST_POSTGRES_URL is not set")
    schema = f"r22_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(POSTGRES_URL.replace("postgresql://", "postgresql+psycopg://"))
    with admin.begin() as conn:
        conn.execute(sa.text(f"CREATE SCHEMA {schema}"))
    admin.dispose()
    sep = "&" if "?" in POSTGRES_URL else "?"
    writable = f"{POSTGRES_URL}{sep}options={quote(f'-c search_path={schema}')}"
    read_only = f"{POSTGRES_URL}{sep}options=" + quote(
        f"-c search_path={schema} -c default_transaction_read_only=on"
    )
    return writable, read_only, schema


@pytest.fixture
def pg_schema(tmp_path: Path):
    made: list[str] = []

    def build(drop_snapshot_tables: bool, edit) -> tuple[str, str]:
        writable, read_only, schema = _pg_schema_run(drop_snapshot_tables)
        made.append(schema)
        log = EventLog(writable)
        config = RunConfig(log_path=str(tmp_path))
        run_id, _ = start_run(log, config)
        Driver(
            log, run_id, config, FakeStages().registry(), run_dir=tmp_path / run_id,
            blobs=BlobStore(tmp_path / "b"),
        ).run()  # fmt: skip
        edit(log, run_id)
        with log.engine.begin() as conn:
            conn.execute(sa.text("DELETE FROM verified_prefix"))
            if drop_snapshot_tables:
                conn.execute(sa.text("DROP TABLE IF EXISTS state_snapshots, store_marks"))
        log.close()
        return read_only, run_id

    yield build
    if not made:  # skipped: no PostgreSQL
        return
    admin = sa.create_engine(POSTGRES_URL.replace("postgresql://", "postgresql+psycopg://"))
    with admin.begin() as conn:
        for schema in made:
            conn.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


def _forge_an_eval(log: EventLog, run_id: str) -> None:
    forge_chain(log, run_id, _an_eval_after(log, run_id, 30), {"verify_rate": "0.99"})


def _careless_edit_at_40(log: EventLog, run_id: str) -> None:
    with log.engine.begin() as conn:
        conn.execute(
            sa.text(
                "UPDATE events SET payload = replace(payload, :was, :now) "
                "WHERE run_id = :r AND seq = 40"
            ),
            {"r": run_id, "was": '"step":', "now": '"step":1'},
        )


@pytest.mark.parametrize("command", ["status", "events", "report"])
def test_a_read_only_store_refuses_a_forged_row_in_one_line(
    capsys, pg_schema, tmp_path: Path, command: str
) -> None:  # log22-033, 035
    store, run_id = pg_schema(False, _forge_an_eval)
    extra = ["--out", str(tmp_path / "rep")] if command == "report" else []
    line = _one_error(rlvr(capsys, command, run_id, *extra, "--store", store))
    assert "payload does not match EvalRecorded" in line


@pytest.mark.parametrize("command", ["report", "status"])
def test_a_read_only_store_without_snapshot_tables_names_the_edited_seq(
    capsys, pg_schema, tmp_path: Path, command: str
) -> None:  # log22-039
    store, run_id = pg_schema(True, _careless_edit_at_40)
    extra = ["--out", str(tmp_path / "rep")] if command == "report" else []
    line = _one_error(rlvr(capsys, command, run_id, *extra, "--store", store))
    assert "seq 40" in line and "snapshot table" not in line


def test_a_read_only_store_without_snapshot_tables_still_reads_a_genuine_run(
    capsys, pg_schema
) -> None:
    store, run_id = pg_schema(True, lambda log, run_id: None)
    result = rlvr(capsys, "status", run_id, "--store", store)
    assert result.code == 0 and result.err == "", result.err[-2000:]
    assert run_id in result.out


# --- with a key, the heads are guarded like the key --------------------------------------------


def _heads_dir(built) -> Path:
    return Path(built[2][KEY_ENV] + ".heads")


def test_the_heads_folder_is_created_writable_by_its_owner_only(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    old = os.umask(0o002)  # a user-private-group umask: folders group-writable by default
    try:
        ChainKey.from_env().sign("a-run", 1, "0" * 64)
    finally:
        os.umask(old)
    assert stat.S_IMODE(Path(os.environ[KEY_ENV] + ".heads").stat().st_mode) == 0o755


@pytest.mark.parametrize("target", ["folder", "head file"])
@pytest.mark.parametrize("mode", [0o020, 0o002], ids=["group", "others"])
def test_heads_others_can_write_are_refused(
    capsys, monkeypatch, keyed, target: str, mode: int
) -> None:  # log22-001: whoever writes them can put an older head back
    for name, value in keyed[2].items():
        monkeypatch.setenv(name, value)
    heads = _heads_dir(keyed)
    path = heads if target == "folder" else next(heads.glob("*.json"))
    before = stat.S_IMODE(path.stat().st_mode)
    path.chmod(before | mode)
    try:
        line = _one_error(rlvr(capsys, "status", keyed[1], "--store", str(keyed[0] / "events.db")))
    finally:
        path.chmod(before)
    assert f"{path} can be written by its group or others" in line


def test_a_head_file_another_user_owns_is_refused(capsys, monkeypatch, keyed) -> None:
    for name, value in keyed[2].items():
        monkeypatch.setenv(name, value)
    if os.geteuid() != 0:
        pytest.skip("changing a file's owner needs root")
    path = next(_heads_dir(keyed).glob("*.json"))
    os.chown(path, 65534, -1)
    try:
        line = _one_error(rlvr(capsys, "status", keyed[1], "--store", str(keyed[0] / "events.db")))
    finally:
        os.chown(path, 0, -1)
    assert "can be written by user 65534, not the chain key's owner" in line
