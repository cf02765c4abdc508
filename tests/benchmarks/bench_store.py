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
                verifier="math",
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=200_000)
    args = parser.parse_args()
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        log = EventLog(Path(tmp) / "events.db")
        batches, n = [], 0
        step = 0
        while n < args.events:
            step += 1
            batch = step_batch(step, rng)
            batches.append(batch)
            n += len(batch)
        sizes = [len(e.model_dump_json()) for e in batches[0]]
        mean_payload = sum(sizes) / len(sizes)

        start = time.perf_counter()
        seq = 0
        for batch in batches:
            seq = log.append("bench", batch, seq)[-1].seq
        append_s = time.perf_counter() - start

        log.close()
        log = EventLog(Path(tmp) / "events.db")  # fold from disk, not from a warm connection
        start = time.perf_counter()
        state = project(log.read("bench"))
        fold_s = time.perf_counter() - start
        assert state.last_seq == n and state.step == step

    figures = {
        "events": n,
        "batch_size": len(batches[0]),
        "mean_payload_bytes": round(mean_payload),
        "append_events_per_s": round(n / append_s),
        "fold_events_per_s": round(n / fold_s),
        "append_target": 50_000,
        "fold_target": 100_000,
    }
    print(
        f"appended {n} events in {append_s:.2f} s ({figures['append_events_per_s']:,}/s, "
        f"batches of {figures['batch_size']}, ~{figures['mean_payload_bytes']} B payloads)"
    )
    print(f"folded   {n} events in {fold_s:.2f} s ({figures['fold_events_per_s']:,}/s)")
    print(
        f"ratio to targets: append {n / append_s / 50_000:.2f}x, fold {n / fold_s / 100_000:.2f}x"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
