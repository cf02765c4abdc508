"""Readers that keep a position (store/cursor.py): only rows past the position are read, the
folded state equals a fresh fold, a rewind among the new rows is honoured, and keyset pages."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from store.cursor import LogCursor, StateCursor, page
from store.events import MetricsRecorded, RunRewound
from store.snapshots import fold_run
from tests.tampering import edit_payload, synthetic_run


def test_a_log_cursor_reads_only_the_rows_past_its_position(event_log, run_id):
    synthetic_run(event_log, run_id, steps=4)
    cursor = LogCursor(event_log, run_id)
    assert [r.seq for r in cursor.read_new()] == [1, 2, 3, 4, 5, 6]
    assert cursor.read_new() == [] and cursor.position == 6
    # An edit behind the position is not read again (the chain's end still holds).
    edit_payload(event_log, run_id, 3, {"step": 1, "metrics": {"kl": 5.0}})
    event_log.append(run_id, [MetricsRecorded(step=5, metrics={"kl": 0.5})], 6)
    new = cursor.read_new(types=["MetricsRecorded"])
    assert [(r.seq, LogCursor.fields(r)["metrics"]["kl"]) for r in new] == [(7, 0.5)]


def test_a_state_cursor_folds_new_rows_onto_its_state_and_honours_a_rewind(event_log, run_id):
    synthetic_run(event_log, run_id, steps=4)
    cursor = StateCursor(event_log, run_id)
    assert cursor.refresh().step == 4
    event_log.append(run_id, [MetricsRecorded(step=5, metrics={"kl": 0.5})], 6)
    assert asdict(cursor.refresh()) == asdict(fold_run(event_log, run_id))
    event_log.append(run_id, [RunRewound(to_seq=4, reason="test")], 7)
    after = cursor.refresh()
    assert after.step == 2 and asdict(after) == asdict(fold_run(event_log, run_id))


@pytest.mark.parametrize("limit", [1, 3, 100])
def test_keyset_pages_cover_the_log_once_in_order(event_log, run_id, limit):
    synthetic_run(event_log, run_id, steps=7)
    seqs, after = [], 0
    while rows := page(event_log, run_id, after, limit=limit):
        seqs += [r.seq for r in rows]
        after = rows[-1].seq
    assert seqs == list(range(1, 10))
    metrics = page(event_log, run_id, 4, types=["MetricsRecorded"], limit=2)
    assert [r.seq for r in metrics] == [5, 6]


def test_fold_many_gives_each_run_of_a_lineage_tree_what_fold_run_gives(event_log, run_id):
    from store.cursor import fold_many
    from store.lineage import Parent

    synthetic_run(event_log, run_id, steps=8)
    event_log.append(run_id, [RunRewound(to_seq=6, reason="test")], event_log.last_seq(run_id))
    event_log.append(
        run_id, [MetricsRecorded(step=9, metrics={"kl": 0.9})], event_log.last_seq(run_id)
    )
    kids = [f"{run_id}-b{i}" for i in range(4)]
    event_log.branch(run_id, kids[0], 3, [MetricsRecorded(step=20, metrics={"kl": 2.0})])
    event_log.branch(run_id, kids[1], 9, [MetricsRecorded(step=21, metrics={"kl": 2.1})])
    event_log.branch(kids[1], kids[2], 10, [MetricsRecorded(step=22, metrics={"kl": 2.2})])
    event_log.branch(kids[1], kids[3], 5, [MetricsRecorded(step=23, metrics={"kl": 2.3})])
    parents = {k: event_log.parent(k) for k in kids}
    assert all(isinstance(p, Parent) for p in parents.values())
    runs = [run_id, *kids]
    states = fold_many(event_log, runs, parents)
    for run in runs:
        assert asdict(states[run]) == asdict(fold_run(event_log, run)), run
    assert states[kids[2]].last_metrics == {"kl": 2.2}


@pytest.mark.parametrize("where", ["parent", "branch", "forged parent"])
def test_fold_many_refuses_a_lineage_tree_with_an_edited_row(event_log, run_id, where):
    """The branch pointers `fold_many` is handed replace the per-pointer reads, not the checks:
    an edited row of a parent's shared prefix or of a branch's own rows, or a parent's prefix
    rewritten with its chain recomputed, is refused as `fold_run` refuses it."""
    from store.cursor import fold_many
    from store.verification import ChainBroken
    from tests.tampering import forge_chain

    synthetic_run(event_log, run_id, steps=6)
    kids = [f"{run_id}-b{i}" for i in range(3)]
    for i, kid in enumerate(kids):
        event_log.branch(run_id, kid, 4 + i, [MetricsRecorded(step=20 + i, metrics={"kl": 2.0})])
    parents = {k: event_log.parent(k) for k in kids}
    if where == "parent":
        edit_payload(event_log, run_id, 3, {"step": 99})
    elif where == "branch":
        edit_payload(event_log, kids[1], 6, {"step": 99, "metrics": {"kl": 9.0}})
    else:
        forge_chain(
            event_log, run_id, 2, {"reason": "forged"}
        )  # fits the schema: the chain refuses it
    with pytest.raises(ChainBroken):
        fold_run(event_log, kids[1])
    with pytest.raises(ChainBroken):
        fold_many(event_log, [run_id, *kids], parents)


@pytest.mark.parametrize("keyed", [False, True], ids=["no key", "key"])
@pytest.mark.parametrize("tamper", ["own_hash_edit", "delete_row"])
def test_a_page_refuses_a_row_edited_or_deleted_after_the_chain_was_verified(
    store_url, run_id, tmp_path, monkeypatch, keyed, tamper, store_marks_lock
):
    """Red team round 12: the console's chain status had verified the run before the edit, and a
    page re-hashed only the rows it handed out, so a decision row edited with its own hash
    recomputed was served as intact, and a deleted one vanished. A page now walks its span."""
    import sqlalchemy as sa

    from store.cursor import ChainState
    from store.keyed import KEY_ENV
    from store.log import EventLog
    from store.snapshots import StoreMark
    from store.verification import ChainBroken
    from tests import tampering

    if keyed:
        monkeypatch.setenv(KEY_ENV, str(tampering.write_key(tmp_path)))
    log = EventLog(store_url)
    try:
        synthetic_run(log, run_id, steps=8)
        assert ChainState(log).status(run_id).broken_at is None  # verified before the edit
        if tamper == "own_hash_edit":
            tampering.own_hash_edit(log, run_id, 5, {"step": 3, "metrics": {"kl": 9.0}})
        else:
            tampering.delete_row(log, run_id, 5)
        for after, types in ((3, None), (4, None), (0, ["MetricsRecorded"])):
            with pytest.raises(ChainBroken, match="seq 5"):
                page(log, run_id, after, types=types, limit=2 if types is None else 10)
    finally:
        if keyed and sa.inspect(log.engine).has_table(StoreMark.__tablename__):
            with log.engine.begin() as conn:  # a shared PostgreSQL database stays unmarked
                conn.execute(sa.delete(StoreMark.__table__))
        log.close()
