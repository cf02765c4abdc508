"""`rlvr events export` / `rlvr events import` of a keyed run whose file gained a batch_end mark,
typed as a person types them (red team round 17, l17-029): the import is refused with one line,
and nothing is imported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from store.events import MetricsRecorded, RunStarted
from store.keyed import KEY_ENV
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.tampering import write_key


def test_an_export_file_with_a_mark_added_inside_a_batch_is_refused_on_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    key = write_key(tmp_path / "a")
    shutil.copy(key, tmp_path / "b" / "chain.key")
    monkeypatch.setenv(KEY_ENV, str(key))
    log = EventLog(tmp_path / "a" / "events.db")
    log.append("r", [RunStarted(config={}, config_hash="x")], expected_seq=0)
    log.append("r", [MetricsRecorded(step=1, metrics={"kl": float(i)}) for i in range(3)], 1)
    log.close()
    exported = rlvr(capsys, "events", "export", "r", "--store", "a/events.db")
    assert exported.code == 0, exported.err
    lines = [json.loads(line) for line in exported.out.split("\n") if line.strip()]
    lines[2]["batch_end"] = True  # seq 3, inside the batch 2..4
    Path("run.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    monkeypatch.setenv(KEY_ENV, str(tmp_path / "b" / "chain.key"))
    imported = rlvr(capsys, "events", "import", "run.jsonl", "--store", "b/events.db")
    assert imported.code == 1 and len(imported.error_lines) == 1, imported.err
    assert "batch_end marks of run r are not the ones its key holder exported" in imported.err
    assert not Path("b/events.db").exists()  # refused before a store was created
    Path("run.jsonl").write_text(exported.out)
    assert rlvr(capsys, "events", "import", "run.jsonl", "--store", "b/events.db").code == 0
