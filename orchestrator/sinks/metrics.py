"""Metric sinks: TensorBoard event files and a Weights & Biases run, fed from the event log.

They are views, never the source of truth. A driver feeds each appended batch's metrics to the
sinks its run asks for (`tensorboard = true`: `<run dir>/tensorboard`; `wandb_project`: a W&B run
with the orchestrator's run id, named `wandb_name`), and `rlvr sink RUN --to tensorboard DIR`
(or `--to wandb`) writes a recorded run again, into `DIR/<run id>`: TensorBoard takes each
sub-folder of the folder it is pointed at as one run, so runs written into one DIR stay apart.
Written live, a sink shows the steps as they ran; written back from the log, it shows the history
the run kept (spans abandoned by a rewind left out).
Scalars: `train/<metric>`, `eval/verify_rate`, `eval/capability/<benchmark>`, the baseline as
step 0; each policy decision as text under `decisions` at its step; TensorBoard also gets the run's
hyper-parameters (its HParams dashboard: the GRPO and model settings, with the run's parent).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from orchestrator.errors import OrchestratorError
from orchestrator.logging import get_logger, redact
from store.log import StoredEvent
from store.rewinds import Rewinds
from store.rows import PAYLOAD_ERRORS, payload_mismatch
from store.run_ids import run_path

log_ = get_logger("rlvr.sinks")
METRIC_TYPES = ("MetricsRecorded", "EvalRecorded", "BaselineRecorded", "PolicyDecided")
# The scalars the HParams dashboard lines up against the hyper-parameters.
HPARAM_METRICS = ("eval/verify_rate", "train/reward_mean", "train/kl")


class SinkError(OrchestratorError):
    """A sink cannot be opened (its package is missing, or it lacks a setting)."""


@dataclass
class StepScalars:
    step: int
    scalars: dict[str, float] = field(default_factory=dict)
    walltime: float | None = None  # when the step was recorded, from the log
    texts: list[tuple[str, str]] = field(default_factory=list)  # (tag, text): decisions


class MetricSink(Protocol):
    name: str

    def log(self, row: StepScalars) -> None: ...

    def close(self) -> None: ...


def _decision_text(p: dict[str, Any]) -> str:
    return f"**{p['policy']}: {p['action']}** ({p['trigger_metric']}): {p.get('reason', '')}"


def step_scalars(rows: Iterable[StoredEvent], step: int = 0) -> list[StepScalars]:
    """One `StepScalars` per metrics, eval, baseline (step 0) or decision event among `rows`, in
    log order; a decision is placed at the step of the metrics before it (`step`: the step the
    rows start after)."""
    out = []
    for stored in rows:
        if stored.type not in METRIC_TYPES:
            continue
        try:
            row = _scalars_of(stored, step)
        except PAYLOAD_ERRORS as e:  # a row the code never wrote: refused by its seq
            raise payload_mismatch(stored, e) from e
        step = row.step
        out.append(row)
    return out


def _scalars_of(stored: StoredEvent, step: int) -> StepScalars:
    p = stored.fields()  # upcast: a v1 log exports the names of today
    walltime = datetime.fromisoformat(stored.recorded_at).timestamp()
    if stored.type == "PolicyDecided":
        return StepScalars(step, walltime=walltime, texts=[("decisions", _decision_text(p))])
    step = 0 if stored.type == "BaselineRecorded" else int(p["step"])
    row = StepScalars(step, walltime=walltime)
    if stored.type == "MetricsRecorded":
        row.scalars = {f"train/{k}": float(v) for k, v in p["metrics"].items() if v is not None}
    else:
        row.scalars = {"eval/verify_rate": float(p["verify_rate"])}
        row.scalars.update({f"eval/capability/{k}": float(v) for k, v in p["capability"].items()})
    return row


def metric_rows(rows: Iterable[StoredEvent]) -> list[StepScalars]:
    """A whole log's scalars, one row per step (training metrics, eval and decisions merged),
    abandoned spans left out; a step trained again after a rollback keeps its latest values."""
    rows = list(rows)
    merged: dict[int, StepScalars] = {}
    for row in step_scalars(Rewinds.of(rows).kept(rows)):
        into = merged.setdefault(row.step, StepScalars(row.step))
        into.scalars.update(row.scalars)
        into.texts.extend(row.texts)
        into.walltime = row.walltime
    return [merged[step] for step in sorted(merged)]


def write_all(rows: Iterable[StoredEvent], sink: MetricSink) -> int:
    """Write a whole log into `sink` (`rlvr sink`); how many steps were written."""
    written = metric_rows(rows)
    for row in written:
        sink.log(row)
    return len(written)


def hparams_of(config: Mapping[str, Any], run_id: str, parent: str | None = None) -> dict[str, Any]:
    """The settings a run's curves are compared by: seed, model, every GRPO and sampling
    setting (lists as text), and the parent a branch came from."""
    out: dict[str, Any] = {"run_id": run_id, "seed": config.get("seed", 0)}
    if parent:
        out["parent"] = parent
    model = _section(config, "model")
    for key in ("model_name", "lora_rank"):
        if key in model:
            out[f"model.{key}"] = model[key]
    grpo = _section(config, "grpo")
    sampling = _section(grpo, "sampling")
    grpo.pop("sampling", None)
    for prefix, section in (("grpo", grpo), ("grpo.sampling", sampling)):
        for key, value in section.items():
            if value is None or isinstance(value, dict):
                continue
            out[f"{prefix}.{key}"] = json.dumps(value) if isinstance(value, list) else value
    return out


def _section(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A section of the recorded config as a dict; anything else (a config edited in the store:
    `grpo = [1]` gave a bare TypeError) labels no curve."""
    section = config.get(name)
    return dict(section) if isinstance(section, Mapping) else {}


def _import(module: str, extra: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise SinkError(
            f"{module} is not installed: pip install 'rlvr-orchestrator[{extra}]'"
        ) from e


class TensorBoardSink:
    """TensorBoard event files under `logdir` (written with tensorboardX): one run's folder."""

    name = "tensorboard"

    def __init__(self, logdir: Path, hparams: Mapping[str, Any] | None = None) -> None:
        tensorboardx = _import("tensorboardX", "tensorboard")
        self.logdir = Path(logdir)
        try:  # tensorboardX would leave an unwritable folder to its writer thread, which says nothing
            self.logdir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise SinkError(
                f"cannot write TensorBoard files into {self.logdir}: {e.strerror or e}"
            ) from e
        _watch_writer_threads()
        self.failures_before = len(_WRITER_FAILURES)
        # A queue that does not fill while this process checks the writer thread between rows:
        # tensorboardX's default (10) blocks for ever once that thread has died.
        self.writer = tensorboardx.SummaryWriter(
            logdir=str(self.logdir), flush_secs=5, max_queue=100_000
        )
        if hparams:
            self._write_hparams(hparams)

    def _check_writer(self) -> None:
        """SinkError once the writer thread failed (a full disk): its events are not on disk."""
        if len(_WRITER_FAILURES) > self.failures_before:
            error = _WRITER_FAILURES[-1]
            raise SinkError(
                f"cannot write TensorBoard files into {self.logdir}: {getattr(error, 'strerror', None) or error}"
            )

    def _write_hparams(self, hparams: Mapping[str, Any]) -> None:
        # Into this run's own event file: tensorboardX's `add_hparams` would open a sub-folder,
        # which TensorBoard lists as a second run.
        from tensorboardX.summary import hparams as hparams_summaries

        values = {k: v for k, v in hparams.items() if isinstance(v, bool | int | float | str)}
        for summary in hparams_summaries(values, dict.fromkeys(HPARAM_METRICS, 0.0)):
            self.writer.file_writer.add_summary(summary)

    def log(self, row: StepScalars) -> None:
        self._check_writer()
        for tag, value in row.scalars.items():
            self.writer.add_scalar(tag, value, global_step=row.step, walltime=row.walltime)
        for tag, text in row.texts:
            self.writer.add_text(tag, text, global_step=row.step, walltime=row.walltime)

    def close(self) -> None:
        try:
            self.writer.close()  # its final flush runs here, in this thread
        except OSError as e:
            # Given up: else tensorboardX's exit hook flushes again and prints a traceback.
            for file_writer in (self.writer.all_writers or {}).values():
                file_writer.event_writer._closed = True
            raise SinkError(
                f"cannot write TensorBoard files into {self.logdir}: {e.strerror or e}"
            ) from e
        self._check_writer()


# What tensorboardX's writer threads died of: a thread cannot raise into the one that feeds it.
_WRITER_FAILURES: list[BaseException] = []


def _watch_writer_threads() -> None:
    """Record (instead of printing a traceback for) the exception a TensorBoard writer thread
    dies of; other threads' exceptions go to the hook that was there."""
    import threading

    previous = threading.excepthook
    if getattr(previous, "rlvr_tensorboard", False):
        return

    def hook(args: threading.ExceptHookArgs) -> None:
        if type(args.thread).__name__ == "_EventLoggerThread" and args.exc_value is not None:
            _WRITER_FAILURES.append(args.exc_value)
            return
        previous(args)

    hook.rlvr_tensorboard = True  # type: ignore[attr-defined]
    threading.excepthook = hook


class WandbSink:
    """A W&B run whose id is the orchestrator's run id (resumed when it exists). W&B takes each
    step once, in increasing order: a step trained again after a rollback is not sent twice."""

    name = "wandb"

    def __init__(
        self,
        project: str,
        run_id: str,
        name: str | None,
        config: Mapping[str, Any],
        directory: Path,
    ) -> None:
        wandb = _import("wandb", "wandb")
        directory.mkdir(parents=True, exist_ok=True)
        self.run = wandb.init(
            project=project,
            id=run_id,
            name=name or run_id,
            resume="allow",
            config=redact(dict(config)),
            dir=str(directory),
        )
        self.last_step = -1

    def log(self, row: StepScalars) -> None:
        if row.step < self.last_step or not row.scalars:
            return  # W&B charts numbers: decisions (text) stay in the log and TensorBoard
        self.run.log(dict(row.scalars), step=row.step)
        self.last_step = row.step

    def close(self) -> None:
        self.run.finish()


def check_installed(config: Mapping[str, Any]) -> None:
    """Refuse a run (before anything is written) whose sinks this install cannot serve."""
    if config.get("tensorboard"):
        _import("tensorboardX", "tensorboard")
    if config.get("wandb_project"):
        _import("wandb", "wandb")


def open_sinks(config: Mapping[str, Any], run_dir: Path, run_id: str) -> list[MetricSink]:
    """The sinks a run's (JSON) config asks for."""
    sinks: list[MetricSink] = []
    if config.get("tensorboard"):
        sinks.append(TensorBoardSink(run_dir / "tensorboard", hparams_of(config, run_id)))
    if config.get("wandb_project"):
        sinks.append(
            WandbSink(config["wandb_project"], run_id, config.get("wandb_name"), config, run_dir)
        )
    return sinks


class SinkFeed:
    """Feeds each appended batch to the run's sinks (an `EventLog` observer). A sink that fails is
    closed and dropped with one warning: the run goes on, the log still holds every metric."""

    def __init__(self, sinks: Sequence[MetricSink]) -> None:
        self.sinks = list(sinks)
        self.step = 0  # the last step fed: a decision in a later batch is placed there

    def __call__(self, rows: Sequence[StoredEvent]) -> None:
        scalars = step_scalars(rows, self.step)
        if not scalars:
            return
        self.step = scalars[-1].step
        for sink in list(self.sinks):
            try:
                for row in scalars:
                    sink.log(row)
            except Exception as e:  # a sink is a view: losing it must not stop training
                log_.warning("metric sink failed: dropped", sink=sink.name, error=str(e))
                self.sinks.remove(sink)
                self._close(sink)

    def close(self) -> None:
        for sink in self.sinks:
            self._close(sink)
        self.sinks = []

    @staticmethod
    def _close(sink: MetricSink) -> None:
        try:
            sink.close()
        except Exception as e:
            log_.warning("metric sink did not close cleanly", sink=sink.name, error=str(e))


def backfill(
    rows: Iterable[StoredEvent],
    config: Mapping[str, Any],
    run_id: str,
    to: str,
    directory: Path | None,
    project: str | None = None,
    name: str | None = None,
    parent: str | None = None,
) -> int:
    """`rlvr sink`: write a recorded run into a new sink; how many steps were written. TensorBoard:
    into `directory/<run id>`, so several runs written to one directory are several runs."""
    if to == "tensorboard":
        if directory is None:
            raise SinkError(
                "--to tensorboard needs a directory: rlvr sink RUN --to tensorboard DIR"
            )
        sink: MetricSink = TensorBoardSink(
            run_path(directory, run_id), hparams_of(config, run_id, parent)
        )
    elif to == "wandb":
        project = project or config.get("wandb_project")
        if not project:
            raise SinkError(f"run {run_id} names no wandb_project: pass --project")
        run_dir = run_path(Path(config.get("log_path", "runs")), run_id)
        sink = WandbSink(project, run_id, name or config.get("wandb_name"), config,
                         directory or run_dir)  # fmt: skip
    else:
        raise SinkError(f"--to {to!r}: expected tensorboard or wandb")
    try:
        return write_all(rows, sink)
    finally:
        sink.close()
