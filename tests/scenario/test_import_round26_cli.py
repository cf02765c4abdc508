"""Red team round 26 (import), typed as a person types the commands (the real `main`): an export
edited by hand, its chain recomputed (no key), is refused by `rlvr events import` with one `error:`
line naming the file and line, exit 2, and no store written, for every row the readers refuse:
- a schema-v1 `MetricsRecorded` whose metrics are a list or text (the upcaster's AttributeError);
- a `RunStarted` whose config's `grpo` is a list or `model` a number (`sink` met a TypeError);
- a `RunStarted` setting of the wrong type (`learning_rate` `[1]`), which every reader refused;
- an invalid run id (250 characters, U+202E), refused naming neither file nor line.
A genuine export still imports (the control)."""

from __future__ import annotations

import gc
from pathlib import Path

import orjson
import pytest

from store.log import EventLog, canonical_json
from store.verification import GENESIS_HASH, chain_hash
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built
from tests.scenario.test_tampered_round19_cli import _one_error


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The rows of a genuine export of a finished run (its head line dropped: `_written` adds it)."""
    from store.exports import export_lines

    directory, run_id, _ = _built(tmp_path_factory, "round26", FakeStages(), keyed=False)
    log = EventLog(directory / "events.db")
    lines = list(export_lines(log, run_id))
    log.close()
    return [orjson.loads(line) for line in lines[:-1]]


def _written(tmp_path: Path, rows: list[dict]) -> Path:
    """The rows as an export file, the chain and head recomputed as a forger would."""
    prev = GENESIS_HASH
    lines = []
    for row in rows:
        payload = canonical_json(row["payload"])
        row["prev_hash"] = prev
        row["hash"] = prev = chain_hash(
            prev, row["run_id"], row["seq"], row["type"], row["schema_version"],
            row["recorded_at"], payload,
        )  # fmt: skip
        lines.append(orjson.dumps(row, option=orjson.OPT_SORT_KEYS).decode())
    last = rows[-1]
    head = {"run_id": last["run_id"], "seq": last["seq"], "hash": prev, "mac": None}
    lines.append(orjson.dumps({"head": head}).decode())
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _refused(capsys, tmp_path: Path, rows: list[dict], line: int, field: str) -> str:
    """Import of the edited rows: one error naming `run.jsonl:LINE` and `field`, exit 2, and the
    target store left as it was (an existing store keeps its bytes; a new one is not created)."""
    path = _written(tmp_path, rows)
    into = tmp_path / "into.db"
    result = rlvr(capsys, "events", "import", str(path), "--store", str(into))
    error = _one_error(result)
    assert result.code == 2, (result.code, error)
    assert f"run.jsonl:{line}: " in error and field in error, error
    assert not into.exists()
    return error


def _first(rows: list[dict], kind: str) -> tuple[int, dict]:
    return next((n, r) for n, r in enumerate(rows, start=1) if r["type"] == kind)


@pytest.mark.parametrize("metrics", [[1, 2], "loss"], ids=["log26-013 a list", "text"])
def test_an_old_metrics_row_of_the_wrong_shape_is_named_by_file_and_line(
    capsys, tmp_path: Path, exported: list[dict], metrics: object
) -> None:
    rows = [dict(r) for r in exported]
    line, row = _first(rows, "MetricsRecorded")
    rows[line - 1] = {**row, "schema_version": 1, "payload": {**row["payload"], "metrics": metrics}}
    error = _refused(capsys, tmp_path, rows, line, "MetricsRecorded")
    assert "AttributeError" not in error, error


@pytest.mark.parametrize(
    ("section", "value"), [("grpo", [1]), ("model", 5)], ids=["log26-015 grpo [1]", "model 5"]
)
def test_a_recorded_config_no_reader_can_use_is_refused_at_the_door(
    capsys, tmp_path: Path, exported: list[dict], section: str, value: object
) -> None:
    rows = [dict(r) for r in exported]
    config = {**rows[0]["payload"]["config"], section: value}
    rows[0] = {**rows[0], "payload": {**rows[0]["payload"], "config": config}}
    _refused(capsys, tmp_path, rows, 1, section)


@pytest.mark.parametrize(
    ("name", "value"),
    [("learning_rate", [1]), ("temperature", "hot")],
    ids=["log26-017 learning_rate [1]", "temperature text"],
)
def test_a_start_setting_of_the_wrong_type_is_refused_as_the_readers_refuse_it(
    capsys, tmp_path: Path, exported: list[dict], name: str, value: object
) -> None:
    rows = [dict(r) for r in exported]
    settings = {**rows[0]["payload"]["hyperparameters"], name: value}
    rows[0] = {**rows[0], "payload": {**rows[0]["payload"], "hyperparameters": settings}}
    error = _refused(capsys, tmp_path, rows, 1, name)
    # as a person reads it (log26-018): the field and its value, not the readers' stored-row frame
    # nor Python's exception class
    assert f"run.jsonl:1: RunStarted: setting {name} is {value!r}, not a number" in error, error
    assert "TypeError" not in error and "edited?" not in error


@pytest.mark.parametrize(
    "run_id", ["r" * 250, "run\u202eevil"], ids=["log26-031 250 characters", "U+202E"]
)
def test_an_invalid_run_id_is_named_by_file_and_line(
    capsys, tmp_path: Path, exported: list[dict], run_id: str
) -> None:
    rows = [{**r, "run_id": run_id} for r in exported]
    _refused(capsys, tmp_path, rows, 1, "invalid run id")


def test_an_existing_store_is_left_as_it_was(capsys, tmp_path: Path, exported: list[dict]) -> None:
    into = tmp_path / "into.db"
    genuine = _written(tmp_path, [dict(r) for r in exported])
    assert rlvr(capsys, "events", "import", str(genuine), "--store", str(into)).code == 0
    gc.collect()  # (the in-process command's store closed)
    before = into.read_bytes()
    rows = [dict(r) for r in exported]
    settings = {**rows[0]["payload"]["hyperparameters"], "learning_rate": [1]}
    rows[0] = {
        **rows[0],
        "run_id": "other",
        "payload": {**rows[0]["payload"], "hyperparameters": settings},
    }
    rows = [{**r, "run_id": "other"} for r in rows]
    path = _written(tmp_path, rows)
    result = rlvr(capsys, "events", "import", str(path), "--store", str(into))
    assert result.code == 2 and "run.jsonl:1: " in _one_error(result)
    assert into.read_bytes() == before


def test_a_genuine_export_still_imports_and_reads(
    capsys, tmp_path: Path, exported: list[dict]
) -> None:
    into = tmp_path / "into.db"
    path = _written(tmp_path, [dict(r) for r in exported])
    result = rlvr(capsys, "events", "import", str(path), "--store", str(into))
    assert result.code == 0 and "hash chain verified" in result.err, result.err
    run_id = exported[0]["run_id"]
    status = rlvr(capsys, "status", run_id, "--store", str(into))
    assert status.code == 0, status.err
