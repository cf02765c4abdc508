"""Which row a broken chain is blamed on (`store.verification.blame_link`), by `verify` and by
every read alike: a row rewritten with its prev_hash changed and its own hash recomputed is named,
not the intact row before it; an edit behind the verified prefix is named before the end it also
broke. Run against every backend (SQLite file, PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.keyed import KEY_ENV
from store.log import EventLog
from store.verification import ChainBroken
from tests.tampering import (
    delete_and_shift,
    edit_payload,
    own_hash_edit,
    rewrite_prev,
    swap_rows,
    synthetic_run,
    transplant,
    truncate,
    write_key,
)

TAMPERS = {
    "transplant": lambda log, run_id: transplant(log, run_id, 6, 9),
    "swap": lambda log, run_id: swap_rows(log, run_id, 6),
    "junk prev_hash": lambda log, run_id: rewrite_prev(log, run_id, 6, "ab" * 32),
    "delete and shift": lambda log, run_id: delete_and_shift(log, run_id, 6),
}


def _log(store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool) -> EventLog:
    if keyed:
        monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    return EventLog(store_url)


def _every_reader_names(log: EventLog, run_id: str, seq: int) -> None:
    for read in (
        lambda: list(log.read(run_id)),
        lambda: list(log.read(run_id, types=["RunStarted"])),
        lambda: list(log.read(run_id, from_seq=seq + 1)),
        lambda: log.check_span(run_id, 3, seq + 1),
    ):
        with pytest.raises(ChainBroken, match=f"broken at seq {seq}:") as e:
            read()
        assert e.value.seq == seq
    assert log.verify(run_id).first_bad_seq == seq


@pytest.mark.parametrize("keyed", [False, True], ids=["unkeyed", "keyed"])
@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_a_row_rewritten_with_its_prev_hash_changed_is_named_not_the_row_before(
    store_url: str, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool,
    tamper: str,
) -> None:  # fmt: skip
    log = _log(store_url, tmp_path, monkeypatch, keyed)
    synthetic_run(log, run_id, 8)  # seqs 1..10
    assert len(list(log.read(run_id))) == 10
    TAMPERS[tamper](log, run_id)
    _every_reader_names(log, run_id, 6)
    log.close()


def test_the_last_row_rewritten_is_named_when_the_keyed_head_no_longer_vouches_for_it(
    store_url: str, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _log(store_url, tmp_path, monkeypatch, True)
    synthetic_run(log, run_id, 8)
    rewrite_prev(log, run_id, 10, "cd" * 32)
    assert log.verify(run_id).first_bad_seq == 10
    with pytest.raises(ChainBroken, match="broken at seq 10:"):
        list(log.read(run_id))
    log.close()


@pytest.mark.parametrize("keyed", [False, True], ids=["unkeyed", "keyed"])
def test_the_row_before_the_last_edited_with_its_hash_recomputed_is_still_named(
    store_url: str, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool
) -> None:
    log = _log(store_url, tmp_path, monkeypatch, keyed)
    synthetic_run(log, run_id, 8)
    assert len(list(log.read(run_id))) == 10
    own_hash_edit(log, run_id, 9, {"metrics": {"kl": 0.0}})
    _every_reader_names(log, run_id, 9)
    log.close()


@pytest.mark.parametrize("keyed", [False, True], ids=["unkeyed", "keyed"])
def test_an_edit_behind_the_verified_prefix_is_named_before_a_cut_tail(
    store_url: str, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool
) -> None:
    log = _log(store_url, tmp_path, monkeypatch, keyed)
    synthetic_run(log, run_id, 8)
    assert len(list(log.read(run_id))) == 10  # the verified prefix is at the end
    edit_payload(log, run_id, 4, {"step": 2, "metrics": {"kl": 0.0}})
    truncate(log, run_id, keep=9, cover_tracks=False)
    with pytest.raises(ChainBroken, match="broken at seq 4: content does not match"):
        list(log.read(run_id, from_seq=8))
    assert log.verify(run_id).first_bad_seq == 4
    log.close()


@pytest.mark.parametrize("keyed", [False, True], ids=["unkeyed", "keyed"])
@pytest.mark.parametrize("types", [None, ["MetricsRecorded"]], ids=["all", "typed"])
def test_a_row_edited_with_its_own_hash_recomputed_is_never_handed_out_before_the_refusal(
    store_url: str, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool,
    types: list[str] | None,
) -> None:  # fmt: skip
    """The edited row passes its own re-hash; only the next row's link shows it. A streaming
    reader (`rlvr events` printing as it reads) must not have printed it by then."""
    log = _log(store_url, tmp_path, monkeypatch, keyed)
    synthetic_run(log, run_id, 8)
    edited = next(r.seq for r in log.read(run_id) if r.type == "MetricsRecorded" and r.seq > 3)
    own_hash_edit(log, run_id, edited, {"metrics": {"kl": 9.0}})
    handed_out: list[int] = []
    with pytest.raises(ChainBroken, match=f"broken at seq {edited}:"):
        for row in EventLog(store_url).read(run_id, types=types):
            handed_out.append(row.seq)
    assert handed_out and edited not in handed_out and max(handed_out) < edited
    log.close()
