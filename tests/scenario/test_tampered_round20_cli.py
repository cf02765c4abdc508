"""Red team round 20 (log), typed as a person types the commands (the real `main`). Rows the code
could never have written, stored canonical with their chain recomputed (no key), and hostile export
lines, each end in one `error:` line naming the file and line or the seq, never a traceback:
- an export row whose text column holds a lone surrogate (`"\\ud800"`), which hashed into a bare
  UnicodeEncodeError;
- a recorded `log_path` that is not a path (`5`, `null`), which `report` met as a TypeError;
- a recorded `grpo` section that is not a table, which `replay` met as an AttributeError;
- a setting recorded as text (`learning_rate` `"x"` or `"inf"`): the fold refuses it by its seq
  (`replay` ended in a ValueError, or decided with infinity);
- a canonical payload that breaks its schema (`"kl":"x"`), which `verify` called intact;
- a branch pointer at seq 2**63 - 1, whose next seq overflowed SQLite's integer.
The shared cases are log20-001..011 (odd); the rest are variants of each mechanism."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import orjson
import pytest

from store.log import EventLog, canonical_json
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built, _copy
from tests.scenario.test_tampered_round19_cli import _one_error
from tests.tampering import chain_holds, forge_chain


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "round20", FakeStages(), keyed=False)


def _forged(finished, name: str, seq: int, path: list[str], value: object) -> str:
    """A copy of the finished run's store with row `seq`'s payload field `path` set to `value`,
    stored canonical, every hash from there recomputed."""
    log, store = _copy(finished, name)
    run_id = finished[1]
    text = next(r.payload for r in log._stream(run_id, seq, None, seq, 1))
    payload = orjson.loads(text)
    target = payload
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    forge_chain(log, run_id, seq, {}, raw=canonical_json(payload))
    assert chain_holds(log, run_id)
    log.close()
    return store


@pytest.mark.parametrize("seq_line", [20, 54], ids=["log20-001 a middle row", "the last row"])
@pytest.mark.parametrize("column", ["recorded_at", "type", "run_id"])
def test_an_export_row_with_a_lone_surrogate_is_named_by_file_and_line(
    capsys, tmp_path: Path, finished, seq_line: int, column: str
) -> None:
    from store.exports import export_lines

    log = EventLog(finished[0] / "events.db")
    lines = "".join(export_lines(log, finished[1])).splitlines()
    log.close()
    line = lines[seq_line - 1]
    key = f'"{column}":"'
    assert key in line
    lines[seq_line - 1] = line.replace(key, key + "\\ud800", 1)
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + "\n")
    into = tmp_path / "into.db"
    error = _one_error(rlvr(capsys, "events", "import", str(path), "--store", str(into)))
    assert f"run.jsonl:{seq_line}: " in error and "UnicodeEncodeError" not in error, error
    assert not into.exists()


@pytest.mark.parametrize(
    "value", [5, None, "", ["runs"]], ids=["log20-003 5", "null", "empty", "a list"]
)
def test_report_refuses_a_recorded_log_path_that_is_not_a_path(
    capsys, tmp_path: Path, finished, value: object
) -> None:
    store = _forged(finished, "log_path", 1, ["config", "log_path"], value)
    error = _one_error(
        rlvr(capsys, "report", finished[1], "--out", str(tmp_path / "r"), "--store", store)
    )
    assert re.search(r"\bseq 1\b", error) and "log_path" in error, error


@pytest.mark.parametrize("value", ["x", 5, [1]], ids=["log20-005 text", "a number", "a list"])
def test_replay_refuses_a_recorded_grpo_section_that_is_not_a_table(
    capsys, finished, value: object
) -> None:
    store = _forged(finished, "grpo", 1, ["config", "grpo"], value)
    error = _one_error(rlvr(capsys, "replay", finished[1], "--store", store))
    assert re.search(r"\bseq 1\b", error) and "grpo" in error, error


@pytest.mark.parametrize(
    "value",
    ["x", "inf", "0.001", True, [1]],
    ids=["log20-007 x", "inf", "a number as text", "true", "a list"],
)
@pytest.mark.parametrize("command", [["replay"], ["status"], ["why"]])
def test_a_setting_recorded_as_anything_but_a_number_is_refused_by_its_seq(
    capsys, finished, value: object, command: list[str]
) -> None:
    store = _forged(finished, "setting", 1, ["hyperparameters", "learning_rate"], value)
    error = _one_error(rlvr(capsys, *command, finished[1], "--store", store))
    assert re.search(r"\bseq 1\b", error) and "learning_rate" in error, error


def test_a_setting_changed_to_text_is_refused_by_its_seq(capsys, tmp_path: Path) -> None:
    from policies.config import PolicyConfig
    from tests.unit.policies.test_policy_replay import RUN, _drive

    log = EventLog(tmp_path / "events.db")
    _drive(log, PolicyConfig())
    seq = next(r.seq for r in log.read(RUN, types=["HyperparametersChanged"]))
    payload = orjson.loads(next(log.read(RUN, from_seq=seq, to_seq=seq)).payload)
    name = next(iter(payload["changes"]))
    payload["changes"][name] = "inf"  # log20-008's kind: read as infinity and decided with
    forge_chain(log, RUN, seq, {}, raw=canonical_json(payload))
    log.close()
    error = _one_error(rlvr(capsys, "replay", RUN, "--store", str(tmp_path / "events.db")))
    assert re.search(rf"\bseq {seq}\b", error) and name in error, error


@pytest.mark.parametrize(
    "seq, path, value",
    [(25, ["metrics", "kl"], "x"), (1, ["config"], "x"), (4, ["verify_rate"], "0.5")],
    ids=["log20-009 kl as text", "config as text", "a rate as text"],
)
def test_verify_refuses_a_canonical_payload_that_breaks_its_schema(
    capsys, finished, seq: int, path: list[str], value: object
) -> None:
    store = _forged(finished, "schema", seq, path, value)
    error = _one_error(rlvr(capsys, "verify", finished[1], "--store", store))
    assert re.search(rf"\bseq {seq}\b", error), error


@pytest.fixture(scope="module")
def branched(finished):
    from orchestrator.driver.lifecycle import branch

    log, store = _copy(finished, "branched")
    child, _ = branch(log, finished[1], 30, [])
    log.close()
    return store, child


@pytest.mark.parametrize("parent_seq", [2**63 - 1, 2**63 - 2], ids=["log20-011 2**63-1", "2**63-2"])
@pytest.mark.parametrize("command", [["status"], ["verify"], ["events"]])
def test_a_branch_pointer_at_the_last_seq_is_one_error_line(
    capsys, tmp_path: Path, branched, parent_seq: int, command: list[str]
) -> None:
    source, child = branched
    store = tmp_path / "pointer.db"
    with sqlite3.connect(source) as src, sqlite3.connect(store) as dst:
        src.backup(dst)
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE run_parents SET parent_seq = ?", (parent_seq,))
    error = _one_error(rlvr(capsys, *command, child, "--store", str(store)))
    assert "OverflowError" not in error, error
    assert "branch pointer" in error or "branched from run" in error, error
