"""Red team round 21 (log), typed as a person types the commands (the real `main`). Side-table and
key-folder edits that ended in SQLite's decode error (with its SQL) or a bare AttributeError, each
now one `error:` line naming what was changed, or ignored where the README says it is ignored:
- a file in the keyed heads folder that is JSON but not an object (`[1]`, `null`): `rlvr status`
  listed nothing (AttributeError); it is a stray file, and the runs beside it are listed;
- a `verified_prefix` hash stored as bytes that are not UTF-8: ignored (the chain is walked from
  seq 1), as a prefix whose seq is text is;
- a branch pointer (`run_parents.parent_run_id`) stored as such bytes: refused naming run_parents;
- a batch boundary whose MAC (with a key) or first_seq (without) is such bytes, or text: a cut
  by it (`resume --from`, `branch --at`) is refused naming the boundary's seq.
The shared cases are log21-005..031 (odd); the rest are variants of each mechanism."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_tampered_reads_cli import _built, _copy
from tests.scenario.test_tampered_round19_cli import _one_error

NOT_UTF8 = "cast(x'ff' as text)"


@pytest.fixture(scope="module")
def unkeyed(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "round21", FakeStages(), keyed=False)


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory):
    return _built(tmp_path_factory, "round21k", FakeStages(), keyed=True)


def _edited(built, name: str, *statements: str) -> str:
    """A copy of the built store with `statements` ({run} is the run id) run on it by SQL."""
    log, store = _copy(built, name)
    log.close()
    with sqlite3.connect(store) as db:
        for statement in statements:
            db.execute(statement.replace("{run}", built[1]))
    return store


def _heads_dir(built) -> Path:
    return Path(built[2]["RLVR_CHAIN_KEY_FILE"] + ".heads")


@pytest.mark.parametrize(
    "text", ["[1]", "null", '"a note"', "5"], ids=["log21-005 a list", "null", "text", "a number"]
)
def test_a_heads_file_that_is_not_an_object_leaves_the_other_runs_listed(
    capsys, monkeypatch, keyed, text: str
) -> None:
    for name, value in keyed[2].items():
        monkeypatch.setenv(name, value)
    stray = _heads_dir(keyed) / "0stray-note.json"
    stray.write_text(text)
    try:
        _, store = _copy(keyed, "heads")
        result = rlvr(capsys, "status", "--store", store)
    finally:
        stray.unlink()
    assert result.code == 0 and "Traceback" not in result.err, result.err[-2000:]
    assert keyed[1] in result.out and "AttributeError" not in result.out + result.err


@pytest.mark.parametrize("reader", [["status", "{run}"], ["verify", "{run}"], ["status"]])
def test_a_verified_prefix_hash_that_is_not_utf8_is_ignored(capsys, unkeyed, reader) -> None:
    store = _edited(
        unkeyed, "prefix", f"UPDATE verified_prefix SET hash = {NOT_UTF8} WHERE run_id = '{{run}}'"
    )
    argv = [a.replace("{run}", unkeyed[1]) for a in reader]
    result = rlvr(capsys, *argv, "--store", store)
    assert result.code == 0, result.err[-2000:]
    assert "Could not decode" not in result.out + result.err


@pytest.mark.parametrize("reader", [["status", "{run}"], ["verify", "{run}"]])
def test_a_branch_pointer_that_is_not_utf8_is_refused_naming_it(capsys, unkeyed, reader) -> None:
    store = _edited(
        unkeyed, "pointer", f"INSERT INTO run_parents VALUES ('{{run}}', {NOT_UTF8}, 3)"
    )
    argv = [a.replace("{run}", unkeyed[1]) for a in reader]
    error = _one_error(rlvr(capsys, *argv, "--store", store))
    assert "run_parents" in error and "Could not decode" not in error, error


def test_the_run_list_names_a_run_whose_branch_pointer_is_not_utf8(capsys, unkeyed) -> None:
    store = _edited(
        unkeyed, "pointer-list", f"INSERT INTO run_parents VALUES ('{{run}}', {NOT_UTF8}, 3)"
    )
    result = rlvr(capsys, "status", "--store", store)
    assert "Could not decode" not in result.out + result.err and "Traceback" not in result.err
    assert unkeyed[1] in result.out + result.err, (result.out, result.err)


@pytest.mark.parametrize("value", [NOT_UTF8, "'zz'"], ids=["log21-027 not UTF-8", "text"])
@pytest.mark.parametrize("command", ["resume", "branch"])
def test_a_cut_by_a_batch_boundary_whose_mac_is_edited_is_refused_by_its_seq(
    capsys, monkeypatch, keyed, value: str, command: str
) -> None:
    for name, env_value in keyed[2].items():
        monkeypatch.setenv(name, env_value)
    seq = 31
    store = _edited(keyed, "mac", f"UPDATE batches SET mac = {value} WHERE last_seq = {seq}")
    flag = "--from" if command == "resume" else "--at"
    error = _one_error(rlvr(capsys, command, keyed[1], flag, str(seq), "--store", store))
    assert f"the batch boundary recorded at seq {seq} " in error, error


@pytest.mark.parametrize("value", [NOT_UTF8, "'zz'"], ids=["log21-029 not UTF-8", "text"])
@pytest.mark.parametrize("command", ["resume", "branch"])
def test_a_cut_by_a_garbled_batch_boundary_is_refused_without_a_key(
    capsys, unkeyed, value: str, command: str
) -> None:
    seq = 31
    store = _edited(
        unkeyed, "first", f"UPDATE batches SET first_seq = {value} WHERE last_seq = {seq}"
    )
    flag = "--from" if command == "resume" else "--at"
    error = _one_error(rlvr(capsys, command, unkeyed[1], flag, str(seq), "--store", store))
    assert f"the batch boundary recorded at seq {seq} " in error and "garbled" in error, error
