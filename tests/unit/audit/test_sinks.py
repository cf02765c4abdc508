"""Metric sinks are views of the log: replaying it writes the same scalars every time."""

from __future__ import annotations

import struct
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from orchestrator.sinks import (
    StepScalars,
    TensorBoardSink,
    WandbSink,
    export_metrics,
    metric_rows,
    open_sinks,
)
from store.log import StoredEvent


def test_metric_rows_merge_each_steps_training_metrics_and_evals(
    chaos_events: list[StoredEvent],
) -> None:
    rows = metric_rows(chaos_events)
    assert [r.step for r in rows] == list(range(1, 41))
    step_20 = rows[19].scalars
    assert step_20["train/kl"] == pytest.approx(0.04)
    assert step_20["eval/capability/reverse"] == pytest.approx(0.9)
    assert rows[3].scalars["train/kl"] == pytest.approx(0.16)
    assert all(r.walltime is not None for r in rows)


def _tfrecords(path: Path) -> list[bytes]:
    data, out, at = path.read_bytes(), [], 0
    while at < len(data):
        (length,) = struct.unpack("<Q", data[at : at + 8])
        out.append(data[at + 12 : at + 12 + length])
        at += 12 + length + 4
    return out


def test_the_tensorboard_sink_writes_event_files_with_every_scalar(
    chaos_events: list[StoredEvent], tmp_path: Path
) -> None:
    pytest.importorskip("tensorboardX")
    from tensorboardX.proto import event_pb2

    sink = TensorBoardSink(tmp_path / "tb")
    assert export_metrics(chaos_events, sink) == 40
    sink.close()
    [events_file] = (tmp_path / "tb").glob("events.out.tfevents.*")
    scalars = {}
    for record in _tfrecords(events_file):
        event = event_pb2.Event.FromString(record)
        for value in event.summary.value:
            scalars[(value.tag, event.step)] = value.simple_value
    assert scalars[("train/kl", 4)] == pytest.approx(0.16)
    assert scalars[("eval/capability/reverse", 20)] == pytest.approx(0.9)
    assert len({tag for tag, _ in scalars}) >= 10


class _FakeWandbRun:
    def __init__(self) -> None:
        self.logged: list[tuple[dict, int]] = []
        self.finished = False

    def log(self, data: dict, step: int) -> None:
        self.logged.append((data, step))

    def finish(self) -> None:
        self.finished = True


def test_the_wandb_sink_logs_each_step_once_in_order_with_a_redacted_config(
    chaos_events: list[StoredEvent],
) -> None:
    run = _FakeWandbRun()
    inits: list[dict] = []
    fake = SimpleNamespace(init=lambda **kw: inits.append(kw) or run)
    sink = WandbSink(
        "proj", "run-1", config={"judge": {"api_key": "sk-live-abcdef123456"}}, module=fake
    )  # type: ignore[arg-type]
    export_metrics(chaos_events, sink, after_step=30)
    sink.close()
    assert [step for _, step in run.logged] == list(range(31, 41)) and run.finished
    assert inits[0]["project"] == "proj" and inits[0]["id"] == "run-1"
    assert inits[0]["config"] == {"judge": {"api_key": "***"}}


def test_a_missing_sink_package_is_skipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A None entry in sys.modules makes the import fail as if the package were not installed.
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    monkeypatch.setitem(sys.modules, "wandb", None)
    assert open_sinks({"wandb_project": "proj"}, tmp_path, "run-1") == []


def test_step_scalars_default_to_no_walltime() -> None:
    assert StepScalars(3).walltime is None and StepScalars(3).scalars == {}
