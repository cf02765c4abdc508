"""JSON Lines split on "\\n" only, typed as a person types the commands: a raw U+2028, U+2029 or
U+0085 inside a JSON string is valid JSON (orjson and `ensure_ascii=False` write it unescaped), so
`str.splitlines()`, which breaks a line there, refused valid files (red team round 17: an export
whose `export-model` path held U+2028, a pairs file, a task file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.events import MetricsRecorded
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.tampering import synthetic_run

ROOT = Path(__file__).resolve().parents[2]
SEPARATORS = ["\u2028", "\u2029", "\u0085"]


@pytest.mark.parametrize("sep", SEPARATORS, ids=["U+2028", "U+2029", "U+0085"])
def test_an_export_holding_a_raw_line_separator_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, sep: str
) -> None:
    monkeypatch.chdir(tmp_path)
    log = EventLog(tmp_path / "a.db")
    synthetic_run(log, "r", 2)
    log.append("r", [MetricsRecorded(step=3, metrics={f"a{sep}b": 1.0})], expected_seq=4)
    log.close()
    exported = rlvr(capsys, "events", "export", "r", "--store", "a.db")
    assert exported.code == 0 and sep in exported.out, exported.err
    (tmp_path / "run.jsonl").write_text(exported.out, encoding="utf-8")
    imported = rlvr(capsys, "events", "import", "run.jsonl", "--store", "b.db")
    assert imported.code == 0, imported.err
    assert rlvr(capsys, "verify", "r", "--store", "b.db").code == 0


def test_rlvr_check_reads_a_pairs_file_with_a_raw_line_separator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    pairs = [
        {"response": "Answer: 1", "reference": "1"},
        {"response": "Work:\u2028x = 2\u2029so\u0085Answer: 2", "reference": "2"},
        {"response": "Answer: 3", "reference": "3"},
    ]
    text = "".join(json.dumps(p, ensure_ascii=False) + "\r\n" for p in pairs)
    (tmp_path / "pairs.jsonl").write_text(text, encoding="utf-8", newline="")
    result = rlvr(capsys, "check", "--verifier", "math", "pairs.jsonl")
    assert result.code == 0, result.err
    verdicts = [json.loads(line) for line in result.out.split("\n") if line.strip()]
    assert len(verdicts) == 3 and verdicts[0]["passed"] and verdicts[2]["passed"], result.out
    assert "pairs.jsonl: 3 checked" in result.err, result.err


def test_rlvr_check_adversary_reads_a_task_file_with_a_raw_line_separator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    rows = [
        json.loads(line)
        for line in (ROOT / "configs/data/math_sample.jsonl").read_text().split("\n")[:12]
    ]
    rows[5]["prompt"] = rows[5]["prompt"].replace(" ", "\u2028", 1)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    (tmp_path / "tasks.jsonl").write_text(text, encoding="utf-8")
    result = rlvr(capsys, "check", "--adversary", "tasks.jsonl", "--tasks", "12")
    assert result.code == 0, result.err
    assert result.out.splitlines()[0].split()[:3] == ["kind", "checked", "misjudged"]
