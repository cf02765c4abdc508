"""What the run page shows, as JSON-ready dicts, read from the log through the checked reads and the
one upcasting decode (`StoredEvent.fields()`):

- `run_page_data`: the stage strip with every gate (the gates `rlvr status RUN --json` gives), the
  chart series, evals, thresholds, markers and abandoned spans; with `after_seq` only what is new
  since (series points, markers, spans) and the whole stage strip, so a live page merges
  increments instead of fetching a 10,000-step run again;
- `step_data`: one step's rollout groups (prompt, completions, rewards, advantages, verdicts and
  their reasons, lengths, truncation), as much as the log holds;
- `why_data`: what `rlvr why RUN --seq N --json` gives for one event.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.audit.summary import run_summary
from orchestrator.console.run_index import step_index
from orchestrator.console.run_series import SERIES_TYPES, SeriesBuilder
from orchestrator.console.run_steps import attempts_of
from orchestrator.driver.commands import load_state
from orchestrator.driver.machine import STAGES
from orchestrator.errors import UsageError
from store.blobs import BlobStore
from store.log import EventLog
from store.projections import RunState
from store.rows import payload_mismatch


def stage_strip(state: RunState) -> list[dict[str, Any]]:
    """The seven stages in order, each with its gates (latest evaluation of each) and a status:
    passed, failed, current or pending."""
    gates = run_summary(state)["gates"]
    current = state.paused_from if state.state == "paused" else state.state
    strip = []
    for name in STAGES:
        own = [g for g in gates if g["stage"] == name]
        if any(not g["passed"] for g in own):
            status = "failed"
        elif name == current:
            status = "current"
        elif own or state.state == "completed":
            status = "passed"
        else:
            status = "pending"
        strip.append({"name": name, "status": status, "gates": own})
    return strip


def run_page_data(log: EventLog, run_id: str, after_seq: int = 0) -> dict[str, Any]:
    """The run page's data; with `after_seq` > 0 only the points, markers and spans after it."""
    state = load_state(log, run_id)
    end = state.last_seq
    index = step_index(log, run_id, through=min(after_seq, end))
    settings = state.hyperparameters if after_seq > 0 else {}
    series = SeriesBuilder(index.step_at(after_seq), settings)
    rows = [(r.seq, r.type, r.fields())
            for r in log.read(run_id, from_seq=after_seq + 1, to_seq=end, types=SERIES_TYPES)]  # fmt: skip
    index.take(rows, end)
    for seq, kind, payload in rows:
        series.take(seq, kind, payload)
    spans = [[s.first, s.last, s.rewind_seq] for s in index.spans().spans]
    return {
        "run_id": run_id,
        "after_seq": after_seq,
        "last_seq": end,
        "state": state.state,
        "step": state.step,
        "failure_reason": state.failure_reason,
        "stages": stage_strip(state),
        "series": series.points,
        "evals": series.evals,
        "baseline": series.baseline,
        "baseline_capability": dict(state.baseline_capability),
        "thresholds": series.thresholds,
        "markers": series.markers,
        "abandoned": spans,
    }


def step_data(
    log: EventLog, run_id: str, step: int, *, blobs: BlobStore | None = None
) -> dict[str, Any]:
    """Every logged attempt at `step` (a rollback or a rewind trains a step again), newest last,
    each with its groups and verdicts; `blobs`: where the rollout text is (None: the run's
    `log_path`/blobs when it exists). UsageError for a step the run never logged."""
    index = step_index(log, run_id)
    if step not in index.by_step:  # as `--at-step` refuses it (round 24, log 018)
        reached = max(index.by_step, default=0)
        raise UsageError(
            f"run {run_id} has no step {step} "
            + (f"(its last step is {reached})" if reached else "(it has not trained yet)")
        )
    if blobs is None:
        blobs = _run_blobs(log, run_id)
    spans = index.spans()
    attempts = []
    for metrics_seq in index.by_step.get(step, []):
        first = index.previous_metrics(metrics_seq) + 1
        rows = list(log.read(run_id, from_seq=first, to_seq=metrics_seq))
        attempts += attempts_of(rows, step, blobs, spans)
    return {"run_id": run_id, "step": step, "attempts": attempts}


def logged_steps(log: EventLog, run_id: str) -> list[int]:
    """The steps the run logged (each step's MetricsRecorded), in order."""
    return sorted(step_index(log, run_id).by_step)


def _run_blobs(log: EventLog, run_id: str) -> BlobStore | None:
    first = next(iter(log.read(run_id, to_seq=1)), None)
    if first is None:
        return None
    log_path = first.checked_fields().get("config", {}).get("log_path", "runs")
    if not isinstance(log_path, str):  # `["runs"]`, a recomputed chain (red team round 16)
        raise payload_mismatch(first, TypeError(f"config.log_path {log_path!r} is not text"))
    root = Path(log_path) / "blobs"
    return BlobStore(root) if root.is_dir() else None


def why_data(log: EventLog, run_id: str, seq: int) -> dict[str, Any]:
    """`rlvr why RUN --seq SEQ --json`'s explanation of one event (OrchestratorError when the
    seq is not one `why` explains)."""
    from orchestrator.audit.why import WHY_TYPES, explain

    last = log.last_seq(run_id)
    explanation = explain(log.read(run_id, types=WHY_TYPES), seq=seq, last_seq=last)
    return {**explanation.to_json(), "seq": seq}
