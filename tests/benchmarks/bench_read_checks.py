"""What checking the chain on every read costs, on a synthetic 10,000-step log (SQLite).

Run: python tests/benchmarks/bench_read_checks.py [--steps 10000]
Figures: a read of the whole run as rows come off the disk unchecked, the same read checked (the
verified prefix already at the end, as after the driver's own appends: every row re-hashed), the
first read of a run nothing has verified yet (an import, an old store: one walk, then the read),
and a read of one event type (what most readers ask for: every row walked and re-hashed, the
others' payloads never decoded). Ratios are
what to compare; absolute times depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa

from store.events import MetricsRecorded, RolloutsSampled, VerdictsRecorded
from store.log import EventLog


def _step(step: int) -> list:
    samples = [
        {"prompt": f"{step}+{i}=", "completion": str(step + i), "reward": 1.0} for i in range(8)
    ]
    verdicts = [{"passed": True, "reason": "equal"} for _ in range(8)]
    return [
        RolloutsSampled(step=step, n_groups=1, group_size=8, samples=samples),
        VerdictsRecorded(
            step=step, verifier={"kind": "math"}, n_passed=8, n_total=8, verdicts=verdicts
        ),
        MetricsRecorded(step=step, metrics={"kl": 0.01, "reward_mean": 1.0}),
    ]


def _best(repeats: int, action: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3, help="Best of N (the machine is shared).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = EventLog(Path(tmp) / "events.db")
        seq = 0
        for step in range(1, args.steps + 1):
            seq = log.append("bench", _step(step), seq)[-1].seq

        def unverified() -> None:
            with log.engine.begin() as conn:
                conn.execute(sa.text("DELETE FROM verified_prefix"))
            list(log.read("bench"))

        raw_s = _best(args.repeats, lambda: list(log._stream("bench", 1, None, None, 5000)))
        checked_s = _best(args.repeats, lambda: list(log.read("bench")))
        first_s = _best(args.repeats, unverified)
        one_type_s = _best(args.repeats, lambda: list(log.read("bench", types=["MetricsRecorded"])))
    figures = {
        "steps": args.steps,
        "events": seq,
        "raw_read_s": round(raw_s, 3),
        "checked_read_s": round(checked_s, 3),
        "first_read_s": round(first_s, 3),
        "one_type_read_s": round(one_type_s, 3),
        "checked_over_raw": round(checked_s / raw_s, 2),
        "first_over_raw": round(first_s / raw_s, 2),
    }
    print(f"{seq} events ({args.steps} steps); best of {args.repeats}")
    print(f"whole run, unchecked rows:          {raw_s:.3f} s")
    print(f"whole run, checked (prefix at end): {checked_s:.3f} s  ({checked_s / raw_s:.2f}x)")
    print(f"whole run, nothing verified yet:    {first_s:.3f} s  ({first_s / raw_s:.2f}x)")
    print(f"one event type, checked:            {one_type_s:.3f} s")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
