"""A branch points at its parent's prefix (store/lineage.py) instead of copying it: every reader
follows the pointer, tampering with the shared prefix is caught through the branch, and a branch's
export holds its whole history. Run against every backend (SQLite file, PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from store import lineage
from store.errors import StoreError
from store.events import MetricsRecorded, RunBranched
from store.exports import export_lines, import_file, read_export
from store.keyed import KEY_ENV
from store.log import EventLog, StoredEvent, chain_hash
from store.projections import project
from store.snapshots import Snapshots, fold_run
from store.verification import ChainBroken
from tests.tampering import edit_payload, forge_chain, synthetic_run, write_key


def _branch(log: EventLog, parent: str, child: str, at: int, steps: int = 2) -> None:
    log.branch(parent, child, at, [RunBranched(parent_run_id=parent, parent_seq=at)])
    for step in range(100, 100 + steps):
        event = MetricsRecorded(step=step, metrics={"kl": 0.5})
        log.append(child, [event], expected_seq=log.last_seq(child))


def _own_rows(log: EventLog, run_id: str) -> int:
    with log.engine.connect() as conn:
        query = sa.text("SELECT count(*) FROM events WHERE run_id = :r")
        return conn.execute(query, {"r": run_id}).scalar_one()


def test_a_branch_reads_its_parents_prefix_then_its_own_rows_without_copying_them(
    event_log: EventLog, run_id: str
) -> None:
    synthetic_run(event_log, run_id, 6)
    child = f"{run_id}-b"
    _branch(event_log, run_id, child, 5)

    rows = list(event_log.read(child))
    parent = list(event_log.read(run_id))
    assert [r.seq for r in rows] == list(range(1, 9))
    assert rows[:5] == parent[:5]  # the parent's rows themselves, under the parent's chain
    assert [r.run_id for r in rows[5:]] == [child] * 3
    assert rows[5].prev_hash == parent[4].hash  # the branch chains from the cut
    assert _own_rows(event_log, child) == 3 and len(parent) == 8
    assert event_log.verify(child).ok and event_log.verify(child).n_events == 8
    assert event_log.parent(child) == lineage.Parent(run_id, 5)
    assert [r.seq for r in event_log.read(child, from_seq=4, to_seq=6)] == [4, 5, 6]
    assert [r.event.step for r in event_log.read(child, types=["MetricsRecorded"])] == [
        1, 2, 3, 100, 101,
    ]  # fmt: skip
    assert event_log.summary(child).n_events == 8
    assert {r.run_id: r.n_events for r in event_log.runs()}[child] == 8
    state = fold_run(event_log, child)
    assert state.run_id == child and state.parent == (run_id, 5) and state.last_seq == 8
    assert state == project(event_log.read(child))
    assert event_log.batch_ends(child) == [2, 3, 4, 5, 6, 7, 8]
    assert event_log.cut_at(child, 5).seq == 5 and event_log.cut_at(child, 3).seq == 3


def test_a_branch_of_a_branch_follows_the_chain_of_pointers(
    event_log: EventLog, run_id: str
) -> None:
    synthetic_run(event_log, run_id, 6)
    child, grandchild, early = f"{run_id}-b", f"{run_id}-bb", f"{run_id}-be"
    _branch(event_log, run_id, child, 5)
    _branch(event_log, child, grandchild, 7)
    _branch(event_log, child, early, 3)  # cut inside the child's shared prefix

    rows = list(event_log.read(grandchild))
    assert [(r.seq, r.run_id) for r in rows] == [
        *[(s, run_id) for s in range(1, 6)],
        (6, child), (7, child),
        *[(s, grandchild) for s in range(8, 11)],
    ]  # fmt: skip
    assert event_log.verify(grandchild).ok and event_log.verify(early).ok
    assert [r.run_id for r in event_log.read(early)] == [run_id] * 3 + [early] * 3
    assert [s.run_id for s in event_log.segments(early)] == [run_id, early]
    assert fold_run(event_log, grandchild).parent == (child, 7)
    assert fold_run(event_log, grandchild, to_seq=4).run_id == grandchild
    assert event_log.batch_ends(grandchild)[:6] == [2, 3, 4, 5, 6, 7]


def test_an_edit_in_the_parents_prefix_is_caught_reading_the_branch(
    event_log: EventLog, run_id: str
) -> None:
    synthetic_run(event_log, run_id, 6)
    child = f"{run_id}-b"
    _branch(event_log, run_id, child, 5)
    list(event_log.read(child))  # read once: all of it verified
    edit_payload(event_log, run_id, 4, {"step": 2, "metrics": {"kl": 0.0}})

    with pytest.raises(ChainBroken, match=rf"seq 4: .*in run {run_id}'s rows"):
        list(event_log.read(child))
    report = event_log.verify(child)
    assert report.first_bad_seq == 4 and f"in run {run_id}'s rows" in report.reason


def test_a_recomputed_parent_chain_is_caught_at_the_branch_point(
    event_log: EventLog, run_id: str
) -> None:
    synthetic_run(event_log, run_id, 6)
    child = f"{run_id}-b"
    _branch(event_log, run_id, child, 5)
    list(event_log.read(child))
    # A careful forgery of the parent: its own unkeyed chain verifies again...
    forge_chain(event_log, run_id, 3, {"metrics": {"kl": 0.0}})
    assert event_log.verify(run_id).ok
    # ...but the branch's first row still names the hash the parent's row 5 had.
    with pytest.raises(
        ChainBroken,
        match=f"seq 6: its first own row does not chain from run {run_id}'s row at seq 5",
    ):
        fold_run(event_log, child)
    assert event_log.verify(child).first_bad_seq == 6


def test_a_deleted_parent_leaves_the_branch_unreadable_with_the_reason(
    event_log: EventLog, run_id: str
) -> None:
    synthetic_run(event_log, run_id, 4)
    child = f"{run_id}-b"
    _branch(event_log, run_id, child, 3)
    with event_log.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM events WHERE run_id = :r"), {"r": run_id})
    with pytest.raises(ChainBroken, match=f"run {run_id}: .* verified up to seq 6 .rows deleted"):
        list(event_log.read(child))
    with event_log.engine.begin() as conn:  # its verified-prefix record gone too
        conn.execute(sa.text("DELETE FROM verified_prefix WHERE run_id = :r"), {"r": run_id})
    with pytest.raises(ChainBroken, match=f"run {run_id} at seq 3, whose row is missing"):
        list(event_log.read(child))
    assert event_log.verify(child).first_bad_seq == 1


def test_a_branchs_export_holds_its_whole_history_and_imports_standalone(
    event_log: EventLog, run_id: str, tmp_path: Path
) -> None:
    synthetic_run(event_log, run_id, 6)
    child, grandchild = f"{run_id}-b", f"{run_id}-bb"
    _branch(event_log, run_id, child, 5)
    _branch(event_log, child, grandchild, 7)
    path = tmp_path / "branch.jsonl"
    path.write_text("".join(export_lines(event_log, grandchild)))

    rows, head, ends = read_export(path)
    history = list(event_log.read(grandchild))
    # every row of the history, as stored (the ancestors' under their ids and chain)
    assert [r.to_json() for r in rows] == [r.to_json() for r in history]
    assert head is not None and (head.run_id, head.seq) == (grandchild, 10)
    assert ends == event_log.batch_ends(grandchild)

    other = EventLog(tmp_path / "other.db")  # a store that has never seen the ancestors
    assert import_file(other, path) == 10
    imported = list(other.read(grandchild))
    assert [(r.seq, r.type, r.payload, r.recorded_at) for r in imported] == [
        (r.seq, r.type, r.payload, r.recorded_at) for r in history
    ]
    assert {r.run_id for r in imported} == {grandchild} and other.parent(grandchild) is None
    assert other.verify(grandchild).ok and [r.run_id for r in other.runs()] == [grandchild]
    assert other.batch_ends(grandchild) == ends
    assert fold_run(other, grandchild) == fold_run(event_log, grandchild)


def test_an_export_whose_ancestor_rows_are_interleaved_is_refused(
    event_log: EventLog, run_id: str, tmp_path: Path
) -> None:
    synthetic_run(event_log, run_id, 3)
    child = f"{run_id}-b"
    _branch(event_log, run_id, child, 3)
    rows = list(event_log.read(child))
    spliced = [*rows[:4], StoredEvent(**{**rows[4].to_json(), "run_id": run_id, "payload": "{}"})]
    other = EventLog(tmp_path / "other.db")
    with pytest.raises(Exception, match="interleaved"):
        other.import_rows([*spliced, rows[-1]])
    assert other.runs() == []


def test_with_a_key_a_branch_is_signed_and_its_export_imports_with_a_fresh_signed_head(
    store_url: str, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = write_key(tmp_path)
    monkeypatch.setenv(KEY_ENV, str(key))
    log = EventLog(store_url)
    synthetic_run(log, run_id, 4)
    child = f"{run_id}-b"
    _branch(log, run_id, child, 3)
    assert log.verify(child).ok
    path = tmp_path / "branch.jsonl"
    path.write_text("".join(export_lines(log, child)))
    # Another store with its own copy of the key (heads are per key file).
    copy = tmp_path / "elsewhere" / "chain.key"
    copy.parent.mkdir()
    copy.write_bytes(key.read_bytes())
    monkeypatch.setenv(KEY_ENV, str(copy))
    other = EventLog(tmp_path / "other.db")
    import_file(other, path)
    assert other.verify(child).ok and len(list(other.read(child))) == 6


def test_snapshots_of_the_shared_prefix_serve_the_branch(
    event_log: EventLog, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    synthetic_run(event_log, run_id, 6)
    snapshots = Snapshots(event_log)
    at_4 = fold_run(event_log, run_id, 4)
    snapshots.save(at_4, next(event_log.read(run_id, from_seq=4, to_seq=4)).hash)
    child = f"{run_id}-b"
    _branch(event_log, run_id, child, 5)
    start = snapshots.newest_usable(child)
    assert start is not None and start.last_seq == 4 and start.run_id == child
    assert fold_run(event_log, child) == project(event_log.read(child))

    # A fold of the branch that ends in the shared prefix keeps its snapshot with the parent.
    other = f"{run_id}-c"
    _branch(event_log, run_id, other, 3)
    monkeypatch.setattr("store.snapshots.SNAPSHOT_EVERY", 2)
    assert fold_run(event_log, other, 3).run_id == other
    saved = snapshots.newest_usable(run_id, 3)
    assert saved is not None and saved.last_seq == 3 and saved.run_id == run_id


def test_a_store_whose_branch_was_copied_by_the_previous_version_still_reads(
    event_log: EventLog, run_id: str
) -> None:
    # Before branches pointed at their parent, `rlvr branch` re-chained the parent's rows under
    # the child's id: a run like any other, with no pointer.
    synthetic_run(event_log, run_id, 4)
    child, prev, rows = f"{run_id}-old", "0" * 64, []
    for row in event_log.read(run_id, to_seq=3):
        digest = chain_hash(prev, child, row.seq, row.type, row.schema_version, row.recorded_at,
                            row.payload)  # fmt: skip
        rows.append(StoredEvent(child, row.seq, row.type, row.schema_version, row.recorded_at,
                                prev, digest, row.payload))  # fmt: skip
        prev = digest
    event_log.import_rows(rows, batch_ends=[2, 3])
    event_log.append(child, [RunBranched(parent_run_id=run_id, parent_seq=3)], expected_seq=3)

    assert event_log.parent(child) is None
    assert [r.run_id for r in event_log.read(child)] == [child] * 4
    assert event_log.verify(child).ok and fold_run(event_log, child).parent == (run_id, 3)
    assert event_log.cut_at(child, 3).seq == 3


def test_an_older_sqlite_store_gains_the_pointer_table_on_open(tmp_path: Path) -> None:
    store = tmp_path / "old.db"
    log = EventLog(store)
    synthetic_run(log, "old-run", 2)
    with log.engine.begin() as conn:  # as a store made by the previous version
        conn.execute(sa.text("DROP TABLE run_parents"))
    log.close()
    reopened = EventLog(store)
    assert len(list(reopened.read("old-run"))) == 4
    _branch(reopened, "old-run", "old-run-b", 3)
    assert reopened.verify("old-run-b").ok


def test_a_loop_of_branch_pointers_is_refused_with_the_reason(
    event_log: EventLog, run_id: str
) -> None:
    synthetic_run(event_log, run_id, 2)
    child = f"{run_id}-b"
    _branch(event_log, run_id, child, 3)
    with event_log.engine.begin() as conn:  # a hand-edited table: the parent now points back
        lineage.record(conn, run_id, lineage.Parent(child, 1))
    with pytest.raises(StoreError, match=f"run {child}: its branch pointers loop"):
        list(event_log.read(child))


def test_the_last_row_of_some_types_is_found_in_a_branch_and_in_its_parents_prefix(
    event_log: EventLog, run_id: str
) -> None:
    synthetic_run(event_log, run_id, 6)  # StateChanged at seq 2, metrics at 3..8
    child = f"{run_id}-b"
    _branch(event_log, run_id, child, 5)  # RunBranched at 6, metrics at 7, 8
    assert event_log.last_of(child, ["MetricsRecorded"]) == 8
    assert event_log.last_of(child, ["StateChanged"]) == 2  # in the parent's rows
    assert event_log.last_of(child, ["RunBranched", "StateChanged"]) == 6
    assert event_log.last_of(run_id, ["RunBranched"]) is None
