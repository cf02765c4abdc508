"""Data-parallel helpers on one process: the split, a world of one, drift, split-invariant sampling,
and `batch_size = "auto"` resolution."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from stages.distributed import DistributedConfig, World, apportion, offsets


def test_the_split_follows_the_weights_and_gives_every_rank_a_group() -> None:
    assert apportion(32, [1.0, 1.0]) == [16, 16]
    assert apportion(32, [3.0, 1.0]) == [24, 8]
    assert apportion(8, [100.0, 1.0]) == [7, 1]  # the slow rank still gets one
    assert sum(apportion(31, [0.7, 0.2, 0.1])) == 31
    assert offsets([24, 8]) == [0, 24]


def test_the_split_refuses_fewer_groups_than_ranks_and_bad_weights() -> None:
    with pytest.raises(ValueError, match="3 groups over 4 ranks"):
        apportion(3, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="positive"):
        apportion(8, [1.0, 0.0])


def test_a_world_of_one_passes_objects_and_sums_through() -> None:
    import mlx.core as mx

    world = World(None, DistributedConfig())
    assert (world.rank, world.size, world.leader) == (0, 1, True)
    assert world.share_json({"a": (1, 2)}, "x") == {"a": [1, 2]}
    assert world.gather_json([3], "x") == [[3]]
    assert world.from_leader(lambda: ("digest", 1), "x") == ["digest", 1]
    tree = world.sum_tree({"w": mx.array([2.0, 4.0])}, 0.5)
    assert tree["w"].tolist() == [1.0, 2.0]


def test_a_manual_split_for_another_number_of_ranks_falls_back_to_calibration() -> None:
    from stages.rl.split import Split

    assert Split.of(DistributedConfig(split=[3, 1]), size=1).weights is None
    assert Split.of(DistributedConfig(split=[2]), size=1).weights == [2.0]
    assert Split.of(DistributedConfig(split=[3, 1]), size=2).slice_of(1, list(range(8))) == (
        6, [6, 7]
    )  # fmt: skip


def test_a_rank_whose_share_of_the_throughput_moves_gets_a_new_split() -> None:
    from stages.rl.split import Split, drift

    split = Split.of(DistributedConfig(drift_tolerance=0.3, drift_patience=2), size=2)
    split.calibrated = split.weights = [2.0, 2.0]
    assert drift(split, [2.0, 0.2], 32, step=3) is None  # one step is noise
    assert drift(split, [2.0, 2.0], 32, step=4) is None  # the mean share (2 : 1.1) stays close
    assert drift(split, [1.0, 1.0], 32, step=5) is None  # all slower together: same split
    event = drift(split, [2.0, 0.6], 32, step=6)  # mean of the last two: 1.5 : 0.8
    assert event is not None and event.split == [21, 11] and event.step == 6
    assert "rank 1 ran at 0.8 groups/s (35% of the total), calibrated 2 (50%)" in event.reason
    assert split.recent == [] and split.calibrated == split.weights


def test_a_manual_split_never_drifts() -> None:
    from stages.rl.split import Split, drift

    split = Split.of(DistributedConfig(split=[1.0]), size=1)
    split.calibrated = [1.0]
    assert drift(split, [0.1], 8, step=1) is None
    assert drift(split, [0.1], 8, step=2) is None


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory):
    from stages.training.config import ModelConfig
    from stages.training.model import build_embedded_model, load_model

    folder = build_embedded_model(ModelConfig(), tmp_path_factory.mktemp("model"))
    return load_model(folder)


def test_a_completion_does_not_depend_on_which_rank_sampled_it(tiny) -> None:
    from stages.rl.sampling import keyed
    from stages.training.config import SamplingConfig
    from stages.training.sampling import sample_groups

    model, tokenizer = tiny
    settings = SamplingConfig(temperature=1.0, max_tokens=6, batch_size=5)  # batches cut groups
    prompts = ["12+3=", "45-7=", "8+80="]
    whole, _ = sample_groups(model, tokenizer, prompts, settings, 4, keyed(11, settings, 0, 4))
    tail, _ = sample_groups(model, tokenizer, prompts[1:], settings, 4, keyed(11, settings, 1, 4))
    assert [r.tokens for g in whole[1:] for r in g.rollouts_N] == [
        r.tokens for g in tail for r in g.rollouts_N
    ]
    other, _ = sample_groups(model, tokenizer, prompts, settings, 4, keyed(12, settings, 0, 4))
    assert [r.tokens for g in other for r in g.rollouts_N] != [
        r.tokens for g in whole for r in g.rollouts_N
    ]


def test_auto_batch_size_resolves_to_the_recorded_peak(tmp_path: Path) -> None:
    from orchestrator.cli.calibrate_command import auto_overrides

    config = tmp_path / "run.toml"
    config.write_text(f'log_path = "{tmp_path}"\n[grpo.sampling]\nbatch_size = "auto"\n')
    record = {
        "host": socket.gethostname(),
        "model": "embedded:2x128x384",
        "sampling_batch_size": 64,
    }
    (tmp_path / "calibration.json").write_text(json.dumps([record]))
    assert auto_overrides(config, ["seed=1"]) == ["seed=1", "grpo.sampling.batch_size=64"]
    assert auto_overrides(None, ["grpo.sampling.batch_size=32"]) == ["grpo.sampling.batch_size=32"]


def test_a_collective_past_its_deadline_reports_the_hang() -> None:
    import time

    world = World(None, DistributedConfig())
    fired: list[str] = []
    world.on_timeout = fired.append
    with world._deadline("gradients", 0.05):
        time.sleep(0.3)
    with world._deadline("gradients", 5.0):
        pass  # completed in time: the watchdog is cancelled
    assert len(fired) == 1 and "'gradients' did not complete within 0.05 s" in fired[0]


def test_a_payload_goes_in_pieces_no_larger_than_the_chunk_and_comes_back_whole() -> None:
    """The piece arithmetic, on a world of one (whose sum returns its input): a rank's bytes at
    any offset of the buffer, cut at any chunk size, come back in place; the 2-rank transport is
    tests/slow/test_follower_sync.py."""
    world = World(None, DistributedConfig())
    sizes: list[int] = []
    real_sum = world._sum
    world._sum = lambda x, what, timeout_s=-1.0: sizes.append(x.size) or real_sum(x, what)
    data = bytes(range(256)) * 3
    for chunk, at in ((7, 0), (7, 5), (256, 100), (10_000, 3)):
        world.chunk_bytes, sizes[:] = chunk, []
        total = at + len(data) + 11
        out = world._pieces(data, at, total, "test", None, keep=True)
        assert bytes(out) == bytes(at) + data + bytes(11)
        assert max(sizes) <= chunk and sum(sizes) == total
    assert world._pieces(data, 0, len(data), "test", None, keep=False) == b""


def test_a_length_past_what_32_bits_hold_travels_as_two_halves() -> None:
    world = World(None, DistributedConfig())
    for n in (0, 1, 2**31 - 1, 2**31, 3 * 2**30 + 5, 2**40 + 12345):
        assert world._lengths(n, "size", None) == [n]


# --- rank 0's driver on a world of one (a run recorded as distributed, resumed on one process) ---


def _leader(tmp_path: Path, log, stages):
    from orchestrator.config import RunConfig
    from orchestrator.driver.commands import start_run
    from orchestrator.driver.distributed import LeaderDriver
    from store.blobs import BlobStore

    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)
    driver = LeaderDriver(log, run_id, config, stages.registry(), run_dir=tmp_path / run_id,
                          blobs=BlobStore(tmp_path / "blobs"),
                          world=World(None, DistributedConfig(enabled=True)))  # fmt: skip
    return run_id, driver


def test_rank_0_shares_what_it_appended_without_reading_the_log_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows sent to the other ranks are the ones this driver appended: even when the store
    is down mid-stage, rank 0 reads nothing back (it used to re-read the log from the last seq
    the others held, from seq 1 on the first RL stage), and the run pauses with the reason."""
    from contextlib import ExitStack

    from store.log import EventLog
    from store.retry import RetryPolicy
    from tests.faults import failing_inserts, sqlite_locked
    from tests.scenario.fake_stages import FakeStages

    log = EventLog(tmp_path / "events.db", retry=RetryPolicy(3, 0.02, 0.05))
    faults = ExitStack()
    stages = FakeStages(
        on_step=lambda step: step == 13 and faults.enter_context(
            failing_inserts(log, 3, sqlite_locked)
        )
    )  # fmt: skip
    run_id, driver = _leader(tmp_path, log, stages)
    reads: list[tuple] = []
    sharing = [False]  # inside the calls that send the other ranks a stage's start or a batch

    def spied(call):
        def inside(*args, **kwargs):
            sharing[0] = True
            try:
                return call(*args, **kwargs)
            finally:
                sharing[0] = False

        return inside

    real_read = log.read
    monkeypatch.setattr(log, "read", lambda *a, **k: (
        sharing[0] and reads.append((a, k)), real_read(*a, **k))[1])  # fmt: skip
    monkeypatch.setattr(driver, "context", spied(driver.context))
    monkeypatch.setattr(driver, "_emit_shared", spied(driver._emit_shared))
    with faults:
        state = driver.run()
    assert state.state == "paused"
    paused = list(real_read(run_id, types=["RunPaused"]))
    assert paused[-1].event.reason.startswith(f"event store unavailable: append to run {run_id}")
    whole = [(a, k) for a, k in reads if not k.get("types")]
    assert whole == [], whole
