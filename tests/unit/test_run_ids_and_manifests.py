"""Names that become paths stay inside their directory: a path-like run id in an imported log
is refused (exit 2, nothing imported), and a checkpoint manifest naming `../x` or `/x` is refused
before any file of it is restored."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from store.blobs import BlobStore
from store.errors import IntegrityError
from store.log import GENESIS_HASH, EventLog, canonical_json, chain_hash
from store.run_ids import InvalidRunIdError, check_run_id
from tests.cli_runner import rlvr


@pytest.mark.parametrize(
    "run_id",
    ["../../x", "a/b", "/abs", "..", ".hidden", "a\\b", "x\x1b[2J", "", "y" * 161, "a..b"],
)
def test_a_run_id_that_could_name_a_path_outside_log_path_is_refused(run_id: str) -> None:
    with pytest.raises(InvalidRunIdError, match="invalid run id"):
        check_run_id(run_id)


def test_the_ids_runs_and_branches_get_are_valid() -> None:
    from orchestrator.driver.commands import new_run_id

    check_run_id(new_run_id("quickstart.v2_a-b") + "-branch")
    check_run_id(new_run_id("x" * 64) + "-branch")


def _export_as(rows: list[dict], run_id: str) -> list[dict]:
    """The export of another run, renamed and re-chained: its hash chain verifies."""
    prev, out = GENESIS_HASH, []
    for row in rows:
        payload = canonical_json(row["payload"])
        digest = chain_hash(prev, run_id, row["seq"], row["type"], row["schema_version"],
                            row["recorded_at"], payload)  # fmt: skip
        out.append({**row, "run_id": run_id, "prev_hash": prev, "hash": digest})
        prev = digest
    head = {"run_id": run_id, "seq": out[-1]["seq"], "hash": prev, "mac": None}
    return [*out, {"head": head}]


def test_importing_a_log_with_a_path_like_run_id_is_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    store_url: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    source = str(tmp_path / "source.db")
    log = EventLog(source)
    run_id, _ = start_run(log, RunConfig(log_path=str(tmp_path)))
    rows = [stored.to_json() for stored in log.read(run_id)]
    log.close()
    evil = f"../../escaped-{uuid.uuid4().hex[:8]}"
    export = tmp_path / "run.jsonl"
    export.write_text("".join(json.dumps(r) + "\n" for r in _export_as(rows, evil)))
    # the re-chained export is sound apart from its id: the refusal is about the id
    ok = tmp_path / "ok.jsonl"
    ok.write_text("".join(json.dumps(r) + "\n" for r in _export_as(rows, evil[6:])))
    assert rlvr(capsys, "events", "import", str(ok), "--store", source).code == 0

    result = rlvr(capsys, "events", "import", str(export), "--store", store_url)
    assert result.code == 2, result.err
    assert result.error_lines == [
        f"error: {export}:1: not an exported event (invalid run id {evil!r}: letters, digits, '.', '_' and '-', starting with a "
        "letter or digit, no '..')"
    ]
    target = EventLog(store_url)
    try:
        assert target.last_seq(evil) == 0
    finally:
        target.close()


@pytest.mark.parametrize("entry", ["../outside.bin", "{tmp}/abs.bin", "a/../../x.bin"])
def test_a_manifest_entry_outside_its_destination_is_refused_before_anything_is_written(
    tmp_path: Path, entry: str
) -> None:
    entry = entry.format(tmp=tmp_path)  # an absolute path
    blobs = BlobStore(tmp_path / "blobs")
    good = blobs.put_bytes(b"weights")
    manifest = blobs.put_bytes(
        json.dumps({"files": {"config.json": good, entry: good}}, sort_keys=True).encode()
    )
    destination = tmp_path / "restore" / "model"
    with pytest.raises(IntegrityError, match="names a path outside itself"):
        blobs.get_tree(manifest, destination)
    assert not (tmp_path / "restore").exists()
    assert not (tmp_path / "outside.bin").exists() and not (tmp_path / "abs.bin").exists()


def test_a_sound_manifest_restores_nested_files(tmp_path: Path) -> None:
    source = tmp_path / "ckpt"
    (source / "sub").mkdir(parents=True)
    (source / "sub" / "w.bin").write_bytes(b"w")
    (source / "meta.json").write_text("{}")
    blobs = BlobStore(tmp_path / "blobs")
    restored = blobs.get_tree(blobs.put_tree(source), tmp_path / "out")
    assert (restored / "sub" / "w.bin").read_bytes() == b"w"
    assert (restored / "meta.json").read_text() == "{}"


def test_a_run_id_read_from_the_store_is_checked_before_it_names_a_path(tmp_path) -> None:
    """Red team round 10 (s31): rows copied under `../../x` (chain recomputed) made `latest`,
    and `rlvr report latest` wrote outside the store's folder."""
    import sqlite3

    from orchestrator.cli.options import find_run
    from store.log import EventLog
    from store.run_ids import run_path
    from tests.tampering import synthetic_run

    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, "good", steps=2)
    with sqlite3.connect(tmp_path / "events.db") as db:
        db.execute("UPDATE events SET run_id = '../../x' WHERE run_id = 'good'")
    for given in ("../../x", "latest", "../.."):
        with pytest.raises(InvalidRunIdError, match="invalid run id '../../x'"):
            find_run(log, given)
    with pytest.raises(InvalidRunIdError):
        run_path(tmp_path, "../../x")
    assert run_path(tmp_path, "good") == tmp_path / "good"
