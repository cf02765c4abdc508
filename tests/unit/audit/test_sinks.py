"""Metric sinks are views of the log, written live by the driver or back-filled by `rlvr sink`.

Each test reads the written files back with the tools' own readers: TensorBoard's event
accumulator, and W&B offline mode's run file (its record framing, parsed with wandb's own
protobuf definitions).
"""

from __future__ import annotations

import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.lifecycle import drive
from orchestrator.sinks.live import METRIC_SINKS
from orchestrator.sinks.metrics import hparams_of, metric_rows
from store.events import EvalRecorded, MetricsRecorded, RunRewound, RunStarted
from store.log import EventLog, StoredEvent
from tests.scenario.fake_stages import FakeStages

RLVR = [sys.executable, "-c", "from orchestrator.cli.app import main; main()"]


def _tensorboard_scalars(logdir: Path) -> dict[str, dict[int, float]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out: dict[str, dict[int, float]] = {}
    for events_file in sorted(logdir.glob("events.out.tfevents.*")):
        acc = EventAccumulator(str(events_file), size_guidance={"scalars": 0})
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            for scalar in acc.Scalars(tag):
                out.setdefault(tag, {})[scalar.step] = scalar.value
    return out


def _wandb_records(run_file: Path) -> list:
    """Every record of a W&B run file: a 7-byte header, then records framed as checksum (4),
    length (2), kind (1: full, 2: first, 3: middle, 4: last) in 32 KiB blocks."""
    from wandb.proto import wandb_internal_pb2

    data, block = run_file.read_bytes(), 32768
    assert data[:4] == b":W&B"
    at, records, pending = 7, [], b""
    while at + 7 <= len(data):
        if block - at % block < 7:  # a block's tail too short for a header is padding
            at += block - at % block
            continue
        length, kind = struct.unpack("<HB", data[at + 4 : at + 7])
        if (length == 0 and kind == 0) or at + 7 + length > len(data):
            break  # the end, or a record still being written
        pending += data[at + 7 : at + 7 + length]
        at += 7 + length
        if kind in (1, 4):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pending)
            records.append(record)
            pending = b""
    return records


def _wandb_run(directory: Path) -> tuple[dict, dict[int, dict[str, float]]]:
    import json

    [run_file] = directory.glob("wandb/offline-run-*/run-*.wandb")
    # W&B's service process writes the file; `finish()` may return before its last records land.
    deadline = time.monotonic() + 60
    records = _wandb_records(run_file)
    while not any(r.WhichOneof("record_type") == "exit" for r in records):
        assert time.monotonic() < deadline, f"{run_file}: no exit record after 60 s"
        time.sleep(0.5)
        records = _wandb_records(run_file)
    run, history = {}, {}
    for record in records:
        kind = record.WhichOneof("record_type")
        if kind == "run":
            config = {u.key: json.loads(u.value_json) for u in record.run.config.update}
            run = {"id": record.run.run_id, "project": record.run.project,
                   "name": record.run.display_name, "config": config}  # fmt: skip
        elif kind == "history":
            items = {
                i.key or "/".join(i.nested_key): json.loads(i.value_json)
                for i in record.history.item
            }
            history[items.pop("_step")] = {k: v for k, v in items.items() if not k.startswith("_")}
    return run, history


def _rewound_log(tmp_path: Path) -> tuple[EventLog, str]:
    """kl 0.1 .. 0.4 at steps 1..4, a rewind to step 2 (seq 3), then step 3 again with kl 0.9."""
    log = EventLog(tmp_path / "events.db")
    config = {"log_path": str(tmp_path), "wandb_project": "from-config", "judge_api_key": "sk-x"}
    log.append("r", [RunStarted(config=config, config_hash="h")], 0)
    for step in range(1, 5):
        log.append("r", [MetricsRecorded(step=step, metrics={"kl": step / 10, "nan": None})], step)
    log.append("r", [EvalRecorded(step=4, verify_rate=0.5, capability={"reverse": 1.0})], 5)
    log.append("r", [RunRewound(to_seq=3)], 6)
    log.append("r", [MetricsRecorded(step=3, metrics={"kl": 0.9})], 7)
    return log, "r"


def test_metric_rows_merge_each_steps_training_metrics_and_evals(
    chaos_events: list[StoredEvent],
) -> None:
    rows = metric_rows(chaos_events)
    assert [r.step for r in rows] == list(range(0, 41))  # the baseline is step 0
    assert rows[0].scalars == {
        "eval/verify_rate": 0.5,
        "eval/capability/arith": 0.8,
        "eval/capability/reverse": 1.0,
    }
    rows = rows[1:]
    step_20 = rows[19].scalars
    assert step_20["train/kl"] == pytest.approx(0.04)
    assert step_20["eval/capability/reverse"] == pytest.approx(0.9)
    assert rows[3].scalars["train/kl"] == pytest.approx(0.16)
    assert all(r.walltime is not None for r in rows)


def test_a_v1_metrics_row_exports_the_names_of_today() -> None:
    # v1 logged the KL coefficient as `kl_coef` and the scheduled LR as `learning_rate`; the sink
    # reads rows through the upcaster, as every reader does (it exported the v1 names before).
    v1 = StoredEvent(
        run_id="v1-run", seq=7, type="MetricsRecorded", schema_version=1,
        recorded_at="2026-01-01T00:00:00+00:00", prev_hash="0" * 64, hash="1" * 64,
        payload='{"metrics":{"kl":0.02,"kl_coef":0.05,"learning_rate":1e-05},"step":3}',
    )  # fmt: skip
    [row] = metric_rows([v1])
    assert row.step == 3
    assert row.scalars == {
        "train/kl": 0.02,
        "train/kl_penalty_coef": 0.05,
        "train/learning_rate_scheduled": 1e-05,
    }


def test_rlvr_sink_backfills_tensorboard_with_the_history_the_run_kept(tmp_path: Path) -> None:
    log, run_id = _rewound_log(tmp_path)
    out = tmp_path / "tb"
    result = subprocess.run(
        [*RLVR, "sink", run_id, "--to", "tensorboard", str(out), "--store", str(tmp_path / "events.db")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"3 steps written to tensorboard in {out / run_id}" in result.stderr
    scalars = _tensorboard_scalars(out / run_id)
    # Steps 3 (first try), 4 and step 4's eval were abandoned by the rewind; a null is not a value.
    assert scalars["train/kl"] == pytest.approx({1: 0.1, 2: 0.2, 3: 0.9})
    assert "eval/verify_rate" not in scalars and "train/nan" not in scalars


def test_rlvr_sink_without_a_directory_for_tensorboard_is_one_clear_error(tmp_path: Path) -> None:
    _rewound_log(tmp_path)
    result = subprocess.run(
        [*RLVR, "sink", "r", "--to", "tensorboard", "--store", str(tmp_path / "events.db")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "error: --to tensorboard needs a directory: rlvr sink RUN --to tensorboard DIR"
    )


def test_rlvr_sink_backfills_an_offline_wandb_run(tmp_path: Path) -> None:
    _rewound_log(tmp_path)
    out = tmp_path / "wb"
    result = subprocess.run(
        [*RLVR, "sink", "r", "--to", "wandb", str(out), "--name", "rewound", "--store",
         str(tmp_path / "events.db")],
        capture_output=True, text=True, timeout=180, env={**_env(), "WANDB_MODE": "offline"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    run, history = _wandb_run(out)
    assert (run["id"], run["project"], run["name"]) == ("r", "from-config", "rewound")
    assert run["config"]["judge_api_key"] == "***"  # redacted as in the log's own config
    assert history == {1: {"train/kl": 0.1}, 2: {"train/kl": 0.2}, 3: {"train/kl": 0.9}}
    other = subprocess.run(
        [*RLVR, "sink", "r", "--to", "wandb", str(tmp_path / "wb2"), "--project", "other",
         "--store", str(tmp_path / "events.db")],
        capture_output=True, text=True, timeout=180, env={**_env(), "WANDB_MODE": "offline"},
    )  # fmt: skip
    assert other.returncode == 0, other.stderr
    assert _wandb_run(tmp_path / "wb2")[0]["project"] == "other"


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "WANDB_SILENT": "true"}


def test_a_run_writes_tensorboard_and_wandb_as_it_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(
        log_path=str(tmp_path), tensorboard=True, wandb_project="proj", wandb_name="live"
    )
    run_id, _ = start_run(log, config, observers=METRIC_SINKS)
    state = drive(log, run_id, config, FakeStages().registry(), observers=METRIC_SINKS)
    assert state.state == "completed" and log.observers == []
    logged = metric_rows(log.read(run_id))
    assert logged, "the fake stages record metrics"
    scalars = _tensorboard_scalars(tmp_path / run_id / "tensorboard")
    assert scalars["train/kl"] == pytest.approx(
        {r.step: r.scalars["train/kl"] for r in logged if "train/kl" in r.scalars}
    )
    run, history = _wandb_run(tmp_path / run_id)
    assert (run["id"], run["project"], run["name"]) == (run_id, "proj", "live")
    assert {step: h["train/kl"] for step, h in history.items() if "train/kl" in h} == pytest.approx(
        {r.step: r.scalars["train/kl"] for r in logged if "train/kl" in r.scalars}
    )


def test_a_run_asking_for_a_sink_this_install_lacks_is_refused_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestrator.sinks.metrics import SinkError

    monkeypatch.setitem(sys.modules, "tensorboardX", None)  # imports as if not installed
    log = EventLog(tmp_path / "events.db")
    with pytest.raises(SinkError, match=r"tensorboardX is not installed: pip install"):
        start_run(log, RunConfig(log_path=str(tmp_path), tensorboard=True), observers=METRIC_SINKS)
    assert log.runs() == []


def test_a_failing_sink_is_dropped_and_the_run_goes_on(tmp_path: Path) -> None:
    from orchestrator.sinks.metrics import SinkFeed, StepScalars

    class Broken:
        name = "broken"
        closed = False

        def log(self, row: StepScalars) -> None:
            raise OSError("disk full")

        def close(self) -> None:
            Broken.closed = True

    log, run_id = _rewound_log(tmp_path)
    feed = SinkFeed([Broken()])
    log.observers.append(feed)
    log.append(run_id, [MetricsRecorded(step=4, metrics={"kl": 0.1})], 8)
    assert feed.sinks == [] and Broken.closed
    assert log.last_seq(run_id) == 9


def test_two_runs_sunk_into_one_folder_are_two_runs_with_hparams_baseline_and_decisions(
    tmp_path: Path,
) -> None:
    """What TensorBoard itself reads (its multiplexer over the folder it is pointed at): one
    run per run, each with its hyper-parameters, its baseline at step 0 and its decisions."""
    from tensorboard.backend.event_processing.event_multiplexer import EventMultiplexer
    from tensorboard.plugins.hparams import plugin_data_pb2

    from tests.unit.audit.chaos_log import chaos_run

    log, chaos_id = chaos_run(tmp_path)
    store = log.url.removeprefix("sqlite:///")
    config = RunConfig(log_path=str(tmp_path), run_name="plain")
    other, _ = start_run(log, config)
    drive(log, other, config, FakeStages().registry())
    out = tmp_path / "tb"
    for run_id in (chaos_id, other):
        done = subprocess.run(
            [*RLVR, "sink", run_id, "--to", "tensorboard", str(out), "--store", store],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    reader = EventMultiplexer().AddRunsFromDirectory(str(out))
    reader.Reload()
    assert sorted(reader.Runs()) == sorted([chaos_id, other])
    starts = reader.PluginRunToTagToContent("hparams")
    assert sorted(starts) == sorted([chaos_id, other])
    for run_id, tags in starts.items():
        data = plugin_data_pb2.HParamsPluginData.FromString(tags["_hparams_/session_start_info"])
        hparams = data.session_start_info.hparams
        assert hparams["run_id"].string_value == run_id
        assert hparams["grpo.learning_rate"].number_value > 0
        assert hparams["grpo.sampling.temperature"].number_value == 1.0
    baseline = {e.step: e.value for e in reader.Scalars(chaos_id, "eval/verify_rate")}
    assert baseline[0] == pytest.approx(0.5)  # the baseline, as step 0
    texts = reader.Tensors(chaos_id, "decisions/text_summary")
    decided = {e.step: e.tensor_proto.string_val[0].decode() for e in texts}
    assert sorted(decided) == [4, 20, 35, 39]
    assert "kl_control: halve_lr" in decided[4] and "rollback: rollback" in decided[20]


@pytest.mark.parametrize(
    "config",
    [{"grpo": [1]}, {"grpo": "x", "model": 5}, {"grpo": {"sampling": 5, "learning_rate": 0.1}}],
    ids=["grpo a list", "sections text and a number", "sampling a number"],
)
def test_hparams_of_a_config_edited_in_the_store_skips_sections_that_are_no_mapping(
    config: dict,
) -> None:
    """`rlvr sink` on a run whose recorded config was edited (unkeyed, its chain recomputed)
    ended in `error: TypeError: cannot convert dictionary update sequence element`."""
    hparams = hparams_of(config, "r")
    assert hparams["run_id"] == "r"
    assert set(hparams) <= {"run_id", "seed", "grpo.learning_rate"}
