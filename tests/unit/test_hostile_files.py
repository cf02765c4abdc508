"""Files a person hands the command line are bounded and checked at the door, as typed: a data
row over the length limits or the model's context, deeply nested JSON, text that is not UTF-8 and
paths that cannot be written each give one `error:` line naming the file (and line), a non-zero
exit, no traceback and no run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import Result, rlvr

MATH_OK = {"prompt": "2+2?", "answer": "4"}


def _one_line(result: Result, expected: str, code: int = 2) -> None:
    assert result.code == code, result.err
    assert len(result.error_lines) == 1, result.err
    assert result.error_lines[0].startswith("error: "), result.err
    assert expected in result.error_lines[0], result.err
    assert "Traceback" not in result.err


def _task_file(tmp_path: Path, rows: list, name: str = "tasks.jsonl") -> None:
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    (tmp_path / name).write_text("\n".join(lines) + "\n")
    (tmp_path / "run.toml").write_text(f'[data]\ntask_family = "math"\ndata_path = "{name}"\n')


@pytest.mark.parametrize(
    ("rows", "overrides", "expected"),
    [
        # 30,000 characters of answer segfaulted mlx 7 s into SFT (rc 139)
        (
            [MATH_OK, MATH_OK | {"prompt": "3+3?"}, {"prompt": "1+1?", "answer": "2" * 30_000}],
            [],
            "tasks.jsonl:3: field 'answer': 30,000 characters, over data.max_answer_chars = 8,192",
        ),
        (
            [MATH_OK, {"prompt": "x" * 40, "answer": "1"}],
            ["data.max_prompt_chars=32"],
            "tasks.jsonl:2: field 'prompt': 40 characters, over data.max_prompt_chars = 32",
        ),
        # within the character limits, but not within the embedded model's 64 positions
        (
            [{"prompt": "1" * 50, "answer": "2" * 20}, MATH_OK],
            ["model.max_position_embeddings=64"],
            "tasks.jsonl:1: the prompt and answer take 71 tokens, over the model's context of 64 "
            "(model.max_position_embeddings)",
        ),
    ],
)
def test_a_row_too_long_is_refused_at_the_door_with_its_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rows: list,
    overrides: list[str],
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    _task_file(tmp_path, rows)
    _one_line(rlvr(capsys, "run", "run.toml", *overrides), expected)
    assert not (tmp_path / "runs").exists()  # no store, no run directory: SFT never started


def test_rows_within_the_limits_and_the_context_pass_the_door() -> None:
    from orchestrator.config import check_data, load_config

    check_data(load_config("configs/math.toml"))  # as shipped: no error


DEEP_JSON = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("run.toml", b"seed = 1\nrun_name = 'caf\xe9'\n", "run.toml:2: not UTF-8 text"),
        ("run.toml", b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n", "run.toml: nested too deeply"),
        # Red team round 5: dotted headers nest without recursing in the parser (a RecursionError
        # later), a NUL in a path (ValueError at mkdir), a section of the wrong shape read
        # before validation (AttributeError).
        (
            "run.toml",
            b"[" + b".".join([b"a"] * 3000) + b"]\nx = 1\n",
            "run.toml: nested too deeply",
        ),
        ("run.toml", b'log_path = "a\\u0000b"\n', "run.toml: log_path: a NUL character"),
        ("run.toml", b"[[grpo]]\nlr = 1\n", ": grpo: "),
        ("run.toml", b"grpo = 5\n", ": grpo: "),
        ("run.toml", b"seed = " + b"9" * 5000 + b"\n", "run.toml: Exceeds the limit (4300 digits)"),
    ],
)
def test_a_config_not_utf8_or_nested_too_deeply_is_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: bytes,
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(content)
    _one_line(rlvr(capsys, "run", name), expected)
    _one_line(rlvr(capsys, "supervise", "--once", "--config", name), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"prompt": "1+1?", "answer": "2"}\n{"prompt": "' + DEEP_JSON.encode() + b'"}\n', ""),
        (
            b'{"prompt": "1+1?", "answer": "2"}\n{"prompt": ' + DEEP_JSON.encode() + b"}\n",
            "tasks.jsonl:2: invalid JSON: nested too deeply",
        ),
        (
            b'{"prompt": "1+1?", "answer": "2"}\n{"prompt": "2+2?", "answer": "\xff"}\n',
            "tasks.jsonl:2: not UTF-8 text",
        ),
    ],
)
def test_a_task_file_not_utf8_or_nested_too_deeply_is_one_line_with_its_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    content: bytes,
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    _task_file(tmp_path, [])
    (tmp_path / "tasks.jsonl").write_bytes(content)
    # The first case nests only inside a string: not nesting at all, just a row missing its answer.
    expected = expected or "tasks.jsonl:2: field 'answer': missing"
    _one_line(rlvr(capsys, "run", "run.toml"), expected)
    assert not (tmp_path / "runs").exists()


def test_a_json_array_task_file_nested_too_deeply_names_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rubric.json").write_text("[\n" + DEEP_JSON + "\n]\n")
    (tmp_path / "run.toml").write_text(
        '[data]\ntask_family = "rubric"\ndata_path = "rubric.json"\n'
    )
    _one_line(rlvr(capsys, "run", "run.toml"), "rubric.json:2: invalid JSON: nested too deeply")


def test_an_unwritable_log_path_or_store_path_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("a file, not a folder")
    (tmp_path / "run.toml").write_text("")
    _one_line(
        rlvr(capsys, "run", "run.toml", "log_path=afile/runs"),
        "log_path: cannot write to 'afile/runs': Not a directory",
    )
    _one_line(
        rlvr(capsys, "run", "run.toml", "--store", "afile/events.db"),
        "cannot create the event store afile/events.db",
        code=1,
    )


def _exported_run(tmp_path: Path) -> list[dict]:
    """A small real run's export, as JSON objects (rows, then the head line)."""
    from orchestrator.config import RunConfig
    from orchestrator.driver.commands import load_state, start_run, transition
    from store.exports import export_lines
    from store.log import EventLog

    log = EventLog(tmp_path / "source.db")
    run_id, _ = start_run(log, RunConfig(log_path=str(tmp_path / "runs")))
    transition(log, run_id, "start", state=load_state(log, run_id))
    lines = [json.loads(line) for line in export_lines(log, run_id)]
    log.close()
    return lines


def _write_export(path: Path, lines: list[dict]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_an_import_row_that_breaks_its_events_schema_is_refused_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    lines = _exported_run(tmp_path)
    assert lines[1]["type"] == "StateChanged" and "trigger" in lines[1]["payload"]
    _write_export(tmp_path / "good.jsonl", lines)
    assert rlvr(capsys, "events", "import", "good.jsonl", "--store", "good.db").code == 0
    # A field the readers take from the stored payload (replay failed with a KeyError)
    del lines[1]["payload"]["trigger"]
    _write_export(tmp_path / "run.jsonl", lines)
    result = rlvr(capsys, "events", "import", "run.jsonl", "--store", "events.db")
    _one_line(result, "run.jsonl:2: not an exported event (StateChanged without trigger)")
    lines[1]["payload"]["trigger"] = 7  # present, but of the wrong type
    _write_export(tmp_path / "run.jsonl", lines)
    result = rlvr(capsys, "events", "import", "run.jsonl", "--store", "events.db")
    _one_line(result, "run.jsonl:2: not an exported event (StateChanged.trigger:")
    lines[1]["type"] = "NoSuchEvent"
    _write_export(tmp_path / "run.jsonl", lines)
    result = rlvr(capsys, "events", "import", "run.jsonl", "--store", "events.db")
    _one_line(result, "run.jsonl:2: not an exported event (unknown event type")
    assert not (tmp_path / "events.db").exists()  # refused before a store was created


# Red team round 16 (log 021): a row column of the wrong type, its chain recomputed, passed the
# payload's schema check; the insert then failed inside the store it had created.
@pytest.mark.parametrize(
    ("column", "value"),
    [("recorded_at", ["2026"]), ("hash", 7), ("prev_hash", None), ("run_id", ["r"]),
     ("schema_version", "1"), ("type", 3)],
)  # fmt: skip
def test_an_import_row_column_of_the_wrong_type_is_one_line_and_no_store(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    column: str,
    value: object,
) -> None:
    monkeypatch.chdir(tmp_path)
    lines = _exported_run(tmp_path)
    lines[1][column] = value
    _write_export(tmp_path / "run.jsonl", lines)
    result = rlvr(capsys, "events", "import", "run.jsonl", "--store", "events.db")
    _one_line(result, f"run.jsonl:2: not an exported event (its {column} must be")
    assert not (tmp_path / "events.db").exists()


@pytest.mark.parametrize("seq", [True, "3", None, 30])
def test_an_import_whose_chain_is_broken_creates_no_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], seq
) -> None:
    """Red team round 12: the chain was checked after the store was opened, so a refused import
    left an empty store behind."""
    monkeypatch.chdir(tmp_path)
    lines = _exported_run(tmp_path)
    lines[1]["seq"] = seq
    _write_export(tmp_path / "run.jsonl", lines)
    result = rlvr(capsys, "events", "import", "run.jsonl", "--store", "events.db")
    # a seq not a whole number: a bad file (2); a seq missing from the chain: a broken chain (1)
    assert result.code == (1 if seq == 30 else 2) and "error:" in result.err
    assert not (tmp_path / "events.db").exists()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "run.jsonl: no events to import (an empty export)"),
        (b"\n\n", "run.jsonl: no events to import (an empty export)"),
        (DEEP_JSON.encode() + b"\n", "run.jsonl:1: not an exported event (nested too deeply)"),
        (b'{"run_id": "caf\xe9"}\n', "run.jsonl:1: not UTF-8 text"),
    ],
)
def test_an_empty_deep_or_non_utf8_import_is_one_line_and_no_store(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    content: bytes,
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run.jsonl").write_bytes(content)
    _one_line(rlvr(capsys, "events", "import", "run.jsonl"), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.jsonl"]  # no runs/events.db


def _store_with_a_run(tmp_path: Path) -> tuple[str, str]:
    from orchestrator.config import RunConfig
    from orchestrator.driver.commands import start_run
    from store.log import EventLog

    store = str(tmp_path / "store" / "events.db")
    log = EventLog(store)
    run_id, _ = start_run(log, RunConfig())  # log_path "runs": relative to where it is read
    log.close()
    return store, run_id


def test_report_writes_nothing_into_the_working_directory_but_what_it_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store, run_id = _store_with_a_run(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    result = rlvr(capsys, "report", run_id, "--store", store, "--out", "report")
    assert result.code == 0, result.err
    assert sorted(p.name for p in work.iterdir()) == ["report"]  # no runs/blobs created here


def test_an_unwritable_report_out_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store, run_id = _store_with_a_run(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("a file, not a folder")
    result = rlvr(capsys, "report", run_id, "--store", store, "--out", "afile/report")
    _one_line(result, "cannot write the report to afile/report: Not a directory", code=1)


def test_rlvr_check_on_a_file_nested_too_deeply_is_one_line_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pairs.jsonl").write_text('{"response": "1", "reference": "1"}\n' + DEEP_JSON)
    result = rlvr(capsys, "check", "--verifier", "math", "pairs.jsonl")
    _one_line(result, "pairs.jsonl:2: invalid JSON: nested too deeply")


def test_an_import_refuses_a_field_of_the_wrong_json_type(tmp_path) -> None:
    """Red team round 4, issue 28 (holdout h16, found by the lead): a MetricsRecorded whose `step`
    is the text "3" was imported as verified (lax validation), then replay and sink raised a
    TypeError comparing steps. Checked strictly, as JSON: refused naming the file, line and field."""
    import json

    import pytest

    from store.errors import StoreError
    from store.exports import export_lines, read_export
    from store.log import EventLog
    from tests.tampering import synthetic_run

    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, "r-types", 4)
    lines = list(export_lines(log, "r-types"))
    good = tmp_path / "good.jsonl"
    good.write_text("".join(lines))
    assert len(read_export(good)[0]) == 6  # the untouched export reads whole
    row = json.loads(lines[4])
    row["payload"]["step"] = str(row["payload"]["step"])
    lines[4] = json.dumps(row) + "\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(lines))
    with pytest.raises(StoreError, match=r"bad\.jsonl:5: .*MetricsRecorded\.step"):
        read_export(bad)


def test_a_config_that_is_a_fifo_is_refused_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team round 5: `rlvr run FIFO` blocked for ever (the batch-size probe read it first)."""
    import os

    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "run.toml")
    _one_line(rlvr(capsys, "run", "run.toml"), "run.toml: not a regular file")
