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
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from orchestrator.errors import ConfigError
from store.text_files import read_utf8, refuse_json_constant, write_replacing

if TYPE_CHECKING:  # the config (pydantic, every stage's settings) loads only when a command runs
    from orchestrator.config import RunConfig

DEFAULT_SIZES = "8,16,32,64,128,256,512"
_KEY = "grpo.sampling.batch_size"


def measure(
    config: RunConfig, sizes: list[int], repeats: int = 2, *, launched: bool = True
) -> tuple[list[dict[str, Any]], int]:
    """Every rank's figures (`stages/rl/throughput.py`) and this rank's number, measured on the
    services of a run of `config`: its task suite, on the world `mlx.launch` started this process
    in (`launched=False`: this process alone, as a run resolving `batch_size = "auto"` measures
    only where no record is found, which may differ from host to host)."""
    from orchestrator.driver.distributed import launched_world
    from stages.rl.throughput import over_batch_sizes
    from stages.services import RunServices

    world = launched_world(config.distributed) if launched else None
    services = RunServices.for_calibration(config, world)
    result = over_batch_sizes(config, services.tasks.train, sizes, repeats)
    return services.world.gather_json(result, "calibration", None), services.world.rank


def _records_path(config: RunConfig) -> Path:
    return Path(config.log_path) / "calibration.json"


def record(config: RunConfig, result: dict[str, Any]) -> Path:
    path = _records_path(config)
    records = _records(path)
    records = [r for r in records if (r["host"], r["model"]) != (result["host"], result["model"])]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_replacing(path, json.dumps([*records, result], indent=1))
    return path


def _records(path: Path) -> list[dict[str, Any]]:
    """The calibration records of `path` ([] when there are none yet); `ConfigError` naming it
    when it is not a regular file or not a list of records."""
    try:
        records = json.loads(read_utf8(path), parse_constant=refuse_json_constant)
    except FileNotFoundError:
        return []
    except (OSError, ValueError, RecursionError) as e:
        raise ConfigError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from e
    if not isinstance(records, list) or not all(
        isinstance(r, dict) and {"host", "model"} <= r.keys() for r in records
    ):
        raise ConfigError(f"{path}: not a list of calibration records")
    return records


def auto_overrides(config_path: Path | None, overrides: list[str]) -> list[str]:
    """`overrides`, plus the resolved `grpo.sampling.batch_size=N` when the config says auto."""
    raw: Any = None
    try:
        # A FIFO or a folder is load_config's to refuse (read_utf8 never blocks on one).
        data = tomllib.loads(read_utf8(Path(config_path))) if config_path else {}
    except (OSError, ValueError, RecursionError):  # UnicodeDecodeError and TOMLDecodeError too
        return overrides  # load_config reports what is wrong with the file
    grpo = data.get("grpo")
    sampling = grpo.get("sampling") if isinstance(grpo, dict) else None
    raw = sampling.get("batch_size") if isinstance(sampling, dict) else None  # else: load_config
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
    from stages.rl.throughput import model_shape

    config = load_config(config_path, [*kept, f"{_KEY}=512"])
    shape = model_shape(config)
    path = _records_path(config)
    records = _records(path)
    found = next((r for r in records if (r["host"], r["model"]) == (socket.gethostname(), shape)), None)  # fmt: skip
    if found is None:
        sizes = [int(s) for s in DEFAULT_SIZES.split(",")]
        (found,), _ = measure(config, sizes, repeats=1, launched=False)
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

    cfg = load_config(config, [o for o in overrides or [] if not o.endswith("=auto")])
    results, rank = measure(cfg, [int(s) for s in sizes.split(",") if s.strip()], repeats)
    if rank != 0:
        return  # rank 0 prints and records every rank's
    result = results[0]
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
