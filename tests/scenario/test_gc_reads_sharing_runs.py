"""The blob GC reads only the runs that may write to its blob store (store/blob_users.py), on
SQLite and (when RLVR_TEST_POSTGRES_URL is set) on a shared PostgreSQL database:
- a tampered run of another blob store does not stop this run's GC;
- a tampered run sharing the blob store stops it, and nothing is deleted;
- the runs read are those recorded with the blob store, those with no record (older logs) and
  the ancestors of those that are branches; a branch shares its parent's records."""

from __future__ import annotations

import uuid
from pathlib import Path

from orchestrator.config import RunConfig
from orchestrator.driver.references import ReferenceCache
from store import blob_users
from store.blobs import BlobStore
from store.events import CheckpointSaved, RunBranched
from store.log import EventLog
from tests.scenario.test_blob_gc import Saving, drive, folder, saved
from tests.scenario.test_checkpoints_on_disk import _at_rl
from tests.tampering import edit_payload, synthetic_run


def _other_run(log: EventLog, root: Path, *, tampered: bool) -> str:
    """A run whose driver wrote to the blob store under `root` (a checkpoint it names there),
    its checkpoint row edited when `tampered`."""
    run_id = _at_rl(log, RunConfig(log_path=str(root)))
    # Trees unique to the run: a run of a shared database naming the same bytes would keep them.
    tree = BlobStore(root / "blobs").put_tree(folder(root / "work", 1, salt=run_id))
    (row,) = log.append(run_id, [CheckpointSaved(step=1, checkpoint=tree)], log.last_seq(run_id))
    if tampered:
        edit_payload(log, run_id, row.seq, {"step": 1, "checkpoint": "0" * 64})
    return run_id


def _pruning_run(log: EventLog, root: Path) -> tuple[str, dict[int, str], set[str]]:
    """A run keeping its last checkpoint of three: its id, its checkpoints and the runs its last
    GC read."""
    blobs = BlobStore(root / "blobs")
    config = RunConfig(log_path=str(root), checkpoints={"keep_last": 1})
    run_id = _at_rl(log, config)
    driver = drive(log, run_id, config, blobs, Saving([1, 2, 3], root, salt=run_id))
    return run_id, saved(log, run_id), set(driver.references.runs)


def test_a_tampered_run_of_another_blob_store_does_not_stop_the_gc(
    store_url: str, tmp_path: Path
) -> None:
    log = EventLog(store_url)
    other = _other_run(log, tmp_path / "elsewhere", tampered=True)
    run_id, checkpoints, read = _pruning_run(log, tmp_path)
    blobs = BlobStore(tmp_path / "blobs")
    assert not blobs.exists(checkpoints[1]) and not blobs.exists(checkpoints[2])
    blobs.check_tree(checkpoints[3])
    assert run_id in read and other not in read


def test_a_tampered_run_sharing_the_blob_store_stops_the_gc_deleting_nothing(
    store_url: str, tmp_path: Path
) -> None:
    log = EventLog(store_url)
    sharer = _other_run(log, tmp_path, tampered=True)
    run_id, checkpoints, _ = _pruning_run(log, tmp_path)
    pruned = {
        p["step"] for r in log.read(run_id, types=["CheckpointsPruned"]) for p in r.event.pruned
    }
    assert pruned == {1, 2}  # retention pruned them in the log ...
    blobs = BlobStore(tmp_path / "blobs")
    for step in (1, 2, 3):
        blobs.check_tree(checkpoints[step])  # ... and the GC, unable to read `sharer`, deleted none
    assert sharer in blob_users.sharing(log.engine, log.retry, blobs.identity, {sharer})


def test_the_gc_reads_the_sharing_runs_and_those_without_a_record(
    store_url: str, tmp_path: Path
) -> None:
    log = EventLog(store_url)
    elsewhere = {_other_run(log, tmp_path / f"other{i}", tampered=False) for i in range(3)}
    sharer = _other_run(log, tmp_path, tampered=False)
    older = _other_run(log, tmp_path / "older", tampered=False)
    with log.engine.begin() as conn:  # a run written before runs recorded their blob store
        conn.execute(blob_users.TABLE.delete().where(blob_users.TABLE.c.run_id == older))
    run_id, _, read = _pruning_run(log, tmp_path)
    mine = {*elsewhere, sharer, older, run_id}
    assert read & mine == {run_id, sharer, older}


def test_a_branch_shares_its_parents_blob_store_and_keeps_its_checkpoints(
    store_url: str, tmp_path: Path
) -> None:
    log, blobs = EventLog(store_url), BlobStore(tmp_path / "blobs")
    config = RunConfig(log_path=str(tmp_path), checkpoints={"keep_last": 1})
    parent = _at_rl(log, config)
    drive(log, parent, config, blobs, Saving([1], tmp_path, salt=parent))
    cut = log.last_seq(parent)
    child = f"{parent}-branch"
    log.branch(parent, child, cut, [RunBranched(parent_run_id=parent, parent_seq=cut)])
    other = BlobStore(tmp_path / "elsewhere" / "blobs")
    assert child not in ReferenceCache().refresh(log, other.identity)  # its parent's store only
    driver = drive(log, parent, config, blobs, Saving([2, 3], tmp_path, salt=parent))
    assert child in driver.references.runs
    checkpoints = saved(log, parent)
    blobs.check_tree(checkpoints[1])  # the branch names it
    assert not blobs.exists(checkpoints[2])


def test_a_branch_driven_into_another_blob_store_brings_its_parent_into_that_gc(
    store_url: str, tmp_path: Path
) -> None:
    log = EventLog(store_url)
    parent = _other_run(log, tmp_path / "first", tampered=False)
    cut = log.last_seq(parent)
    child = f"{parent}-branch"
    log.branch(parent, child, cut, [RunBranched(parent_run_id=parent, parent_seq=cut)])
    blobs = BlobStore(tmp_path / "blobs")
    blob_users.record(
        log.engine, log.retry, child, blobs.identity
    )  # the branch's driver, in another blob store
    runs = ReferenceCache().refresh(log, blobs.identity)
    assert {parent, child} <= set(runs)  # the branch's history names its parent's checkpoint


def test_a_tampered_run_no_driver_ever_ran_does_not_stop_the_gc(
    store_url: str, tmp_path: Path
) -> None:
    """A unit test's deliberately tampered run in a shared database: written by `append`, never
    driven, so it names no blob store."""
    log = EventLog(store_url)
    tampered = f"tampered-{uuid.uuid4().hex[:12]}"
    synthetic_run(log, tampered, 2)
    edit_payload(log, tampered, 3, {"step": 1, "metrics": {"kl": 9.0}})
    run_id, checkpoints, read = _pruning_run(log, tmp_path)
    assert not BlobStore(tmp_path / "blobs").exists(checkpoints[1])
    assert tampered not in read
