"""A checkpoint that cannot be written pauses the run with the reason, whatever exception the
library raises: `mx.save_safetensors` reports a full disk as a `RuntimeError`, not an `OSError`.
The RL stage's own `save` runs here (stages/rl/checkpoints.py) through the real driver, on a tiny
mlx model; the slow test fills a real tmpfs instead of simulating the error. A store that fails
the blob GC's reads past the retries (or with an error that is not transient) pauses the run too."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import load_state
from orchestrator.driver.runner import Driver
from stages.rl.checkpoints import save
from stages.rl.session import RLSession
from stages.types import StageContext
from store.blobs import BlobStore
from store.log import EventLog
from tests.faults import small_tmpfs
from tests.scenario.test_checkpoints_on_disk import _at_rl


class _Session(RLSession):
    """The RL session over the driver's context, its base model a folder of the test's."""

    base: Path = Path()

    def base_model_path(self) -> Path:
        return self.base


class SavingStage:
    """Stage 5 stand-in: sets up a trainer on a small mlx model and saves its checkpoint."""

    name = "rlvr_optimization"

    def __init__(self, base: Path, width: int) -> None:
        self.base, self.width = base, width

    def run(self, ctx: StageContext) -> None:
        import mlx.nn as nn
        from mlx.optimizers import AdamW

        from stages.training.types import TrainerState

        session = _Session(ctx)
        session.base = self.base
        model, reference = nn.Linear(self.width, self.width), nn.Linear(self.width, self.width)
        session.trainer = TrainerState(model, None, reference, AdamW(1e-3), step=3)
        save(session)
        raise AssertionError("the checkpoint was written: the test expected a failure")


def _drive(tmp_path: Path, blobs_root: Path, width: int) -> tuple[EventLog, str]:
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path))
    run_id = _at_rl(log, config)
    base = tmp_path / "base"
    base.mkdir()
    (base / "config.json").write_text("{}")
    stage = SavingStage(base, width)
    d = Driver(
        log, run_id, config, {stage.name: stage}, run_dir=tmp_path / run_id,
        blobs=BlobStore(blobs_root),
    )  # fmt: skip
    d.run()
    return log, run_id


def _paused_reasons(log: EventLog, run_id: str) -> list[str]:
    return [r.event.reason for r in log.read(run_id, types=["RunPaused"])]


def test_a_checkpoint_save_raising_runtime_error_pauses_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mlx.core as mx

    def full_disk(path: str, arrays: dict) -> None:
        # What mlx 0.32 raises when the disk fills under it.
        raise RuntimeError(f"[save_safetensors] Failed to write to file {path}")

    monkeypatch.setattr(mx, "save_safetensors", full_disk)
    log, run_id = _drive(tmp_path, tmp_path / "blobs", width=4)
    state = load_state(log, run_id)
    assert state.state == "paused" and state.paused_from == "rlvr_optimization"
    [reason] = _paused_reasons(log, run_id)
    assert "checkpoint of step 3 not saved" in reason and "Failed to write to file" in reason
    assert list((tmp_path / "blobs").glob(".tmp-*")) == []  # the temp folder went too


@pytest.fixture
def tiny_disk(tmp_path: Path):
    """A 1 MiB tmpfs. Under CI (we are root there) not getting one is a failure, not a skip."""
    with small_tmpfs(tmp_path / "disk", "1m") as mount:
        yield mount


@pytest.mark.slow
def test_a_checkpoint_that_fills_a_real_disk_pauses_the_run(
    tmp_path: Path, tiny_disk: Path
) -> None:
    # 512 x 512 float32 weights are 1 MiB each: the model alone overflows the 1 MiB disk.
    log, run_id = _drive(tmp_path, tiny_disk / "blobs", width=512)
    state = load_state(log, run_id)
    assert state.state == "paused" and state.paused_from == "rlvr_optimization"
    [reason] = _paused_reasons(log, run_id)
    assert "checkpoint of step 3 not saved" in reason
    assert list((tiny_disk / "blobs").glob(".tmp-*")) == []


class OperationalError(Exception):
    """What psycopg raises for a connection the server closed (no SQLSTATE): transient."""


def _gc_fault(monkeypatch: pytest.MonkeyPatch, failures: int, error: Exception) -> list[int]:
    """The store fails the GC's reads `failures` times (where the issue saw it: the lineage read
    outside any retry), and only inside the GC: the run's own appends and folds still work."""
    import orchestrator.driver.runner as runner
    import store.lineage as lineage

    real_gc, real_parent_of, calls = runner.collect_garbage, lineage.parent_of, [0]

    def failing_parent_of(conn, run_id):
        calls[0] += 1
        if calls[0] <= failures:
            raise error
        return real_parent_of(conn, run_id)

    def gc(*args, **kwargs):
        with monkeypatch.context() as inside:
            inside.setattr(lineage, "parent_of", failing_parent_of)
            return real_gc(*args, **kwargs)

    monkeypatch.setattr(runner, "collect_garbage", gc)
    return calls


def _gc_run(tmp_path: Path) -> tuple[EventLog, Driver]:
    from store.retry import RetryPolicy
    from tests.scenario.test_checkpoints_on_disk import _rl_only

    log = EventLog(tmp_path / "events.db", retry=RetryPolicy(3, 0.01, 0.02))
    config = RunConfig(log_path=str(tmp_path), checkpoints={"keep_last": 1})
    run_id = _at_rl(log, config)
    blobs = BlobStore(tmp_path / "blobs")
    d = Driver(log, run_id, config, _rl_only(tmp_path, 3), run_dir=tmp_path / run_id, blobs=blobs)
    return log, d


def _dropped() -> Exception:
    from sqlalchemy.exc import OperationalError as SAOperationalError

    return SAOperationalError("SELECT", {}, OperationalError("server closed the connection"))


def test_a_store_outage_that_outlasts_the_gcs_retries_pauses_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _gc_fault(monkeypatch, failures=10**6, error=_dropped())
    log, d = _gc_run(tmp_path)
    state = d.run()
    assert state.state == "paused" and state.paused_from == "rlvr_optimization"
    [reason] = _paused_reasons(log, d.run_id)
    assert reason.startswith("event store unavailable: blob GC") and "after 3 attempts" in reason
    assert "server closed the connection" in reason
    assert log.verify(d.run_id).ok


def test_a_gc_read_that_fails_once_is_retried_and_the_gc_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _gc_fault(monkeypatch, failures=1, error=_dropped())
    log, d = _gc_run(tmp_path)
    d._run_stage("rlvr_optimization")
    assert calls[0] > 1 and not _paused_reasons(log, d.run_id)
    saved = [r.event.checkpoint for r in log.read(d.run_id, types=["CheckpointSaved"])]
    assert [d.blobs.exists(c) for c in saved] == [False, False, True]  # keep_last = 1


def test_a_store_error_in_the_gc_that_is_not_transient_pauses_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlalchemy.exc import ProgrammingError

    _gc_fault(monkeypatch, 10**6, ProgrammingError("SELECT", {}, Exception("no such table")))
    log, d = _gc_run(tmp_path)
    assert d.run().state == "paused"
    [reason] = _paused_reasons(log, d.run_id)
    assert "blob GC: event store error: no such table" in reason


def test_a_store_error_that_escapes_a_read_mid_stage_pauses_the_run(tmp_path: Path) -> None:
    """A read without a retry of its own (the lineage lookups were) failing mid-step: a pause
    with the reason, not a traceback that leaves the run to its lease."""

    class ReadFails:
        name = "rlvr_optimization"

        def run(self, ctx: StageContext) -> None:
            raise _dropped()

    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path))
    run_id = _at_rl(log, config)
    d = Driver(log, run_id, config, {"rlvr_optimization": ReadFails()}, run_dir=tmp_path,
               blobs=BlobStore(tmp_path / "blobs"))  # fmt: skip
    assert d.run().state == "paused"
    [reason] = _paused_reasons(log, run_id)
    assert reason.startswith("event store unavailable: a store error mid-stage: ")
    assert "server closed the connection" in reason
