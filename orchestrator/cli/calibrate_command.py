"""`rlvr calibrate [CONFIG]`: sampling and training throughput over batch sizes on this machine
(each rank, under mlx.launch), the batch size at each peak, recorded for `batch_size = "auto"`.

Sampling: `batch_size` completions of the step's prompts decoded in one batch (sequences/s).
Training: forward + backward of the GRPO loss over those sequences (prompt + completion tokens/s);
both measured by `stages/rl/throughput.py`, as a distributed run measures its ranks.
The model is the config's (the embedded one freshly initialised: throughput does not depend on
what it has learned). Records go to `<log_path>/calibration.json`, keyed by host and model shape.

`grpo.sampling.batch_size = "auto"` in a config (or on the command line) is resolved when a run
starts: to the recorded peak for this host and model, measured now if there is none. The resolved
number is what the run records (a `grpo.sampling.batch_size=N` override), so a resume reproduces it.
"""

from __future__ import annotations

import json
import socket
import statistics
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:  # the config (pydantic, every stage's settings) loads only when a command runs
    from orchestrator.config import RunConfig

DEFAULT_SIZES = "8,16,32,64,128,256,512"
_KEY = "grpo.sampling.batch_size"


def _model(config: RunConfig) -> tuple[Any, Any, str]:
    import stages.training  # noqa: F401  (OpenBLAS before mlx)
    from stages.training.model import build_embedded_model, load_model

    if config.model.model_name == "embedded":
        folder = Path(config.log_path) / "calibration-model"
        build_embedded_model(config.model, folder)
        m = config.model
        shape = f"embedded:{m.num_hidden_layers}x{m.hidden_size}x{m.intermediate_size}"
        return (*load_model(folder), shape)
    return (*load_model(config.model.model_name), config.model.model_name)


def measure(config: RunConfig, sizes: list[int], repeats: int = 2) -> dict[str, Any]:
    """Sequences/s sampling and tokens/s training at each batch size; the peaks."""
    from stages.common import task_suite
    from stages.rl.throughput import measure_throughput
    from stages.types import StageContext
    from store.blobs import BlobStore

    model, tokenizer, shape = _model(config)
    ctx = StageContext(
        run_id="calibrate", config=config, run_dir=Path(config.log_path),
        blobs=BlobStore(Path(config.log_path) / "blobs"), emit=lambda e: [], state=lambda: None,
    )  # fmt: skip
    tasks = task_suite(ctx).train
    grpo, n = config.grpo, config.grpo.group_size
    sampling, training = {}, {}
    for size in sizes:
        prompts = [tasks[i % len(tasks)] for i in range(max(size // n, 1))]
        settings = grpo.model_copy(
            update={"sampling": grpo.sampling.model_copy(update={"batch_size": size})}
        )
        rates, train_rates = [], []
        for r in range(repeats + 1):  # the first run warms up
            measured = measure_throughput(model, tokenizer, prompts, settings, seed=r)
            if r:
                rates.append(measured.sequences / measured.sample_s)
                train_rates.append(measured.train_tokens / measured.train_s)
        sampling[size], training[size] = statistics.median(rates), statistics.median(train_rates)
    return {
        "host": socket.gethostname(), "model": shape, "max_tokens": grpo.sampling.max_tokens,
        "sampling_sequences_per_s": sampling, "train_tokens_per_s": training,
        "sampling_batch_size": max(sampling, key=sampling.get),
        "train_batch_size": max(training, key=training.get),
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }  # fmt: skip


def _records_path(config: RunConfig) -> Path:
    return Path(config.log_path) / "calibration.json"


def record(config: RunConfig, result: dict[str, Any]) -> Path:
    path = _records_path(config)
    records = json.loads(path.read_text()) if path.is_file() else []
    records = [r for r in records if (r["host"], r["model"]) != (result["host"], result["model"])]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps([*records, result], indent=1))
    tmp.replace(path)
    return path


def auto_overrides(config_path: Path | None, overrides: list[str]) -> list[str]:
    """`overrides`, plus the resolved `grpo.sampling.batch_size=N` when the config says auto."""
    raw: Any = None
    try:
        data = tomllib.loads(Path(config_path).read_text(encoding="utf-8")) if config_path else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return overrides  # load_config reports what is wrong with the file
    raw = data.get("grpo", {}).get("sampling", {}).get("batch_size")
    for item in overrides:
        key, _, value = item.partition("=")
        if key.strip() in (_KEY, "batch_size") and value.strip().strip("\"'") == "auto":
            raw = "auto"
        elif key.strip() == _KEY:
            raw = value
    if raw != "auto":
        return overrides
    from orchestrator.config import load_config

    kept = [o for o in overrides if o.partition("=")[0].strip() not in (_KEY, "batch_size")]
    config = load_config(config_path, [*kept, f"{_KEY}=512"])
    model_shape = _model(config)[2]
    path = _records_path(config)
    records = json.loads(path.read_text()) if path.is_file() else []
    found = next((r for r in records if (r["host"], r["model"]) == (socket.gethostname(), model_shape)), None)  # fmt: skip
    if found is None:
        found = measure(config, [int(s) for s in DEFAULT_SIZES.split(",")], repeats=1)
        record(config, found)
    return [*kept, f"{_KEY}={found['sampling_batch_size']}"]


def calibrate_command(
    config: Annotated[Path | None, typer.Argument(help="TOML run config (default: built-in).")] = None,
    overrides: Annotated[list[str] | None, typer.Argument(help="key=value overrides.")] = None,
    sizes: Annotated[str, typer.Option("--sizes", help="Batch sizes to try, comma-separated.")] = DEFAULT_SIZES,
    repeats: Annotated[int, typer.Option("--repeats", help="Timed runs per size (median).")] = 2,
) -> None:  # fmt: skip
    """Measure sampling and training throughput over batch sizes; record the peaks."""
    from rich.console import Console
    from rich.table import Table

    from orchestrator.config import load_config
    from orchestrator.driver.distributed import launched_world

    cfg = load_config(config, [o for o in overrides or [] if not o.endswith("=auto")])
    result = measure(cfg, [int(s) for s in sizes.split(",") if s.strip()], repeats)
    world = launched_world(cfg.distributed)
    results = world.gather_json(result, "calibration", None) if world else [result]
    if world is not None and not world.leader:
        return
    out = Console()
    for rank, res in enumerate(results):
        table = Table(
            f"batch size (rank {rank}, {res['host']})", "sampling seq/s", "train tokens/s"
        )
        for size in res["sampling_sequences_per_s"]:
            table.add_row(str(size), f"{res['sampling_sequences_per_s'][size]:.0f}",
                          f"{res['train_tokens_per_s'][size]:.0f}")  # fmt: skip
        out.print(table)
        out.print(f"peak: sampling at batch {res['sampling_batch_size']}, "
                  f"training at batch {res['train_batch_size']}")  # fmt: skip
    for res in results:  # one record per (host, model): each machine resolves `auto` to its own
        path = record(cfg, res)
    out.print(f"recorded in {path}: `grpo.sampling.batch_size = \"auto\"` now resolves to "
              f"{result['sampling_batch_size']} here")  # fmt: skip
