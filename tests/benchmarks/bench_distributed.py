"""Data-parallel GRPO steps on this machine: 1 rank vs 2 ranks (`mlx.launch --backend ring -n 2`),
and the split the calibration picks when rank 1 is slowed down 3x (`distributed.throttle`).

Each job builds the embedded model and runs a few GRPO steps of the quickstart shape (32 prompts x
8 completions) on fixed rewards; the figure is the median step time after a warm-up step. On a
2-core machine two ranks share the cores, so expect little or no speed-up here: the point is the
mechanics and the split.

The start of a long run (issue 19): a synthetic run of `--start-steps` steps (bench_long_run's
builder: real driver and events, left mid-RL) is resumed on 2 ranks as far as rank 0's first RL
stage message; figures: the bytes rank 0 sends the follower at that start, the bytes the whole log
would take in that encoding (what the start sent before), and the follower's RSS before and after.
Last line: one JSON object.

    .venv/bin/python tests/benchmarks/bench_distributed.py [--steps 4] [--start-steps 2000]
    .venv/bin/python tests/benchmarks/bench_distributed.py --start-only [--start-steps 10000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import stages.training  # noqa: E402, F401  (OpenBLAS before mlx)
from tests.slow.runs import QUICKSTART  # noqa: E402
from tests.slow.test_distributed import LAUNCH, free_ports  # noqa: E402

SLOW_RANK, SLOWDOWN = "1", 3.0


def job(steps: int, overrides: list[str]) -> None:
    """Every rank: the embedded model, `steps` GRPO steps; rank 0 prints one JSON line."""
    import numpy as np

    from orchestrator.config import load_config
    from orchestrator.driver.distributed import launched_world
    from stages.distributed import World
    from stages.rl.logged_step import step_events
    from stages.rl.session import session_of
    from stages.rl.types import Logged
    from stages.services import RunServices
    from stages.training.grpo import new_trainer_state
    from stages.training.model import build_embedded_model, load_model, make_trainable
    from stages.types import StageContext
    from store.blobs import BlobStore
    from store.projections import RunState

    # distributed.enabled: one rank samples as the ranks of a distributed run do.
    config = load_config(QUICKSTART, [*overrides, "distributed.enabled=true"])
    world = launched_world(config.distributed) or World(None, config.distributed)
    folder = Path(f"/tmp/rlvr-bench-distributed-{world.size}-{world.rank}")
    build_embedded_model(config.model, folder)
    model, tokenizer = load_model(folder)
    make_trainable(model, config.model, seed=config.seed)
    services = RunServices.for_run(config, folder, BlobStore(folder / "blobs"), world)
    ctx = StageContext(
        run_id="bench", config=config, run_dir=folder, blobs=services.blobs,
        emit=lambda events: [], state=RunState, services=services,
    )  # fmt: skip
    session = session_of(ctx)
    session.trainer = new_trainer_state(model, tokenizer, session.grpo_config())
    tasks, settings = services.tasks.train, session.settings()
    shape = (config.grpo.groups_per_batch, config.grpo.group_size)
    rng = np.random.default_rng(0)
    times, calibrations = [], []
    for _ in range(steps + 1):
        rewards = rng.integers(0, 2, size=shape).astype(float).tolist()
        events = step_events(session, tasks, 0, settings, replay=Logged(rewards))
        times.append(
            next(e for e in events if e.type_name() == "MetricsRecorded").metrics["step_s"]
        )
        calibrations += [
            e for e in [*events, *session.split.pending]
            if e.type_name() == "ThroughputCalibrated"
        ]  # fmt: skip
        session.split.pending = []
    if world.leader:
        # A world of one has nothing to split: it measures and logs no split.
        split = calibrations[0].split if calibrations else [config.grpo.groups_per_batch]
        per_rank = calibrations[0].per_rank if calibrations else []
        print(json.dumps({"ranks": world.size, "step_s": statistics.median(times[1:]),
                          "split": split, "per_rank": per_rank}))  # fmt: skip


def start_job(url: str, run_id: str) -> None:
    """Every rank: rank 0 resumes the run as far as sending its first RL stage; rank 1 follows
    it, runs that stage (nothing to do here) and reports its RSS; rank 0 reports the bytes."""
    import dataclasses
    import resource

    from orchestrator.driver.commands import load_state
    from orchestrator.driver.distributed import Follower, LeaderDriver, launched_world
    from orchestrator.driver.lifecycle import config_of
    from store.blobs import BlobStore
    from store.log import EventLog

    class Nothing:
        def run(self, ctx) -> None:
            assert ctx.state().last_seq > 0  # it started from rank 0's state

    stages = {"rlvr_optimization": Nothing()}
    world = launched_world()
    assert world is not None, "launch with 2 ranks"

    def rss_mb() -> float:  # peak so far
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    if not world.leader:
        before = rss_mb()
        follower = Follower(world, stages)
        code = follower.follow()
        print(json.dumps({"rank": 1, "code": code, "rss_before_mb": before,
                          "rss_mb": rss_mb(), "seq": follower.state.last_seq}))  # fmt: skip
        return
    log = EventLog(url)
    state = load_state(log, run_id)
    config = config_of(state)
    root = Path(config.log_path)
    driver = LeaderDriver(log, run_id, config, stages, run_dir=root / run_id,
                          blobs=BlobStore(root / "blobs"), state=state, world=world)  # fmt: skip
    driver.stage = "rlvr_optimization"
    driver.context()  # the stage message: what the follower starts from
    start_bytes = world.sent_bytes
    world.share_json({"kind": "exit"}, "exit")
    # What the start used to send: every row, in the same encoding.
    whole = sum(len(json.dumps(dataclasses.asdict(r), separators=(",", ":"))) + 1
                for r in log.read(run_id))  # fmt: skip
    print(json.dumps({"rank": 0, "start_bytes": start_bytes, "whole_log_bytes": whole,
                      "events": state.last_seq}))  # fmt: skip


def start_figures(steps: int) -> dict:
    """Build a run of `steps` steps left mid-RL, then the 2-rank start (see start_job)."""
    import tempfile

    from tests.benchmarks.bench_long_run import build

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'store.db'}"
        run_id = build(url, Path(tmp), steps, stop_at=steps - 1)
        me = str(Path(__file__).resolve())
        command = [str(LAUNCH), "--backend", "ring", "-n", "2", "--starting-port",
                   str(free_ports(2)), "--", sys.executable, me, "--start-job", url, run_id]  # fmt: skip
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    lines = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
    if done.returncode != 0 or len(lines) != 2:
        raise SystemExit(f"start job failed ({done.returncode}):\n{done.stderr[-3000:]}")
    leader, follower = sorted(lines, key=lambda x: x["rank"])
    if follower["code"] != 0 or follower["seq"] != leader["events"]:
        raise SystemExit(f"the follower did not start from rank 0's state: {follower}")
    figures = {
        "start_steps": steps, "start_events": leader["events"],
        "start_bytes_sent": leader["start_bytes"], "whole_log_bytes": leader["whole_log_bytes"],
        "follower_rss_before_mb": round(follower["rss_before_mb"], 1),
        "follower_rss_mb": round(follower["rss_mb"], 1),
    }  # fmt: skip
    print(f"start of a {steps}-step run ({leader['events']} events): rank 0 sent the follower "
          f"{leader['start_bytes'] / 1e3:.1f} kB (the whole log, as sent before: "
          f"{leader['whole_log_bytes'] / 1e6:.1f} MB, "
          f"{leader['whole_log_bytes'] / leader['start_bytes']:.0f}x); follower RSS "
          f"{figures['follower_rss_before_mb']} MB before, {figures['follower_rss_mb']} MB after")  # fmt: skip
    return figures


def _run(ranks: int, steps: int, overrides: list[str]) -> dict:
    me = str(Path(__file__).resolve())
    command = [sys.executable, me, "--job", "--steps", str(steps), *overrides]
    if ranks > 1:
        command = [str(LAUNCH), "--backend", "ring", "-n", str(ranks), "--starting-port",
                   str(free_ports(ranks)), "--", *command]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"job failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--job", action="store_true", help="(internal) run as one rank")
    parser.add_argument("--start-steps", type=int, default=2000)
    parser.add_argument("--start-only", action="store_true", help="only the start of a long run")
    parser.add_argument("--start-job", nargs=2, help=argparse.SUPPRESS)
    args, overrides = parser.parse_known_args()
    if args.job:
        job(args.steps, overrides)
        return
    if args.start_job:
        start_job(*args.start_job)
        return
    from orchestrator.logging import configure

    configure(level="WARNING")
    start = start_figures(args.start_steps)
    if args.start_only:
        print(json.dumps(start))
        return
    from stages.distributed import apportion

    one = _run(1, args.steps, [])
    two = _run(2, args.steps, [])
    slowed = _run(2, args.steps, [f'distributed.throttle={{"{SLOW_RANK}" = {SLOWDOWN}}}'])
    rates = [r["groups_per_s"] for r in slowed["per_rank"]]
    expected = apportion(sum(slowed["split"]), rates)
    print(f"1 rank: {one['step_s']:.3f} s/step; 2 ranks: {two['step_s']:.3f} s/step "
          f"(even machine split {two['split']})")  # fmt: skip
    print(f"rank {SLOW_RANK} slowed {SLOWDOWN}x: measured groups/s {[round(r, 2) for r in rates]} "
          f"-> split {slowed['split']} (proportional: {expected})")  # fmt: skip
    print(json.dumps({
        "step_s_1rank": round(one["step_s"], 4), "step_s_2rank": round(two["step_s"], 4),
        "step_s_2rank_slowed": round(slowed["step_s"], 4), "split_2rank": two["split"],
        "split_when_slowed": slowed["split"], "groups_per_s_when_slowed": rates,
        "split_follows_throughput": slowed["split"] == expected,
        "groups_per_batch": sum(slowed["split"]), **start,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
