"""`rlvr replay` folds the rows up to the run's newest usable snapshot without checking their
schema again (the fold that wrote the snapshot checked them; the read still walks their chain):
a step's `RolloutsSampled` row gives only its step, read from its canonical text's last key
(`store.projections.fold_checked_before`). The decisions are the same either way, and every row
the snapshot does not vouch for is still refused by its seq: one after it, one before it (its
chain recomputed, the snapshot's event hash no longer matches), and with a key a snapshot whose
MAC is wrong."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from orchestrator.audit.replay import identical, replay, replay_command
from policies.config import PolicyConfig
from store.errors import StoreError
from store.log import EventLog
from store.projections import RunState, fold_checked_before, fold_in_place
from store.snapshots import Snapshots, fold_run
from tests.tampering import forge_chain, forge_snapshot, write_key
from tests.unit.policies.test_policy_replay import RUN, _drive

SNAPSHOT_AT = 60  # a seq well inside the 30-step chaos run (~110 rows)


def _snapshotted(tmp_path: Path) -> EventLog:
    log = EventLog(tmp_path / "events.db")
    _drive(log, PolicyConfig())
    state = fold_run(log, RUN, SNAPSHOT_AT)
    Snapshots(log).save(state, next(log.read(RUN, from_seq=SNAPSHOT_AT, to_seq=SNAPSHOT_AT)).hash)
    return log


def _rollout_seqs(log: EventLog) -> list[int]:
    return [r.seq for r in log.read(RUN, types=["RolloutsSampled"])]


def _command(log: EventLog) -> str:
    buffer = io.StringIO()
    replay_command(RUN, None, [], log, Console(file=buffer, width=300))
    return buffer.getvalue()


def test_the_same_decisions_with_and_without_the_snapshot(tmp_path: Path) -> None:
    log = _snapshotted(tmp_path)
    every = replay(log.read(RUN), PolicyConfig())
    trusted = replay(log.read(RUN), PolicyConfig(), checked_to=log.last_seq(RUN))
    assert every == trusted and identical(trusted)
    assert "identical: these settings reproduce all" in _command(log)


def test_the_light_fold_gives_the_state_the_whole_fold_gives(tmp_path: Path) -> None:
    log = _snapshotted(tmp_path)
    whole, light = RunState(), RunState()
    for row in log.read(RUN):
        fold_in_place(whole, row)
        fold_checked_before(light, row)
    assert whole == light


@pytest.mark.parametrize(
    "text",
    ['{"step":"3"}', '{"step":3} ', '{"step":3.0}', '{"step":-3}', '{"step":²}', '{"x":1}', "[1]"],
)
def test_a_rollout_text_that_is_not_canonical_folds_the_whole_way(text: str) -> None:
    from store.log import StoredEvent

    row = StoredEvent(RUN, 1, "RolloutsSampled", 2, "t", "p", "h", text)
    with pytest.raises(StoreError, match="seq 1: payload does not match RolloutsSampled"):
        fold_checked_before(RunState(), row)


def test_a_forged_rollout_row_after_the_snapshot_is_refused(tmp_path: Path) -> None:
    log = _snapshotted(tmp_path)
    seq = next(s for s in _rollout_seqs(log) if s > SNAPSHOT_AT)
    forge_chain(log, RUN, seq, {"n_groups": "x"})
    with pytest.raises(StoreError, match=rf"seq {seq}: payload does not match RolloutsSampled"):
        _command(log)


def test_a_forged_rollout_row_before_the_snapshot_unties_it_and_is_refused(tmp_path: Path) -> None:
    log = _snapshotted(tmp_path)
    seq = next(s for s in _rollout_seqs(log) if s < SNAPSHOT_AT)
    forge_chain(log, RUN, seq, {"n_groups": "x"})  # every hash from there recomputed
    assert Snapshots(log).newest_usable(RUN) is None  # its event's hash is not the one it records
    with pytest.raises(StoreError, match=rf"seq {seq}: payload does not match RolloutsSampled"):
        _command(log)


def test_with_a_key_a_snapshot_whose_mac_is_wrong_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RLVR_CHAIN_KEY_FILE", str(write_key(tmp_path)))
    log = _snapshotted(tmp_path)
    forge_snapshot(log, RUN, SNAPSHOT_AT, {}, mac="0" * 64)
    with pytest.raises(StoreError, match=rf"seq {SNAPSHOT_AT}"):
        _command(EventLog(tmp_path / "events.db"))
