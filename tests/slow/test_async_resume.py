"""Asynchronous rollouts resume exactly: a cut-down chaos run with `grpo.max_staleness` k (1 and
2), whose policies change settings and roll back, SIGKILLed mid-sampling, after an update not yet
appended and while a checkpoint is stored, then resumed, ends on the uninterrupted async run's
final checkpoint, byte for byte; each step is logged once, sampled by the weights the schedule
names (`policy_version`). Its rollbacks discard the batches sampled ahead (`RolloutsDiscarded`)
and the run completes."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from store.log import EventLog
from tests.slow.runs import CHAOS, events, only_run, rlvr, state, wait_for_lease_to_expire
from tests.slow.test_resume_equals_uninterrupted import TINY

pytestmark = pytest.mark.slow


def _final_digest(store: Path, run_id: str) -> str:
    return events(store, run_id, "RunCompleted")[-1].event.final_checkpoint


@pytest.fixture(scope="module", params=[1, 2], ids=["k=1", "k=2"])
def uninterrupted(request, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], Path, str]:
    settings = [*TINY, f"grpo.max_staleness={request.param}"]
    workdir = tmp_path_factory.mktemp(f"async-k{request.param}")
    rlvr("run", str(CHAOS), *settings, cwd=workdir, timeout=900, check=True)
    store = workdir / "runs" / "events.db"
    return settings, store, only_run(store)


def test_an_async_run_logs_which_weights_sampled_each_batch_and_discards_on_rollback(
    uninterrupted,
) -> None:
    settings, store, run_id = uninterrupted
    k = int(settings[-1].rsplit("=", 1)[1])
    assert state(store, run_id).state == "completed"
    versions = {
        e.event.step: e.event.policy_version for e in events(store, run_id, "RolloutsSampled")
    }
    rollbacks = events(store, run_id, "RolledBack")
    discarded = events(store, run_id, "RolloutsDiscarded")
    assert rollbacks and len(discarded) == len(rollbacks)
    # Before the first rollback the batch of step s is the weights after step s-1-k's.
    first = min(e.event.steps[0] for e in discarded)
    assert all(versions[s] == max(s - k, 0) for s in range(first))
    # The discarded steps the run went on to were sampled again, by the weights the rollback
    # restored (a rollback on the last step discards batches of steps never run).
    for e in discarded:
        assert all(versions[s] == e.event.steps[0] for s in e.event.steps if s in versions)
        assert all(v < e.event.steps[0] for v in e.event.policy_versions)


def test_sigkill_anywhere_in_an_async_run_then_resume_ends_on_the_uninterrupted_weights(
    uninterrupted, tmp_path: Path
) -> None:
    settings, reference_store, reference_id = uninterrupted
    store = tmp_path / "runs" / "events.db"
    first = rlvr("run", str(CHAOS), *settings, cwd=tmp_path, env={"RLVR_CRASH_AT": "optimizer:4"})
    assert first.returncode == -signal.SIGKILL, first.stderr[-2000:]
    run_id = only_run(store)
    # Mid-sampling (the window ahead in flight), after an update not yet appended, and while
    # a checkpoint (with the weight versions it keeps) is stored.
    for point in ("sampling:3", "optimizer:2", "checkpoint:3"):
        wait_for_lease_to_expire(EventLog(store), run_id)
        crashed = rlvr(
            "resume", run_id, "--store", str(store), cwd=tmp_path, env={"RLVR_CRASH_AT": point}
        )
        assert crashed.returncode == -signal.SIGKILL, f"{point}: {crashed.stderr[-2000:]}"
    wait_for_lease_to_expire(EventLog(store), run_id)
    rlvr("resume", run_id, "--store", str(store), cwd=tmp_path, check=True)

    steps = [e.event.step for e in events(store, run_id, "MetricsRecorded")]
    assert steps == sorted(set(steps))  # each step once: no batch trained twice or skipped
    assert not events(store, run_id, "CatchUpDiverged")
    assert state(store, run_id).state == "completed"
    logged = [
        (e.event.step, e.event.policy_version) for e in events(store, run_id, "RolloutsSampled")
    ]
    expected = [(e.event.step, e.event.policy_version)
                for e in events(reference_store, reference_id, "RolloutsSampled")]  # fmt: skip
    assert logged == expected
    assert _final_digest(store, run_id) == _final_digest(reference_store, reference_id)
