"""`rlvr rescore` against `rlvr check` on a real math-family run's log (issue 31).

A real run first: `rlvr run configs/math.toml` as shipped (the embedded model, the math sample's
references, every rollout logged, the default). Then, each in a child process of its own, after a
warm-up batch that pays for imports and the verifier's worker processes:
- check: the run's every logged (response, reference) pair through the math verifier as
  `rlvr check` runs it (build the verifier, one `verify_batch`, close it);
- rescore: `rescore_run`, what `rlvr rescore RUN` runs: the log streamed step by step, each
  step's blob read and decoded, its rollouts re-verified, counts kept.
Figures: `check_rollouts_per_s`, `rescore_rollouts_per_s` and their ratio (target >= 0.8), the
rescore child's peak RSS (target <= 300 MB; the verifier's worker processes are their own), and
`rollout_kb_per_step`, the mean bytes of one step's rollout blob (every rollout logged). The
math run's responses are short (`grpo.sampling.max_tokens = 8`): these are the verifier's and
the log's per-rollout costs, not a 1,000-token response's.

Run: .venv/bin/python tests/benchmarks/bench_rescore.py [--repeat 3] [--keep DIR [--reuse]]
The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from orchestrator.driver.commands import load_state
from orchestrator.rescore.rescore import logged_steps, rescore_config, rescore_run
from stages.services import run_tasks, verifier_config
from stages.tasks.references import reference_for
from stages.verifiers.registry import build_verifier
from store.blobs import BlobStore
from store.log import EventLog

what, store, run_id, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
log = EventLog(store)
state = load_state(log, run_id)
config = rescore_config(state, [])
blobs = BlobStore(Path(config.log_path) / "blobs")
rollouts = 0
if what == "check":
    tasks = {{t.task_id: t for t in run_tasks(config.data)}}
    pairs = [(text, reference_for(tasks[g["task_id"]]))
             for _, body in logged_steps(log, run_id, blobs, None)
             for g in body["samples"] for text in g["completions"]]
    warm = build_verifier(verifier_config(config))
    warm.verify_batch(pairs[:64])  # warm-up: imports
    warm.close()
    best = float("inf")
    for _ in range(repeat):  # as `rlvr check` runs: build, one batch, close
        start = time.perf_counter()
        checker = build_verifier(verifier_config(config))
        checker.verify_batch(pairs)
        checker.close()
        best = min(best, time.perf_counter() - start)
    rollouts = len(pairs)
else:
    rescore_run(log, state, config, blobs, from_seq=state.last_seq)  # warm-up: imports
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = rescore_run(log, state, config, blobs)
        best = min(best, time.perf_counter() - start)
    rollouts = result.total("rollouts")
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"rollouts": rollouts, "seconds": best, "rss_mb": rss}}))
"""


def _child(what: str, store: Path, run_id: str, repeat: int) -> dict:
    code = CHILD.format(root=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code, what, str(store), run_id, str(repeat)],
        cwd=store.parent.parent, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def _run(workdir: Path) -> tuple[Path, str]:
    env = {**os.environ, "RLVR_LOG_LEVEL": "WARNING"}
    subprocess.run(
        [sys.executable, "-m", "orchestrator", "run", str(ROOT / "configs" / "math.toml"),
         f"data.data_path={ROOT / 'configs' / 'data' / 'math_sample.jsonl'}"],
        cwd=workdir, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    from store.log import EventLog

    store = workdir / "runs" / "events.db"
    return store, EventLog(store).runs()[0].run_id


def _kb_per_step(store: Path, run_id: str) -> float:
    from store.blobs import BlobStore
    from store.log import EventLog

    blobs = BlobStore(store.parent / "blobs")
    sizes = [blobs.size(r.event.blob) for r in EventLog(store).read(run_id, types=["RolloutsSampled"])
             if r.event.blob]  # fmt: skip
    return sum(sizes) / max(len(sizes), 1) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="Keep the run in this folder.")
    parser.add_argument(
        "--reuse", action="store_true", help="With --keep: measure the run kept there before."
    )
    args = parser.parse_args()
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="bench-rescore-"))
    workdir.mkdir(parents=True, exist_ok=True)
    if args.reuse and (workdir / "runs" / "events.db").is_file():
        from store.log import EventLog

        store = workdir / "runs" / "events.db"
        run_id = EventLog(store).runs()[0].run_id
    else:
        store, run_id = _run(workdir)
    check = _child("check", store, run_id, args.repeat)
    rescore = _child("rescore", store, run_id, args.repeat)
    assert check["rollouts"] == rescore["rollouts"], (check, rescore)
    figures = {
        "rollouts": check["rollouts"],
        "check_rollouts_per_s": round(check["rollouts"] / check["seconds"], 1),
        "rescore_rollouts_per_s": round(rescore["rollouts"] / rescore["seconds"], 1),
        "rescore_rss_mb": round(rescore["rss_mb"], 1),
        "rollout_kb_per_step": round(_kb_per_step(store, run_id), 2),
    }
    figures["rescore_vs_check"] = round(
        figures["rescore_rollouts_per_s"] / figures["check_rollouts_per_s"], 3
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
