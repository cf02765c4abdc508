"""Red team round 19 (log), typed as a person types the commands (the real `main`):
- an export line that is JSON but not an object (`[1]`, `"row"`) is refused naming file and line,
  as a number or `null` was (it ended as `error: AttributeError` naming neither);
- an export's head line is read field by field, each of its type: a seq of `1e999` or `Infinity`
  (json reads them as inf) raised an OverflowError past every handler, and `54.9` or `"54"` went
  through `int()` and the import said "hash chain verified";
- `rlvr verify` refuses a payload that is not the canonical JSON the code writes (`NaN`, a key
  given twice, spaces), naming its seq: it walked the chain only and said "intact" of a row every
  other reader refuses, and of a `"step":16,"step":99` that `events` and the fold read apart.
The shared cases are log19-001..011 (odd); the rest are variants of each mechanism."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from store.log import EventLog
from tests.cli_runner import Result, rlvr
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built, _copy
from tests.tampering import chain_holds, forge_chain

# Seqs of FakeStages' finished run: 25..29 MetricsRecorded (steps 16..20), 54 rows in all.
METRICS_SEQ = 25


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "round19", FakeStages(), keyed=False)


@pytest.fixture(scope="module")
def export_text(finished, tmp_path_factory: pytest.TempPathFactory) -> str:
    from store.exports import export_lines

    log = EventLog(finished[0] / "events.db")
    try:
        return "".join(export_lines(log, finished[1]))
    finally:
        log.close()


def _one_error(result: Result) -> str:
    assert result.code != 0, result.out[-2000:]
    assert "Traceback" not in result.err, result.err[-3000:]
    assert len(result.error_lines) == 1, result.err[-3000:]
    line = result.error_lines[0]
    assert line.startswith("error:"), line
    return line


def _import(capsys, tmp_path: Path, text: str) -> Result:
    path = tmp_path / "run.jsonl"
    path.write_text(text)
    return rlvr(capsys, "events", "import", str(path), "--store", str(tmp_path / "into.db"))


NOT_OBJECTS = {
    "log19-001 a JSON list": "[1]",
    "a JSON string": '"row"',
    "a string holding 'head'": '"ahead"',
    "a JSON list of a row": "[{}]",
    "a boolean": "true",
}


@pytest.mark.parametrize("line", list(NOT_OBJECTS.values()), ids=list(NOT_OBJECTS))
def test_an_export_line_that_is_not_an_object_is_named_by_file_and_line(
    capsys, tmp_path: Path, export_text: str, line: str
) -> None:
    lines = export_text.splitlines()
    text = "\n".join([lines[0], line, *lines[1:]]) + "\n"
    error = _one_error(_import(capsys, tmp_path, text))
    assert re.search(r"run\.jsonl:2: not an exported event", error), error
    assert "AttributeError" not in error and not (tmp_path / "into.db").exists()


HEAD_SEQS = {
    "log19-003 1e999": "1e999",
    "Infinity": "Infinity",
    "-Infinity": "-Infinity",
    "NaN": "NaN",
    "log19-005 54.9": "54.9",
    "54.0": "54.0",
    "the text 54": '"54"',
    "true": "true",
    "null": "null",
}


@pytest.mark.parametrize("seq", list(HEAD_SEQS.values()), ids=list(HEAD_SEQS))
def test_an_export_head_whose_seq_is_not_a_whole_number_is_refused_with_its_line(
    capsys, tmp_path: Path, export_text: str, seq: str
) -> None:
    *rows, head = export_text.splitlines()
    data = json.loads(head)
    true_seq = data["head"]["seq"]
    forged = head.replace(f'"seq":{true_seq}', f'"seq":{seq}').replace(
        f'"seq": {true_seq}', f'"seq": {seq}'
    )
    assert forged != head
    error = _one_error(_import(capsys, tmp_path, "\n".join([*rows, forged]) + "\n"))
    assert re.search(rf"run\.jsonl:{len(rows) + 1}: ", error), error
    assert "head's seq must be a whole number" in error, error
    assert not (tmp_path / "into.db").exists()


@pytest.mark.parametrize("field", ["run_id", "hash", "mac"])
def test_an_export_head_missing_a_field_is_refused_with_its_line(
    capsys, tmp_path: Path, export_text: str, field: str
) -> None:
    *rows, head = export_text.splitlines()
    data = json.loads(head)
    del data["head"][field]
    error = _one_error(_import(capsys, tmp_path, "\n".join([*rows, json.dumps(data)]) + "\n"))
    assert f"run.jsonl:{len(rows) + 1}: " in error and f"head's {field}" in error, error


def test_the_export_as_written_still_imports(capsys, tmp_path: Path, export_text: str) -> None:
    result = _import(capsys, tmp_path, export_text)
    assert result.code == 0, result.err[-2000:]


NONCANONICAL = {
    # id: (old, new): row METRICS_SEQ's stored text, every hash from there recomputed
    "log19-007 a key twice": ('"step":16}', '"step":16,"step":99}'),
    "a nested key twice": ('"kl":', '"kl":0.5,"kl":'),
    "log19-009 NaN": ('"step":16}', '"step":16,"x":NaN}'),
    "Infinity": ('"step":16}', '"step":16,"x":Infinity}'),
    "spaced": ('"step":16}', '"step": 16}'),
    "keys out of order": ('{"metrics"', '{"step":16,"metrics"'),
    "a JSON list": (None, "[1, 2]"),
}


@pytest.mark.parametrize("edit", list(NONCANONICAL.values()), ids=list(NONCANONICAL))
def test_verify_refuses_a_payload_the_code_could_not_have_written(
    capsys, finished, edit: tuple[str | None, str]
) -> None:
    log, store = _copy(finished, "noncanonical")
    run_id = finished[1]
    text = next(r.payload for r in log._stream(run_id, METRICS_SEQ, None, METRICS_SEQ, 1))
    old, new = edit
    if old is None:
        raw = new
    elif old == '{"metrics"':  # a key moved to the front: the step is the payload's last key
        raw = text.replace(',"step":16}', "}").replace('{"metrics"', '{"step":16,"metrics"', 1)
    else:
        assert old in text, text
        raw = text.replace(old, new, 1)
    assert raw != text
    forge_chain(log, run_id, METRICS_SEQ, {}, raw=raw)
    assert chain_holds(log, run_id)  # only the payload's text is not one the code writes
    log.close()
    error = _one_error(rlvr(capsys, "verify", run_id, "--store", store))
    assert re.search(rf"\bseq {METRICS_SEQ}\b", error), error
    # every reader that hands the row out refuses it as verify does (log19-007/008: `events
    # --json` handed the key-twice row out)
    for reader in (["events", run_id, "--json"], ["events", "export", run_id], ["events", run_id]):
        result = rlvr(capsys, *reader, "--store", store)
        error = _one_error(result)
        assert re.search(rf"\bseq {METRICS_SEQ}\b", error), (reader, error)
        if "--json" in reader or "export" in reader:  # machine-readable: all or nothing
            assert result.out == "", (reader, result.out[:300])


def test_verify_still_calls_the_log_as_written_intact(capsys, finished) -> None:
    _, store = _copy(finished, "intact")
    result = rlvr(capsys, "verify", finished[1], "--store", store)
    assert result.code == 0 and "intact" in result.out + result.err, result.err[-2000:]
