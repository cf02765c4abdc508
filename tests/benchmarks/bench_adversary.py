"""What stage 3's built-in adversary adds to a run: calibration of a config's own sampled tasks
with and without the adversary's variants, wall and CPU seconds (median of `--repeats`).

The issue's budget: at most 15 s added to the quickstart on a 2-core machine. The run without the
adversary swaps its grammars for empty ones (math, QA, rubric, code), everything else as stage 3
runs it (`stages.verification`: the same sample, seed and verifier).

    .venv/bin/python tests/benchmarks/bench_adversary.py [--config configs/quickstart.toml] [--repeats 3]

Last line: one JSON object {config, tasks, candidates_with, candidates_without, with_s,
without_s, adversary_added_s, adversary_added_cpu_s, budget_s, cpus}.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from orchestrator.config import load_config  # noqa: E402
from stages.common import sample_of  # noqa: E402
from stages.services import task_suite, verifier_config  # noqa: E402
from stages.tasks import adversary, adversary_math  # noqa: E402
from stages.tasks.calibration import calibrate  # noqa: E402
from stages.verifiers.registry import build_verifier  # noqa: E402

BUDGET_S = 15.0


@contextlib.contextmanager
def without_adversary() -> Iterator[None]:
    """Every grammar empty: stage 3 as it ran before the adversary."""
    names = [(adversary_math, "wrong_variants"), (adversary_math, "right_variants"),
             (adversary, "qa_wrong"), (adversary, "qa_right"), (adversary, "rubric_wrong"),
             (adversary, "code_wrong"), (adversary, "code_right")]  # fmt: skip
    saved = [(module, name, getattr(module, name)) for module, name in names]
    for module, name in names:
        setattr(module, name, lambda *args, **kwargs: [])
    try:
        yield
    finally:
        for module, name, fn in saved:
            setattr(module, name, fn)


def timed(config, tasks, repeats: int) -> tuple[float, float, int]:
    """(median wall s, median CPU s, candidates) of stage 3's calibration, verifier built fresh."""
    walls, cpus, n = [], [], 0
    for _ in range(repeats):
        verifier = build_verifier(verifier_config(config))
        c, w = time.process_time(), time.perf_counter()
        report = calibrate(verifier, tasks, seed=config.seed)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
        n = report.n_wrong + report.n_right + report.errors
        close = getattr(verifier, "close", None)
        if close is not None:
            close()
    return statistics.median(walls), statistics.median(cpus), n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs/quickstart.toml"))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    config = load_config(args.config)
    tasks = sample_of(task_suite(config).train, config.pipeline.calibration_tasks, config.seed)
    with_s, with_cpu, n_with = timed(config, tasks, args.repeats)
    with without_adversary():
        without_s, without_cpu, n_without = timed(config, tasks, args.repeats)
    print(f"{Path(args.config).name}: {len(tasks)} tasks; stage 3 with the adversary "
          f"{with_s:.2f} s ({n_with} candidates), without {without_s:.2f} s ({n_without})")  # fmt: skip
    added = with_s - without_s
    print(json.dumps({
        "config": Path(args.config).name, "tasks": len(tasks),
        "candidates_with": n_with, "candidates_without": n_without,
        "with_s": round(with_s, 3), "without_s": round(without_s, 3),
        "adversary_added_s": round(added, 3), "adversary_added_cpu_s": round(with_cpu - without_cpu, 3),
        "budget_s": BUDGET_S, "within_budget": added <= BUDGET_S, "cpus": os.cpu_count(),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
