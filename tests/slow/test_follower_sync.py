"""What rank 0 sends the other ranks of `mlx.launch --backend ring -n 2`, with a tiny chunk size.

- A payload many times the chunk size goes through `share_json` and `gather_json` whole, and no
  single collective carries more than the chunk.
- A run driven by rank 0 (stand-in stages, real driver, gates and store): rank 1 starts each RL
  stage from rank 0's folded state, answers `ctx.read` / `ctx.state_at` as rank 0 does, ends
  with the state rank 0's log folds to, and holds no growing list of rows: after every step the
  rows alive in the follower process stay as few as after the first.

Run as a script (`python tests/slow/test_follower_sync.py OUT CHUNK`), this file is the job each
rank executes.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # as a script under mlx.launch

import stages.training  # noqa: E402, F401  (OpenBLAS before mlx, when run as a script)
from tests.slow.test_distributed import launch  # noqa: E402

pytestmark = pytest.mark.slow
CHUNK = 700  # bytes: every message of the run below spans several pieces


def _payloads(world, chunk: int) -> dict:
    """Share and gather objects tens of chunks long; the largest single collective seen."""
    largest = [0]
    real_sum = world._sum

    def observed(x, what, timeout_s=-1.0):  # the real collective, its size noted
        largest[0] = max(largest[0], x.size * x.itemsize)
        return real_sum(x, what, timeout_s)

    world._sum = observed
    big = {"text": "".join(chr(65 + i % 26) for i in range(40 * chunk)), "n": list(range(500))}
    shared = world.share_json(big if world.leader else None, "big")
    mine = {"rank": world.rank, "pad": "y" * (3 * chunk + 17 * world.rank)}
    gathered = world.gather_json(mine, "gather")
    expected = [{"rank": r, "pad": "y" * (3 * chunk + 17 * r)} for r in range(world.size)]
    return {"shared_ok": shared == big, "payload_bytes": len(json.dumps(big)),
            "gathered_ok": gathered == expected, "largest_collective": largest}  # fmt: skip


def job(out: Path, chunk: int) -> None:
    from orchestrator.config import RunConfig
    from orchestrator.driver.commands import start_run
    from orchestrator.driver.distributed import Follower, LeaderDriver, launched_world
    from stages.distributed import DistributedConfig
    from store.blobs import BlobStore
    from store.log import EventLog, StoredEvent
    from store.snapshots import fold_run, state_to_json
    from tests.scenario.fake_stages import FakeStages

    world = launched_world(DistributedConfig(enabled=True, collective_timeout_s=300))
    assert world is not None, "launch with 2 ranks"
    world.chunk_bytes = chunk
    report: dict = {"rank": world.rank, **_payloads(world, chunk)}
    alive: list[int] = []  # rows (StoredEvent objects) alive in this process after each step
    holder: dict = {}

    def on_step(step: int) -> None:
        gc.collect()
        alive.append(sum(isinstance(o, StoredEvent) for o in gc.get_objects()))
        if "follower" in holder:
            sizes = {
                k: len(v) for k, v in vars(holder["follower"]).items() if hasattr(v, "__len__")
            }
            report.setdefault("attribute_sizes", []).append(sizes)

    fakes = FakeStages(on_step=on_step)
    stages = fakes.registry()
    inner = stages["rlvr_optimization"]

    class Probe:
        """The RL stage: first the shared reads, then the stand-in's steps."""

        def run(self, ctx) -> None:
            rows = ctx.read(1)
            then = ctx.state_at(5)
            report["read"] = [len(rows), rows[-1].seq, rows[-1].hash, rows[0].type]
            report["state_at_5"] = state_to_json(then)
            del rows  # the stage's own copy of a read; what is counted is what the follower keeps
            inner.run(ctx)

    stages["rlvr_optimization"] = Probe()
    config = RunConfig(log_path=str(out))
    if world.leader:
        log = EventLog(out / "events.db")
        run_id, _ = start_run(log, config)
        driver = LeaderDriver(log, run_id, config, stages, run_dir=out / run_id,
                              blobs=BlobStore(out / "blobs"), world=world)  # fmt: skip
        report["final"] = driver.run().state
        report["run_id"] = run_id
        report["sent_bytes"] = world.sent_bytes
    else:
        follower = holder["follower"] = Follower(world, stages)
        report["code"] = follower.follow()
        report["state"] = state_to_json(follower.state)
        report["seq"] = follower.state.last_seq
        log = EventLog(out / "events.db")  # only the test's check reads it: the follower did not
        report["log_state"] = state_to_json(fold_run(log, follower.state.run_id, report["seq"]))
    report["alive_rows"] = alive
    (out / f"rank{world.rank}.json").write_text(json.dumps(report))


def test_rank_1_follows_a_run_from_rank_0s_state_in_small_pieces_and_keeps_no_rows(
    tmp_path: Path,
) -> None:
    me = str(Path(__file__).resolve())
    proc = launch(2, me, str(tmp_path), str(CHUNK), cwd=ROOT)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    leader, follower = (json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1))

    for rank in (leader, follower):
        assert rank["shared_ok"] and rank["gathered_ok"]
        assert rank["payload_bytes"] > 30 * CHUNK
        assert 0 < rank["largest_collective"][0] <= CHUNK
    assert leader["final"] == "completed" and follower["code"] == 0
    # The shared reads give rank 1 what rank 0's store holds.
    assert follower["read"] == leader["read"] and follower["read"][3] == "RunStarted"
    assert follower["state_at_5"] == leader["state_at_5"]
    # Its state, folded from rank 0's snapshot and the rows sent since, is the log's.
    assert follower["state"] == follower["log_state"]
    assert follower["seq"] > leader["read"][1]
    # 20 steps over two stages: no more rows alive after the last than after the first,
    # and no attribute of the follower grows with them.
    steps = follower["alive_rows"]
    assert len(steps) == 20 and max(steps) <= steps[0] + 2, steps
    sizes = follower["attribute_sizes"]
    assert sizes[-1] == sizes[0], (sizes[0], sizes[-1])


if __name__ == "__main__":
    job(Path(sys.argv[1]), int(sys.argv[2]))
