"""An export's batch_end marks with a chain key (red team round 17, l17-027/029): the export
carries only boundaries whose MAC verifies, and its head signs the marks, so an import never
signs a boundary that the key holder did not write. Run against every backend."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa

from store.batches import CutError
from store.errors import StoreError
from store.events import MetricsRecorded, RunStarted
from store.exports import export_lines, import_file
from store.keyed import KEY_ENV
from store.log import EventLog
from tests.tampering import write_key


def _run(log: EventLog, run_id: str) -> None:
    """Batches 1..1, 2..4 (one step's three rows), 5..5."""
    log.append(run_id, [RunStarted(config={}, config_hash="x")], expected_seq=0)
    rows = [MetricsRecorded(step=1, metrics={"kl": float(i)}) for i in range(3)]
    log.append(run_id, rows, expected_seq=1)
    log.append(run_id, [MetricsRecorded(step=2, metrics={})], expected_seq=4)


@pytest.fixture
def keyed_pair(store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_id: str):
    """(the keyed source log, a fresh store's URL, the key a copy of it reads with)"""
    key = write_key(tmp_path)
    monkeypatch.setenv(KEY_ENV, str(key))
    log = EventLog(store_url)
    _run(log, run_id)
    copy = tmp_path / "b" / "chain.key"  # heads are per key file: the other store's own copy
    copy.parent.mkdir()
    shutil.copy(key, copy)
    yield log, str(tmp_path / "b" / "events.db"), copy
    log.close()


def _import(path: Path, url: str, key: Path, monkeypatch: pytest.MonkeyPatch) -> EventLog:
    monkeypatch.setenv(KEY_ENV, str(key))
    other = EventLog(url)
    import_file(other, path)
    return other


def test_a_genuine_keyed_export_keeps_its_cut_points(
    keyed_pair, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, url, key = keyed_pair
    path = tmp_path / "run.jsonl"
    path.write_text("".join(export_lines(log, run_id)))
    other = _import(path, url, key, monkeypatch)
    assert other.batch_ends(run_id) == [1, 4, 5] and other.cut_at(run_id, 3).seq == 1
    other.close()


def test_unsigned_boundaries_are_not_exported_so_an_import_never_signs_them(
    keyed_pair, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, url, key = keyed_pair
    with log.engine.begin() as conn:  # the batch 2..4 split in two, unsigned
        conn.execute(
            sa.text("DELETE FROM batches WHERE run_id = :r AND last_seq = 4"), {"r": run_id}
        )
        conn.execute(
            sa.text("INSERT INTO batches (run_id, first_seq, last_seq, mac) VALUES "
                    "(:r, 2, 3, NULL), (:r, 4, 4, NULL)"),
            {"r": run_id},
        )  # fmt: skip
    path = tmp_path / "run.jsonl"
    path.write_text("".join(export_lines(log, run_id)))
    other = _import(path, url, key, monkeypatch)
    assert other.cut_at(run_id, 3).seq == 1  # not 3: no boundary inside the batch
    assert 3 not in other.batch_ends(run_id)
    other.close()


def test_a_batch_end_mark_added_to_a_keyed_export_file_is_refused(
    keyed_pair, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, url, key = keyed_pair
    lines = [json.loads(line) for line in export_lines(log, run_id)]
    assert lines[2]["seq"] == 3 and "batch_end" not in lines[2]
    lines[2]["batch_end"] = True
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(StoreError, match="batch_end marks of run .* are not the ones its key"):
        _import(path, url, key, monkeypatch)


def test_marks_a_keyed_export_head_does_not_sign_are_dropped_not_signed(
    keyed_pair, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export from before marks were signed (no `ends_mac`): its rows import, its marks do
    not, so no cut lands where the key holder did not put a boundary."""
    log, url, key = keyed_pair
    lines = [json.loads(line) for line in export_lines(log, run_id)]
    del lines[-1]["head"]["ends_mac"]
    lines[2]["batch_end"] = True  # a mark nobody signed
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    other = _import(path, url, key, monkeypatch)
    assert other.verify(run_id).ok and other.batch_ends(run_id, cut=False) == []
    with pytest.raises(CutError):
        other.cut_at(run_id, 3)
    other.close()
