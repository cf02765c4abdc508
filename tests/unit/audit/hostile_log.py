"""A run whose prompts, completions, reasons and task ids are hostile to a page: script tags,
event-handler attributes, `javascript:` URLs, ANSI and bidi controls. Any script they managed to
run would set `window.__pwned`."""

from __future__ import annotations

from pathlib import Path

from stages.rl.logged_step import rollout_events
from store.blobs import BlobStore
from store.events import MetricsRecorded, RunStarted
from store.log import EventLog

HOSTILE = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 2">',
    '<a href="javascript:window.__pwned=3">click</a>',
    "\x1b[31mred\x1b[0m \x1b]8;;http://evil\x07link\x1b]8;;\x07",
    "\u202eevil\u202c \u2066isolate\u2069 </script><script>window.__pwned=4</script>",
]


def hostile_run(tmp_path: Path) -> tuple[EventLog, str, BlobStore]:
    """Run `hostile` with one logged step (step 1) of two groups of hostile text."""
    blobs = BlobStore(tmp_path / "blobs")
    samples = [
        {"task_id": f"{HOSTILE[g]}", "prompt": HOSTILE[g], "completions": HOSTILE[g + 1 : g + 3],
         "rewards": [1.0, 0.0], "advantages": [1.0, -1.0], "lengths": [7, 9],
         "truncated": [False, True]}
        for g in (0, 2)
    ]  # fmt: skip
    verdicts = [
        {"task_id": s["task_id"], "passed": j == 0, "status": "ok", "reason": HOSTILE[-1 - j]}
        for s in samples for j in range(2)
    ]  # fmt: skip
    rollouts, judged = rollout_events(
        blobs, step=1, attempt=0, group_size=2, verifier={"kind": "math"},
        rewards_GN=[[1.0, 0.0], [1.0, 0.0]], samples=samples, verdicts=verdicts, n_passed=2,
        n_errors=0,
    )  # fmt: skip
    log = EventLog(tmp_path / "e.db")
    config = {"log_path": str(tmp_path), "run_name": HOSTILE[0]}
    started = RunStarted(config=config, config_hash="h", hyperparameters={"learning_rate": 1e-5})
    metrics = MetricsRecorded(step=1, metrics={"reward_mean": 0.5, "kl": 0.01, "verify_rate": 0.5})
    log.append("hostile", [started, rollouts, judged, metrics], 0)
    return log, "hostile", blobs
