"""Retention and the disk budget on a real (cut-down) quickstart run, driven through the CLI:

1. `rlvr run` with `checkpoints.keep_last = 2` and a tiny `checkpoints.max_bytes`: the run pauses
   at its first checkpoint with the reason;
2. `rlvr resume RUN checkpoints.max_bytes=...` continues (the override is an event); a learning-rate
   fault makes KL run high so the KL policy rolls back to a checkpoint older than the last two,
   which retention kept for its weights but not its optimizer state (`keep_optimizer_last`, 2 by
   default): the rollback restores it with a fresh AdamW state and says so; the driver is stopped
   (SIGTERM) once a few checkpoints are saved;
3. the newest checkpoint's weights blob is corrupted, and `rlvr resume RUN` falls back to the newest
   intact checkpoint, says so in an event, and completes;
4. the blob store ends with the retained checkpoints only (the optimizer state of the newest two
   only), and no temp files.
"""

from __future__ import annotations

import signal
import time

import pytest

from store.blobs import BlobStore
from store.log import EventLog
from tests.slow.runs import QUICKSTART, SHORT, events, only_run, rlvr, start, state, wait_until

pytestmark = pytest.mark.slow

# Every step saves a checkpoint, so that two steps later a rollback target is no longer among the
# last two; the LR fault at step 4 drives KL (judged per step) over its limit for 3 steps.
CONFIG = """
[checkpoints]
keep_last = 2
max_bytes = 1000

[policies.kl]
window = 1
rollback_after_steps = 3

[[chaos.faults]]
kind = "learning_rate"
step = 4
value = 0.02

# The fault wrecks the model on purpose (every reward 0 for a few steps): reward health would
# pause the run on it before the KL rollback this test is about.
[policies.reward_health]
enabled = false
"""
CUT = [
    *[o for o in SHORT if not o.startswith(("sft.steps", "pipeline.rl_steps", "pipeline.round"))],
    "sft.steps=150",
    "pipeline.rl_steps=10",
    "pipeline.round_steps=2",
    "save_every=1",
    "eval_every=2",
]


@pytest.fixture(scope="module")
def retained_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    workdir = tmp_path_factory.mktemp("retention")
    config = workdir / "retention.toml"
    config.write_text(QUICKSTART.read_text() + CONFIG)
    started = time.monotonic()
    first = rlvr("run", str(config), *CUT, cwd=workdir, timeout=900)
    store = workdir / "runs" / "events.db"
    assert store.exists(), first.stderr[-4000:]
    run_id = only_run(store)
    out: dict = {"store": store, "run_id": run_id, "first": first, "workdir": workdir}
    out["paused_after_run"] = state(store, run_id)

    # Resume with room; stop it once some checkpoints (and the KL trouble) are behind it.
    driver = start("resume", run_id, "checkpoints.max_bytes=1000000000", cwd=workdir)
    wait_until(
        lambda: driver.poll() is not None or len(events(store, run_id, "CheckpointSaved")) >= 8,
        timeout=600,
        what="eight checkpoints",
    )
    driver.send_signal(signal.SIGTERM)
    out["second"] = driver.communicate(timeout=300)
    out["paused_after_resume"] = state(store, run_id)

    # Corrupt the newest checkpoint's weights, then resume to the end.
    blobs = BlobStore(workdir / "runs" / "blobs")
    latest = out["paused_after_resume"].latest_checkpoint
    out["corrupted"] = latest
    if latest is not None:
        weights = blobs._path(blobs.manifest(latest.digest)["model.safetensors"])
        weights.chmod(0o644)
        weights.write_bytes(b"not the weights any more")
    out["third"] = rlvr("resume", run_id, cwd=workdir, timeout=900)
    out["seconds"] = time.monotonic() - started
    print(f"retention test: three invocations in {out['seconds']:.0f} s")
    return out


def test_the_run_pauses_when_its_first_checkpoint_would_exceed_the_budget(retained_run) -> None:
    paused = retained_run["paused_after_run"]
    first = retained_run["first"]
    assert paused.state == "paused", first.stderr[-3000:]
    assert "Traceback" not in first.stderr
    reason = events(retained_run["store"], retained_run["run_id"], "RunPaused")[0].event.reason
    assert "the step 1 checkpoint" in reason and "over checkpoints.max_bytes = 1,000" in reason
    assert f"rlvr resume {retained_run['run_id']} checkpoints.max_bytes=N" in reason
    assert paused.latest_checkpoint is None  # refused, not written


def test_resume_records_the_override_and_continues(retained_run) -> None:
    store, run_id = retained_run["store"], retained_run["run_id"]
    overridden = events(store, run_id, "SettingsOverridden")
    assert [e.event.overrides for e in overridden] == [["checkpoints.max_bytes=1000000000"]]
    assert retained_run["paused_after_resume"].state == "paused", retained_run["second"][1][-3000:]
    assert len(retained_run["paused_after_resume"].checkpoints) >= 2


def test_resume_refuses_a_setting_that_changes_what_the_run_computes(retained_run) -> None:
    refused = rlvr("resume", retained_run["run_id"], "grpo.learning_rate=0.1",
                   cwd=retained_run["workdir"], timeout=120)  # fmt: skip
    assert refused.returncode == 2, refused.stderr
    assert "resume cannot change 'grpo.learning_rate'" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_kl_rollback_reaches_a_checkpoint_older_than_the_last_two(retained_run) -> None:
    store, run_id = retained_run["store"], retained_run["run_id"]
    rows = events(store, run_id, "CheckpointSaved", "CheckpointsPruned", "RolledBack")
    rolled = [r for r in rows if r.type == "RolledBack"]
    assert rolled, "the LR fault did not lead to a KL rollback"
    back = rolled[0]
    saved_before = [
        r.event.checkpoint for r in rows if r.type == "CheckpointSaved" and r.seq < back.seq
    ]
    assert back.event.checkpoint not in saved_before[-2:], "the target was among the last two"
    pruned_before = {
        p["checkpoint"] for r in rows if r.type == "CheckpointsPruned" and r.seq < back.seq
        for p in r.event.pruned
    }  # fmt: skip
    assert pruned_before, "nothing was pruned before the rollback"
    assert back.event.checkpoint not in pruned_before
    # Retained for its weights only: restored with a fresh AdamW state, said in the event.
    dropped_before = {
        p["checkpoint"] for r in rows if r.type == "CheckpointsPruned" and r.seq < back.seq
        for p in r.event.optimizer_dropped
    }  # fmt: skip
    assert back.event.checkpoint in dropped_before
    assert back.event.fresh_optimizer and "fresh AdamW state" in back.event.reason


def test_a_corrupt_checkpoint_falls_back_to_the_newest_intact_one(retained_run) -> None:
    store, run_id = retained_run["store"], retained_run["run_id"]
    third = retained_run["third"]
    assert "Traceback" not in third.stderr
    fell = events(store, run_id, "CheckpointFellBack")
    assert len(fell) == 1, third.stderr[-3000:]
    corrupted = retained_run["corrupted"]
    assert [s["checkpoint"] for s in fell[0].event.skipped] == [corrupted.digest]
    assert "corrupt" in fell[0].event.skipped[0]["error"]
    assert fell[0].event.step < corrupted.step
    assert state(store, run_id).state == "completed", third.stderr[-3000:]


def test_only_the_retained_checkpoints_are_left_on_disk(retained_run) -> None:
    store, run_id = retained_run["store"], retained_run["run_id"]
    final = state(store, run_id)
    blobs = BlobStore(retained_run["workdir"] / "runs" / "blobs")
    saved = {r.event.checkpoint for r in events(store, run_id, "CheckpointSaved")}
    kept = {c.digest for c in final.checkpoints}
    assert kept and len(kept) < len(saved)
    assert {d for d in saved if blobs.exists(d)} == kept
    with_optimizer = {c.digest for c in final.checkpoints if c.optimizer}
    restored_whole = {  # a resume cut after such a rollback replays it: its state stays
        r.event.checkpoint for r in events(store, run_id, "RolledBack")
        if not r.event.fresh_optimizer
    }  # fmt: skip
    assert with_optimizer == {c.digest for c in final.checkpoints[-2:]} | (
        restored_whole & {c.digest for c in final.checkpoints}
    )
    for ref in final.checkpoints:
        if ref.digest == retained_run["corrupted"].digest:
            continue
        files = blobs.manifest(ref.digest)
        for name, digest in files.items():
            if name == "optimizer.safetensors" and ref.digest not in with_optimizer:
                assert not blobs.exists(digest), f"step {ref.step}'s optimizer state stayed"
            else:
                blobs.path(digest)  # present and intact
    assert list(blobs.root.glob(".tmp-*")) == []
    assert EventLog(store).verify(run_id).ok


def test_the_base_model_is_stored_once(retained_run) -> None:
    runs = retained_run["workdir"] / "runs"
    blobs = BlobStore(runs / "blobs")
    base = state(retained_run["store"], retained_run["run_id"]).baseline_checkpoint
    copy = runs / retained_run["run_id"] / "models" / base[:16]
    for rel, digest in blobs.manifest(base).items():
        assert (copy / rel).samefile(blobs._path(digest)), rel


@pytest.fixture(scope="module")
def cut_and_resumed(retained_run) -> dict:
    """5. (after the tests above) `rlvr resume RUN --from SEQ` at the pruning that followed the
    run's third checkpoint: later prunings (now abandoned) deleted the optimizer state or the
    whole of every checkpoint before the cut, so the resume restores none of them; the
    checkpoints saved after the cut are abandoned, and those the replay does not save again are
    pruned."""
    store, run_id = retained_run["store"], retained_run["run_id"]
    saved = events(store, run_id, "CheckpointSaved")
    third = saved[2]
    cut = next(r.seq for r in events(store, run_id, "CheckpointsPruned") if r.seq > third.seq)
    last = EventLog(store).last_seq(run_id)
    result = rlvr("resume", run_id, "--from", str(cut), cwd=retained_run["workdir"], timeout=900)
    return {"cut": cut, "before": last, "saved": saved, "result": result}


def test_a_resume_from_an_old_cut_replays_exactly_and_prunes_what_it_abandoned(
    retained_run, cut_and_resumed
) -> None:
    store, run_id = retained_run["store"], retained_run["run_id"]
    result = cut_and_resumed["result"]
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-3000:]
    final = state(store, run_id)
    assert final.state == "completed", result.stderr[-3000:]
    after = [r for r in events(store, run_id) if r.seq > cut_and_resumed["before"]]
    assert not [r for r in after if r.type == "CatchUpDiverged"]
    fell = [r.event for r in after if r.type == "CheckpointFellBack"]
    assert fell and fell[0].skipped, "a checkpoint before the cut was restored whole"
    # The checkpoints saved after the cut are pruned at the first checkpoint after it, each with
    # why (but one the replay has just saved again); a later step the replay saves again is
    # written anew. Whatever is not retained at the end is gone from disk.
    old = {r.event.checkpoint for r in cut_and_resumed["saved"] if r.seq > cut_and_resumed["cut"]}
    abandoned = [
        p["checkpoint"] for r in after if r.type == "CheckpointsPruned" for p in r.event.pruned
        if "abandoned by a rewind" in p.get("why", "")
    ]  # fmt: skip
    assert abandoned and set(abandoned) <= old
    print(f"resume --from {cut_and_resumed['cut']}: restored step {fell[0].step}, passed over "
          f"{[(s['step'], s['error'][:60]) for s in fell[0].skipped]}; {len(abandoned)} of "
          f"{len(old)} abandoned checkpoints pruned")  # fmt: skip
    blobs = BlobStore(retained_run["workdir"] / "runs" / "blobs")
    kept = {c.digest for c in final.checkpoints}
    for digest in old - kept:
        assert not blobs.exists(digest)
    assert EventLog(store).verify(run_id).ok
