"""Event-log throughput on SQLite: appends in step-sized batches, and folding a 200k-event run.

Run: python tests/benchmarks/bench_store.py [--events 200000]
Targets (issue 2): append >= 50,000 events/s with ~1 KB payloads; fold >= 100,000 events/s.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from store.events import MetricsRecorded, RolloutsSampled, VerdictsRecorded
from store.log import EventLog
from store.projections import project


def step_batch(step: int, rng: random.Random) -> list:
    """One GRPO step of the default config (32 groups x 8 samples): a rollout and a verdict event
    per group plus the step's metrics, ~1 KB each, appended as one batch."""
    batch = []
    for group in range(32):
        samples = [
            {"prompt": f"{rng.randint(0, 99)}+{rng.randint(0, 9)}=", "completion": str(rng.randint(0, 120)),
             "text": f"{rng.randint(0, 99)}+{rng.randint(0, 9)}={rng.randint(0, 120)}",
             "reward": rng.random(), "logprob": -rng.random() * 3, "tokens": rng.randint(2, 6)}
            for _ in range(8)
        ]  # fmt: skip
        batch.append(RolloutsSampled(step=step, n_groups=32, group_size=8, samples=samples))
        batch.append(
            VerdictsRecorded(
                step=step,
                verifier={"kind": "math"},
                n_passed=rng.randint(0, 8),
                n_total=8,
                verdicts=[
                    {
                        "group": group,
                        "index": i,
                        "passed": rng.random() > 0.5,
                        "reason": "numeric match",
                    }
                    for i in range(8)
                ],
            )
        )
    metrics = {f"metric_{i:02d}": rng.random() for i in range(40)}
    batch.append(MetricsRecorded(step=step, metrics=metrics))
    return batch


def _append_all(path: Path, batches: list[list]) -> float:
    log = EventLog(path)
    start = time.perf_counter()
    seq = 0
    for batch in batches:
        seq = log.append("bench", batch, seq)[-1].seq
    seconds = time.perf_counter() - start
    log.close()
    return seconds


def _fold_all(path: Path, n: int, steps: int) -> float:
    log = EventLog(path)  # a fresh engine: the fold reads from disk, not a warm connection
    start = time.perf_counter()
    state = project(log.read("bench"))
    seconds = time.perf_counter() - start
    assert state.last_seq == n and state.step == steps
    log.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3, help="Best of N (the machine is shared).")
    args = parser.parse_args()
    rng = random.Random(0)
    batches, n, step = [], 0, 0
    while n < args.events:
        step += 1
        batches.append(step_batch(step, rng))
        n += len(batches[-1])
    sizes = [len(e.model_dump_json()) for e in batches[0]]
    with tempfile.TemporaryDirectory() as tmp:
        appends = [_append_all(Path(tmp) / f"events-{i}.db", batches) for i in range(args.repeats)]
        folds = [_fold_all(Path(tmp) / "events-0.db", n, step) for _ in range(args.repeats)]
    append_s, fold_s = min(appends), min(folds)
    figures = {
        "events": n,
        "batch_size": len(batches[0]),
        "mean_payload_bytes": round(sum(sizes) / len(sizes)),
        "repeats": args.repeats,
        "append_events_per_s": round(n / append_s),
        "fold_events_per_s": round(n / fold_s),
        "append_events_per_s_runs": [round(n / s) for s in appends],
        "fold_events_per_s_runs": [round(n / s) for s in folds],
        "append_target": 50_000,
        "fold_target": 100_000,
    }
    print(
        f"appended {n} events in step batches of {figures['batch_size']} (~{figures['mean_payload_bytes']} B "
        f"payloads): best {figures['append_events_per_s']:,}/s of {figures['append_events_per_s_runs']}"
    )
    print(
        f"folded a {n}-event run from disk: best {figures['fold_events_per_s']:,}/s of {figures['fold_events_per_s_runs']}"
    )
    print(
        f"ratio to targets: append {n / append_s / 50_000:.2f}x, fold {n / fold_s / 100_000:.2f}x"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
