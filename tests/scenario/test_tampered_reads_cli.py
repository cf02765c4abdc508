"""Typed reads and snapshots under tampering, typed as a person types them (the real `main`).

`why`, `why --seq` and `events --type` walk every row of what they read, the rows of other types
too: a row edited with its own hash recomputed and a deleted decision row are refused with one
line naming that seq, with or without a chain key. With a key, a forged snapshot row is refused
by `status`, `resume --from` and `branch`, naming its seq."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.runner import Driver
from store.blobs import BlobStore
from store.keyed import KEY_ENV
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.tampering import delete_row, forge_snapshot, own_hash_edit, write_key


def _finished_run(directory: Path, stages: FakeStages) -> str:
    log = EventLog(directory / "events.db")
    config = RunConfig(log_path=str(directory))
    run_id, _ = start_run(log, config)
    Driver(
        log, run_id, config, stages.registry(), run_dir=directory / run_id,
        blobs=BlobStore(directory / "b"),
    ).run()  # fmt: skip
    log.close()
    return run_id


def _built(factory: pytest.TempPathFactory, name: str, stages: FakeStages, keyed: bool):
    directory = factory.mktemp(name)
    env = {KEY_ENV: str(write_key(directory))} if keyed else {}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        run_id = _finished_run(directory, stages)
    return directory, run_id, env


@pytest.fixture(scope="module", params=[False, True], ids=["unkeyed", "keyed"])
def with_decisions(request, tmp_path_factory: pytest.TempPathFactory):
    """A run whose KL rose twice: two policy decisions (the first at seq 22)."""
    stages = FakeStages(metrics_at=lambda step: {"kl": 0.4} if step in (5, 12) else {})
    return _built(tmp_path_factory, "decisions", stages, request.param)


@pytest.fixture(scope="module")
def keyed_finished(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "finished", FakeStages(), keyed=True)


def _copy(built, name: str) -> tuple[EventLog, str]:
    directory = built[0]
    copy = directory / f"{name}.db"
    copy.unlink(missing_ok=True)
    with sqlite3.connect(directory / "events.db") as source, sqlite3.connect(copy) as target:
        source.backup(target)  # the WAL's rows too, which a file copy would miss
    return EventLog(copy), str(copy)


def _decision_seqs(log: EventLog, run_id: str) -> list[int]:
    return [r.seq for r in log.read(run_id, types=["PolicyDecided"])]


TYPED_READS = [
    ["why", "{run}"],
    ["why", "{run}", "--seq", "{later}"],
    ["events", "{run}", "--type", "PolicyDecided"],
    ["sink", "{run}", "--to", "tensorboard", "{dir}"],
]


def _refused(capsys, built, store: str, command: list[str], later: int, monkeypatch):
    _, run_id, env = built
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    args = [
        a.replace("{run}", run_id).replace("{later}", str(later)).replace("{dir}", str(built[0]))
        for a in command
    ]
    result = rlvr(capsys, *args, "--store", store)
    assert result.code == 1, (result.out[-2000:], result.err[-2000:])
    assert len(result.error_lines) == 1 and "Traceback" not in result.err, result.err[-3000:]
    return result.error_lines[0]


@pytest.mark.parametrize("command", TYPED_READS, ids=lambda c: " ".join(c[:1] + c[2:3]))
def test_a_typed_read_refuses_a_decision_edited_with_its_hash_recomputed(
    with_decisions, command, capsys, monkeypatch
) -> None:
    log, store = _copy(with_decisions, "own-hash")
    run_id = with_decisions[1]
    first, later = _decision_seqs(log, run_id)[:2]
    own_hash_edit(log, run_id, first, {"value": 0.01})
    line = _refused(capsys, with_decisions, store, command, later, monkeypatch)
    assert line.startswith(
        f"error: run {run_id}: hash chain broken at seq {first}: its hash is not the one seq "
        f"{first + 1} chains from (edited, its hash recomputed?)"
    ), line


@pytest.mark.parametrize("command", TYPED_READS, ids=lambda c: " ".join(c[:1] + c[2:3]))
def test_a_typed_read_refuses_a_deleted_decision_row(
    with_decisions, command, capsys, monkeypatch
) -> None:
    log, store = _copy(with_decisions, "deleted")
    run_id = with_decisions[1]
    first, later = _decision_seqs(log, run_id)[:2]
    delete_row(log, run_id, first)
    line = _refused(capsys, with_decisions, store, command, later, monkeypatch)
    assert line.startswith(
        f"error: run {run_id}: hash chain broken at seq {first}: seq {first} is missing "
        f"(next is {first + 1})"
    ), line


def test_a_typed_read_refuses_an_edit_in_a_row_of_another_type(
    with_decisions, capsys, monkeypatch
) -> None:
    """`events --type PolicyDecided` hands out no metrics row, but walks through them."""
    log, store = _copy(with_decisions, "skipped")
    run_id = with_decisions[1]
    first = _decision_seqs(log, run_id)[0]
    metrics = [r.seq for r in log.read(run_id, types=["MetricsRecorded"]) if r.seq < first][-1]
    own_hash_edit(log, run_id, metrics, {"metrics": {"kl": 0.01}})
    command = ["events", "{run}", "--type", "PolicyDecided"]
    line = _refused(capsys, with_decisions, store, command, first, monkeypatch)
    assert f"hash chain broken at seq {metrics}: its hash is not the one" in line, line


@pytest.mark.parametrize(
    "command",
    [
        ["status", "{run}"],
        ["resume", "{run}", "--from", "{cut}"],
        ["branch", "{run}", "--at", "{cut}"],
        ["verify", "{run}"],
    ],
    ids=["status", "resume --from", "branch --at", "verify"],
)
def test_with_a_key_a_forged_snapshot_is_refused_naming_its_seq(
    keyed_finished, command, capsys, monkeypatch
) -> None:
    log, store = _copy(keyed_finished, "forged-snapshot")
    run_id = keyed_finished[1]
    cut = log.batch_ends(run_id)[-8]  # a batch end inside the RL stage
    forge_snapshot(log, run_id, cut, {"hyperparameters": {"learning_rate": 0.05}}, "0" * 64)
    before = log.last_seq(run_id)
    args = [part.replace("{cut}", str(cut)) for part in command]
    line = _refused(capsys, keyed_finished, store, args, cut, monkeypatch)
    assert line.startswith(
        f"error: run {run_id}: snapshot at seq {cut} refused: its MAC does not match the chain key"
    ), line
    assert log.last_seq(run_id) == before and [r.run_id for r in log.runs()] == [run_id]


def test_with_a_key_a_run_deleted_whole_is_listed_and_named(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    from tests.tampering import synthetic_run

    monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    store = str(tmp_path / "events.db")
    log = EventLog(store)
    synthetic_run(log, "kept-run", 2)
    synthetic_run(log, "gone-run", 3)
    with log.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM events WHERE run_id = 'gone-run'")
    listed = rlvr(capsys, "status", "--store", store)
    assert "kept-run" in listed.out and "gone-run" in listed.out, listed.out
    assert (
        "run gone-run cannot be read: the keyed head is at seq 5 but this store has no row of "
        "the run (deleted whole" in " ".join(listed.err.split())
    ), listed.err
    one = rlvr(capsys, "status", "gone-run", "--store", store)
    assert one.code == 1 and len(one.error_lines) == 1, one.err
    assert one.error_lines[0].startswith(
        "error: run gone-run: hash chain broken at seq 1: the keyed head is at seq 5 but this "
        "store has no row of the run"
    ), one.err
