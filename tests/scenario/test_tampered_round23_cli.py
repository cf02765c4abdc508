"""Red team round 23 (log), typed as a person types the commands (the real `main`):
- a `verified_prefix` hash that is no hash the code writes (a number, upper case, 'zz', '') made
  every reader blame the intact last row ("changed since it was verified"), with a key too: it is
  ignored like a garbled seq, and the chain walked from seq 1;
- a run copied into the store by SQL under an id no command reads (a newline, `../`, terminal
  escapes), its chain recomputed, was listed by `rlvr status` as a completed run: listed
  unreadable, naming the id as invalid;
- `rlvr check` took a bare `NaN` / `Infinity` reference (not JSON) and paid it: refused by line;
- `export-model` printed its progress line before refusing, and `--at-step`'s cut note came before
  an override's refusal: one line each.
The shared cases are log23-001/003/005/007/009/011/013/015/017/029/031/033/035; the rest are
variants of each mechanism."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from store.log import EventLog
from store.verification import GENESIS_HASH, chain_hash
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built, _copy
from tests.scenario.test_tampered_round19_cli import _one_error


@pytest.fixture(scope="module", params=[False, True], ids=["unkeyed", "keyed"])
def built(request, tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "round23", FakeStages(), keyed=request.param)


def _env(monkeypatch, built) -> None:
    for name, value in built[2].items():
        monkeypatch.setenv(name, value)


@pytest.mark.parametrize(
    "value",
    ["5", "5.5", "upper(hash)", "'zz'", "''", "hash || ' '"],
    ids=["log23-001 a number", "a real", "upper case", "not hex", "empty", "a trailing space"],
)
@pytest.mark.parametrize("command", ["status", "verify", "why"])
def test_a_garbled_prefix_hash_leaves_an_intact_run_readable(
    capsys, monkeypatch, built, value: str, command: str
) -> None:
    _env(monkeypatch, built)
    log, store = _copy(built, f"prefix-{command}-{abs(hash(value))}")
    log.close()
    with sqlite3.connect(store) as db:
        db.execute(f"UPDATE verified_prefix SET hash = {value}")
    result = rlvr(capsys, command, built[1], "--store", store)
    assert result.code == 0, result.err[-2000:]
    assert "changed since it was verified" not in result.err


def _copied_under(built, name: str, new_id: str) -> str:
    """A copy of the store holding the run's rows again under `new_id`, its chain recomputed (as
    someone who writes the store by SQL can): unkeyed, it verifies."""
    log, store = _copy(built, name)
    rows = list(log.read(built[1]))
    log.close()
    prev = GENESIS_HASH
    with sqlite3.connect(store) as db:
        for r in rows:
            digest = chain_hash(
                prev, new_id, r.seq, r.type, r.schema_version, r.recorded_at, r.payload
            )
            db.execute(
                "INSERT INTO events (run_id, seq, type, schema_version, recorded_at, payload, "
                "prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (new_id, r.seq, r.type, r.schema_version, r.recorded_at, r.payload, prev, digest),
            )
            prev = digest
    return store


@pytest.mark.parametrize(
    "new_id",
    [
        "run-x\nrun-forged   completed  99  done",
        "run-\x1b[2J\x1b[31mred",
        "../../../tmp/evil",
        "r" * 300,
    ],
    ids=["log23-009 a newline", "log23-011 escapes", "log23-013 a path", "300 characters"],
)
def test_a_run_under_an_id_no_command_reads_is_listed_unreadable(
    capsys, monkeypatch, built, new_id: str
) -> None:
    if built[2]:
        pytest.skip("with a key such a run has no keyed head: listed unreadable already")
    store = _copied_under(built, f"id-{abs(hash(new_id))}", new_id)
    listed = rlvr(capsys, "status", "--json", "--store", store)
    assert listed.code == 0, listed.err[-2000:]
    import json

    rows = {row["run_id"]: row for row in json.loads(listed.out)}
    assert rows[built[1]]["state"] == "completed"  # the genuine run beside it
    assert rows[new_id]["state"] == "unreadable"
    assert "invalid run id" in rows[new_id]["error"]
    table = rlvr(capsys, "status", "--store", store)  # the list as a person reads it
    line = next(x for x in table.out.splitlines() if x.startswith(new_id[:4]) and "run-2" not in x)
    assert "unreadable" in line and "completed" not in line.split("unreadable")[-1], line


@pytest.mark.parametrize(
    ("verifier", "row"),
    [
        ("math", '{"response": "NaN", "reference": NaN}'),
        ("qa", '{"response": "inf", "reference": Infinity}'),
        ("math", '{"response": "-inf", "reference": -Infinity}'),
    ],
    ids=["log23-015 NaN", "log23-017 Infinity", "-Infinity"],
)
def test_rlvr_check_refuses_a_bare_nan_or_infinity(
    capsys, tmp_path: Path, monkeypatch, verifier: str, row: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pairs.jsonl").write_text('{"response": "1", "reference": "1"}\n' + row + "\n")
    line = _one_error(rlvr(capsys, "check", "--verifier", verifier, "pairs.jsonl"))
    assert line.startswith("error: pairs.jsonl:2: invalid JSON:") and "not a JSON number" in line


@pytest.mark.parametrize("checkpoint", ["20", "30"], ids=["log23-029", "log23-031"])
def test_export_model_refusing_says_one_line(
    capsys, monkeypatch, built, tmp_path: Path, checkpoint: str
) -> None:
    _env(monkeypatch, built)
    log, store = _copy(built, f"export-{checkpoint}")
    log.close()
    out = tmp_path / "model"
    line = _one_error(
        rlvr(
            capsys,
            "export-model",
            built[1],
            "--checkpoint",
            checkpoint,
            "--out",
            str(out),
            "--store",
            store,
        )  # fmt: skip
    )
    assert "recorded no base model" in line and not out.exists()


@pytest.mark.parametrize(
    "command",
    [
        ["branch", "{run}", "--at-step", "20", "grpo.learning_rate=0"],
        ["branch", "{run}", "--at-step", "20", "no_such_section.key=1"],
        ["resume", "{run}", "--at-step", "20", "grpo.group_size=3"],
    ],
    ids=["log23-033 branch", "branch unknown key", "log23-035 resume"],
)
def test_a_cut_by_step_refusing_its_overrides_says_one_line(
    capsys, monkeypatch, built, command: list[str]
) -> None:
    import orchestrator.cli.app as cli_app

    _env(monkeypatch, built)
    monkeypatch.setattr(cli_app, "_stages", FakeStages().registry)
    log, store = _copy(built, f"cut-{command[0]}-{abs(hash(command[-1]))}")
    seqs = len(list(log.read(built[1])))
    log.close()
    args = [a.replace("{run}", built[1]) for a in command]
    line = _one_error(rlvr(capsys, *args, "--store", store))
    assert "cutting run" not in line
    assert len(list(EventLog(store).read(built[1]))) == seqs  # nothing written
