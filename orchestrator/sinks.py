"""Optional metric sinks: TensorBoard event files and Weights & Biases.

Both are fed by replaying `MetricsRecorded` / `EvalRecorded` from the event log, so they are views
that can be rebuilt at any time, never the source of truth. Spans abandoned by a rewind are left
out: a sink shows the history the run kept. A sink whose package is missing is skipped with one
warning line.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from orchestrator.logging import get_logger, redact
from orchestrator.why import abandoned_by, abandoned_spans, entries
from store.log import StoredEvent

log_ = get_logger("rlvr.sinks")


@dataclass
class StepScalars:
    step: int
    scalars: dict[str, float] = field(default_factory=dict)
    walltime: float | None = None  # when the step was recorded, from the log


class MetricSink(Protocol):
    name: str

    def log(self, row: StepScalars) -> None: ...

    def close(self) -> None: ...


def metric_rows(events: Iterable[StoredEvent]) -> list[StepScalars]:
    """Per-step scalars (`train/<metric>`, `eval/verify_rate`, `eval/capability/<benchmark>`)."""
    log = entries(events)
    spans = abandoned_spans(log)
    rows: dict[int, StepScalars] = {}
    for e in log:
        if e.type not in ("MetricsRecorded", "EvalRecorded") or abandoned_by(e.seq, spans):
            continue
        p = e.payload
        row = rows.setdefault(p["step"], StepScalars(p["step"]))
        row.walltime = datetime.fromisoformat(e.recorded_at).timestamp()
        if e.type == "MetricsRecorded":
            row.scalars.update(
                {f"train/{k}": float(v) for k, v in p["metrics"].items() if v is not None}
            )
        else:
            row.scalars["eval/verify_rate"] = float(p["verify_rate"])
            row.scalars.update(
                {f"eval/capability/{k}": float(v) for k, v in p["capability"].items()}
            )
    return [rows[step] for step in sorted(rows)]


def export_metrics(events: Iterable[StoredEvent], sink: MetricSink, after_step: int = -1) -> int:
    """Replay the log's metrics into `sink` (steps after `after_step`); the last step written."""
    last = after_step
    for row in metric_rows(events):
        if row.step > after_step:
            sink.log(row)
            last = row.step
    return last


class TensorBoardSink:
    """TensorBoard event files under `logdir`, written with tensorboardX."""

    name = "tensorboard"

    def __init__(self, logdir: Path, module: ModuleType | None = None) -> None:
        tbx = module or importlib.import_module("tensorboardX")
        self.logdir = Path(logdir)
        self.writer = tbx.SummaryWriter(logdir=str(self.logdir), flush_secs=5)

    def log(self, row: StepScalars) -> None:
        for tag, value in row.scalars.items():
            self.writer.add_scalar(tag, value, global_step=row.step, walltime=row.walltime)

    def close(self) -> None:
        self.writer.close()


class WandbSink:
    """A Weights & Biases run named after the orchestrator's run (resumed when it exists)."""

    name = "wandb"

    def __init__(
        self,
        project: str,
        run_id: str,
        name: str | None = None,
        config: Mapping[str, Any] | None = None,
        directory: Path | None = None,
        module: ModuleType | None = None,
    ) -> None:
        wandb = module or importlib.import_module("wandb")
        self.run = wandb.init(
            project=project,
            id=run_id,
            name=name or run_id,
            resume="allow",
            config=redact(dict(config or {})),
            dir=str(directory) if directory else None,
        )

    def log(self, row: StepScalars) -> None:
        self.run.log(dict(row.scalars), step=row.step)

    def close(self) -> None:
        self.run.finish()


def _installed(module: str, sink: str, hint: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        log_.warning(f"{module} is not installed: skipping the {sink} sink ({hint})")
        return False
    return True


def open_sinks(
    config: Mapping[str, Any], run_dir: Path, run_id: str, tensorboard: bool = True
) -> list[MetricSink]:
    """The sinks this run asks for and this install can serve: TensorBoard (when `tensorboard`)
    and W&B (when `wandb_project` is set)."""
    sinks: list[MetricSink] = []
    if tensorboard and _installed("tensorboardX", "TensorBoard", "pip install tensorboardX"):
        sinks.append(TensorBoardSink(Path(run_dir) / "tensorboard"))
    project = config.get("wandb_project")
    if project and _installed("wandb", "Weights & Biases", "pip install wandb"):
        sinks.append(
            WandbSink(project, run_id, config.get("wandb_name"), config, directory=Path(run_dir))
        )
    return sinks


def export_run(
    events: Iterable[StoredEvent], config: Mapping[str, Any], run_dir: Path, run_id: str
) -> list[str]:
    """Open the configured sinks, replay the whole log into each, close them; their names."""
    stored = list(events)
    names = []
    for sink in open_sinks(config, run_dir, run_id):
        try:
            export_metrics(stored, sink)
        finally:
            sink.close()
        names.append(sink.name)
    return names
