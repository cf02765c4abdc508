"""Red team round 18, typed as a person types the commands (the real `main`): rows the code could
never have written, their chain recomputed with no key, are refused by every reader that hands
rows out, by their seq, as the fold refuses them: steps out of range (-16, 10**26, 2e9) and rates
outside [0, 1] (the events' schemas), gate evidence naming no row before the gate, a gate passed
against its own numbers; an export that repeats a line, a seq stored as 20.5 and text that is
not UTF-8 are named where they are; format characters and line separators from the log are shown
escaped. The shared cases of tests/scenario/adversarial_round18_log.jsonl (l18-0NN) and variants
of each mechanism; PostgreSQL where the store is involved (RLVR_TEST_POSTGRES_URL)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.runner import Driver
from store.blobs import BlobStore
from store.log import EventLog
from store.verification import chain_hash
from tests.cli_runner import Result, rlvr
from tests.conftest import POSTGRES_URL
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built, _copy
from tests.tampering import forge_chain

# Seqs of FakeStages' finished run: 4 BaselineRecorded, 25..29 MetricsRecorded (steps 16..20),
# 28 the kl gate's evidence, 32 the kl gate, 45 MetricsRecorded, 46 CheckpointSaved, 51
# EvalRecorded, 52 the capability gate.


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "round18", FakeStages(), keyed=False)


def _forge(log: EventLog, run_id: str, seq: int, old: str, new: str) -> None:
    """Row `seq`'s payload text with `old` replaced by `new`, every hash from there recomputed."""
    text = next(r.payload for r in log._stream(run_id, seq, None, seq, 1))
    assert old in text, text
    forge_chain(log, run_id, seq, {}, raw=text.replace(old, new, 1))


def _tampered(finished, name: str, seq: int, old: str, new: str) -> str:
    log, store = _copy(finished, name)
    _forge(log, finished[1], seq, old, new)
    log.close()
    return store


def _sql(finished, name: str, sql: str) -> str:
    log, store = _copy(finished, name)
    log.close()
    with sqlite3.connect(store) as conn:
        conn.execute(sql.replace("{run}", finished[1]))
    return store


def _refused(result: Result, seq: int) -> None:
    assert result.code != 0, result.out[-2000:]
    assert "Traceback" not in result.err, result.err[-3000:]
    assert len(result.error_lines) == 1, result.err[-3000:]
    assert result.error_lines[0].startswith("error:"), result.err
    assert re.search(rf"\bseq {seq}\b", result.err), result.err


def _run(capsys, store: str, *args: str) -> Result:
    return rlvr(capsys, *args, "--store", store)


# --- (1) steps and rates out of range: the events' schemas ------------------------------------

RANGE_CASES = {
    # id: (seq, old, new, command)
    "l18-001 events --json step -16": (25, '"step":16', '"step":-16', ["events", "{run}", "--json"]),
    "l18-003 events --type step 10**26": (
        25, '"step":16', '"step":' + "1" + "0" * 26, ["events", "{run}", "--type", "MetricsRecorded"]
    ),
    "l18-005 why --seq from an evidence row": (
        25, '"step":16', '"step":' + "1" + "0" * 26, ["why", "{run}", "--seq", "32"]
    ),
    "l18-019 status checkpoint step -5": (46, '"step":30', '"step":-5', ["status", "{run}"]),
    "l18-021 status eval step -7": (51, '"step":30', '"step":-7', ["status", "{run}"]),
    "l18-023 status baseline rate -2.0": (
        4, '"verify_rate":0.5', '"verify_rate":-2.0', ["status", "{run}"]
    ),
    # variants
    "export eval rate 7.5": (
        51, '"verify_rate":0.8', '"verify_rate":7.5', ["events", "export", "{run}"]
    ),
    "events --json capability 3.0": (
        31, '"reverse":0.99', '"reverse":3.0', ["events", "{run}", "--json"]
    ),
    "why --gate kl checkpoint step 2e9": (
        30, '"step":20', '"step":2000000000', ["why", "{run}", "--gate", "kl"]
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(RANGE_CASES))
def test_a_value_out_of_its_range_is_refused_by_its_seq(finished, case, capsys) -> None:
    seq, old, new, command = RANGE_CASES[case]
    store = _tampered(finished, case.split()[0].replace("-", "_") + str(len(case)), seq, old, new)
    result = _run(capsys, store, *[a.replace("{run}", finished[1]) for a in command])
    _refused(result, seq)
    if command[0] != "events":  # (`events` streams the rows before the refused one)
        assert result.out == "", result.out[-2000:]


# --- (6) evidence naming no row before the gate, (7) a gate passed against its own numbers ------

GATE_CASES = {
    "l18-017 why --gate kl evidence 99999": (
        32, '"evidence_seqs":[25,', '"evidence_seqs":[99999,', ["why", "{run}", "--gate", "kl"]
    ),
    "l18-025 status kl 0.5 passed": (32, '"value":0.05', '"value":0.5', ["status", "{run}"]),
    # variants
    "why --seq evidence -3": (
        32, '"evidence_seqs":[25,', '"evidence_seqs":[-3,', ["why", "{run}", "--seq", "32"]
    ),
    "events --type evidence its own seq": (
        52, '"evidence_seqs":[51,', '"evidence_seqs":[52,', ["events", "{run}", "--type", "GateEvaluated"]
    ),
    "status retention passed with no value": (
        52, '"value":0.97', '"value":null', ["status", "{run}"]
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(GATE_CASES))
def test_a_gate_row_that_contradicts_its_run_or_itself_is_refused(finished, case, capsys) -> None:
    seq, old, new, command = GATE_CASES[case]
    store = _tampered(finished, "gate" + str(sorted(GATE_CASES).index(case)), seq, old, new)
    result = _run(capsys, store, *[a.replace("{run}", finished[1]) for a in command])
    _refused(result, seq)


# --- (2) import runs the same check; (5) a repeated line is named ------------------------------


def _forged_export(finished, tmp_path: Path, seq: int, old: str, new: str) -> Path:
    """The honest run's export with row `seq`'s payload edited and every hash (and the head's)
    recomputed in the file: what `events import` is handed."""
    _, run_id, _ = finished
    exported = tmp_path / "honest.jsonl"
    log = EventLog(finished[0] / "events.db")
    from store.exports import export_lines

    exported.write_text("".join(export_lines(log, run_id)))
    log.close()
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    prev = "0" * 64
    for row in lines[:-1]:
        text = json.dumps(row["payload"], sort_keys=True, separators=(",", ":"))
        if row["seq"] == seq:
            assert old in text, text
            row["payload"] = json.loads(text.replace(old, new, 1))
            text = json.dumps(row["payload"], sort_keys=True, separators=(",", ":"))
        row["prev_hash"] = prev
        row["hash"] = prev = chain_hash(
            prev, row["run_id"], row["seq"], row["type"], row["schema_version"],
            row["recorded_at"], text,
        )  # fmt: skip
    lines[-1]["head"]["hash"] = prev
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return forged


IMPORT_CASES = {
    "l18-007 step 2e9": (25, '"step":16', '"step":2000000000'),
    # variants
    "gate passed against its value": (32, '"value":0.05', '"value":0.5'),
    "verifier false positive rate 1.5": (12, '"false_positive_rate":0.0', '"false_positive_rate":1.5'),
}  # fmt: skip


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@pytest.mark.parametrize("case", sorted(IMPORT_CASES))
def test_import_refuses_a_row_the_store_would_refuse(
    finished, case, backend, tmp_path, capsys
) -> None:
    if backend == "postgresql" and not POSTGRES_URL:
        pytest.skip("RLVR_TEST_POSTGRES_URL is not set")
    seq, old, new = IMPORT_CASES[case]
    forged = _forged_export(finished, tmp_path, seq, old, new)
    store = str(tmp_path / "imported.db") if backend == "sqlite" else POSTGRES_URL
    result = rlvr(capsys, "events", "import", str(forged), "--store", store)
    _refused(result, seq)
    assert "hash chain verified" not in result.err + result.out
    if backend == "sqlite":
        assert not Path(store).exists()  # refused before a store was made


@pytest.mark.parametrize("index", [19, 53])  # l18-015 (seq 20's line); the last row's line
def test_an_export_with_a_line_written_twice_names_the_repeated_seq(
    finished, index, tmp_path, capsys
) -> None:
    forged = _forged_export(finished, tmp_path, 1, "", "")
    lines = forged.read_text().splitlines(keepends=True)
    lines.insert(index + 1, lines[index])
    forged.write_text("".join(lines))
    result = rlvr(capsys, "events", "import", str(forged), "--store", str(tmp_path / "i.db"))
    _refused(result, index + 1)
    assert f":{index + 2}:" in result.err and "is missing" not in result.err, result.err


def test_an_export_with_two_lines_swapped_names_the_line_out_of_order(
    finished, tmp_path, capsys
) -> None:
    forged = _forged_export(finished, tmp_path, 1, "", "")
    lines = forged.read_text().splitlines(keepends=True)
    lines[19], lines[20] = lines[20], lines[19]  # seq 21 on line 20, seq 20 on line 21
    forged.write_text("".join(lines))
    result = rlvr(capsys, "events", "import", str(forged), "--store", str(tmp_path / "i.db"))
    _refused(result, 20)
    assert ":21:" in result.err and "is missing" not in result.err, result.err


# --- (4) text that is not UTF-8, (5) a seq that is not a whole number ---------------------------

SQL_CASES = {
    "l18-011 verify recorded_at": (
        30, "update events set recorded_at=cast(x'ff' as text) where run_id='{run}' and seq=30",
        ["verify", "{run}"],
    ),
    "status payload": (
        12, "update events set payload=cast(x'7b22ff223a317d' as text) where run_id='{run}' and seq=12",
        ["status", "{run}"],
    ),
    "status the last row's recorded_at": (
        54, "update events set recorded_at=cast(x'ff' as text) where run_id='{run}' and seq=54",
        ["status", "{run}"],
    ),
    "verify the last row's hash": (
        54, "update events set hash=cast(x'ff' as text) where run_id='{run}' and seq=54",
        ["verify", "{run}"],
    ),
    "events --json type": (
        40, "update events set type=cast(x'4d65ff' as text) where run_id='{run}' and seq=40",
        ["events", "{run}", "--json"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(SQL_CASES))
def test_a_column_that_is_not_utf8_is_named_by_its_seq(finished, case, capsys) -> None:
    seq, sql, command = SQL_CASES[case]
    store = _sql(finished, "utf8" + str(sorted(SQL_CASES).index(case)), sql)
    result = _run(capsys, store, *[a.replace("{run}", finished[1]) for a in command])
    _refused(result, seq)
    assert "SQL" not in result.err and "OperationalError" not in result.err, result.err


@pytest.mark.parametrize(
    ("seq", "command"),
    [(20.5, ["verify", "{run}"]), (54.5, ["status", "{run}"]), (0.5, ["events", "{run}"])],
)  # l18-013 and variants: a copy of a row stored at a REAL seq
def test_a_fractional_seq_is_named_as_what_it_is(finished, seq, command, capsys) -> None:
    copied = int(seq) or 1
    store = _sql(
        finished,
        f"frac{int(seq)}",
        f"insert into events select run_id, {seq}, type, schema_version, payload, recorded_at, "
        f"prev_hash, hash from events where run_id='{{run}}' and seq={copied}",
    )
    result = _run(capsys, store, *[a.replace("{run}", finished[1]) for a in command])
    assert result.code != 0 and "Traceback" not in result.err, result.err
    assert result.error_lines[0].startswith("error:") and len(result.error_lines) == 1
    assert f"stored as {seq}, not a whole number" in result.err, result.err
    assert "is missing" not in result.err, result.err


# --- (8) format characters and separators from the log, escaped ------------------------------

TEXT_CASES = {
    "l18-027 status U+2029": (45, '"kl":0.05', '"kl\\u2029X":0.05', ["status", "{run}"], "\u2029"),
    "l18-029 status U+FEFF": (45, '"kl":0.05', '"kl\\ufeff":0.05', ["status", "{run}"], "\ufeff"),
    "l18-031 why --full U+200B": (
        28, '"kl":0.05', '"k\\u200bl":0.05', ["why", "{run}", "--gate", "kl", "--full"], "\u200b"
    ),
    # variants
    "status U+2028": (45, '"kl":0.05', '"kl\\u2028X":0.05', ["status", "{run}"], "\u2028"),
    "why --full U+2060 word joiner": (
        28, '"kl":0.05', '"k\\u2060l":0.05', ["why", "{run}", "--gate", "kl", "--full"], "\u2060"
    ),
    "status tag character U+E0041": (
        45, '"kl":0.05', '"kl\\udb40\\udc41":0.05', ["status", "{run}"], "\U000e0041"
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(TEXT_CASES))
def test_invisible_characters_from_the_log_are_shown_escaped(finished, case, capsys) -> None:
    seq, old, new, command, char = TEXT_CASES[case]
    store = _tampered(finished, "text" + str(sorted(TEXT_CASES).index(case)), seq, old, new)
    result = _run(capsys, store, *[a.replace("{run}", finished[1]) for a in command])
    assert result.code == 0, result.err[-2000:]
    assert char not in result.out
    escape = f"\\u{ord(char):04x}" if ord(char) < 0x10000 else f"\\U{ord(char):08x}"
    assert escape in result.out, result.out[-3000:]


# --- (3) the console: the why route and the events page refuse what the fold refuses ----------

CONSOLE_CASES = {
    "l18-009 why route step -16": (25, '"step":16', '"step":-16', "/api/runs/{run}/why/32"),
    # variants
    "why route evidence 99999": (
        32, '"evidence_seqs":[25,', '"evidence_seqs":[99999,', "/api/runs/{run}/why/32"
    ),
    "events page rate 7.5": (31, '"verify_rate":0.7', '"verify_rate":7.5', "/api/runs/{run}/events"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CONSOLE_CASES))
def test_the_console_refuses_a_row_the_fold_refuses(finished, case) -> None:
    from starlette.testclient import TestClient

    from orchestrator.console.app import create_app
    from orchestrator.console.security import Binding

    seq, old, new, path = CONSOLE_CASES[case]
    store = _tampered(finished, "console" + str(sorted(CONSOLE_CASES).index(case)), seq, old, new)
    log = EventLog(store)
    app = create_app(log, Binding("127.0.0.1", 8765, "tok-l18"))
    with TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False) as c:
        answer = c.get(path.replace("{run}", finished[1]))
    log.close()
    # The why route answers 409; the events page answers its frame with the page's refusal.
    body = answer.json()
    assert answer.status_code == 409 or body.get("events") == [], answer.text[:2000]
    assert f"seq {seq}:" in (body.get("page_error") or body.get("error") or ""), answer.text[:2000]


# --- PostgreSQL: a run driven there, forged there, read through the CLI -----------------------


def _postgres_run(tmp_path: Path) -> str:
    log = EventLog(POSTGRES_URL)
    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)  # a new id per run: the database is shared
    Driver(
        log, run_id, config, FakeStages().registry(), run_dir=tmp_path / run_id,
        blobs=BlobStore(tmp_path / "b"),
    ).run()  # fmt: skip
    log.close()
    return run_id


POSTGRES_CASES = {
    "events --json step -16": (25, '"step":16', '"step":-16', ["events", "{run}", "--json"]),
    "status kl 0.5 passed": (32, '"value":0.05', '"value":0.5', ["status", "{run}"]),
    "why evidence 99999": (
        32, '"evidence_seqs":[25,', '"evidence_seqs":[99999,', ["why", "{run}", "--gate", "kl"]
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(POSTGRES_CASES))
def test_on_postgresql_the_same_rows_are_refused(case, tmp_path, capsys) -> None:
    if not POSTGRES_URL:
        pytest.skip("RLVR_TEST_POSTGRES_URL is not set")
    seq, old, new, command = POSTGRES_CASES[case]
    run_id = _postgres_run(tmp_path)
    log = EventLog(POSTGRES_URL)
    _forge(log, run_id, seq, old, new)
    log.close()
    result = _run(capsys, POSTGRES_URL, *[a.replace("{run}", run_id) for a in command])
    _refused(result, seq)
