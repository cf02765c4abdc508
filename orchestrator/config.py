"""Run configuration: pydantic models loaded from TOML, with `key=value` overrides.

Precedence: command line > TOML file > defaults. The resolved config and its hash are a run's
first event. Errors name the file, line and field at fault and suggest the closest known key.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import re
import tempfile
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from orchestrator.config_toml import read_toml, shape_problem
from orchestrator.errors import ConfigError
from policies.config import GateConfig, PolicyConfig
from policies.retention import CheckpointsConfig
from stages.config import ChaosConfig, DataConfig, PipelineConfig, TeacherConfig
from stages.distributed import DistributedConfig
from stages.training.config import GRPOConfig, ModelConfig, SFTConfig
from stages.verifiers.config import VerifierConfig
from store.run_ids import MAX_RUN_NAME, name_problem


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_name: str = Field(
        "run", description="Human name; the run id is this plus a timestamp and a short hash."
    )
    seed: int = Field(
        0,
        ge=0,
        le=2**63 - 1,
        description="Root seed: every step's randomness derives from (seed, step, attempt).",
    )
    log_path: str = Field(
        "runs", description="Directory holding run directories, blobs and the default SQLite store."
    )
    store: str | None = Field(
        None,
        description="Event store URL (postgresql://... for several machines); default: SQLite in log_path.",
    )
    eval_every: int = Field(
        10,
        ge=1,
        le=1_000_000,
        description="Evaluate held-out verify rate and capability benchmarks every N steps.",
    )
    save_every: int = Field(10, ge=1, le=1_000_000, description="Save a checkpoint every N steps.")
    lease_ttl_s: float = Field(
        30.0,
        gt=0,
        le=86_400,
        description="A driver's lease lasts this long unless renewed; a supervisor may take over after.",
    )
    tensorboard: bool = Field(
        False,
        description="Write TensorBoard event files to <log_path>/<run id>/tensorboard as the run goes "
        "(needs the tensorboard extra).",
    )
    wandb_project: str | None = Field(
        None,
        description="Log metrics to this Weights & Biases project as the run goes (the wandb extra; "
        "WANDB_MODE=offline keeps the run local).",
    )
    wandb_name: str | None = Field(
        None, description="Weights & Biases display name (default: the run id)."
    )
    model: ModelConfig = Field(
        default_factory=ModelConfig, description="The model: embedded or a path / repo id."
    )
    data: DataConfig = Field(
        default_factory=DataConfig, description="Tasks, split and capability benchmarks."
    )
    teacher: TeacherConfig = Field(
        default_factory=TeacherConfig, description="The embedded model's SFT data."
    )
    sft: SFTConfig = Field(
        default_factory=SFTConfig, description="Supervised fine-tuning (embedded model)."
    )
    grpo: GRPOConfig = Field(
        default_factory=GRPOConfig, description="GRPO and sampling hyper-parameters."
    )
    verifier: VerifierConfig | None = Field(
        None, description="Verifier settings with `kind`; default: the task family's verifier."
    )
    pipeline: PipelineConfig = Field(
        default_factory=PipelineConfig, description="How much of each stage's work."
    )
    gates: GateConfig = Field(default_factory=GateConfig, description="Stage gate thresholds.")
    policies: PolicyConfig = Field(
        default_factory=PolicyConfig, description="Recovery policies and their budgets."
    )
    chaos: ChaosConfig = Field(
        default_factory=ChaosConfig, description="Faults injected on purpose (demo, tests)."
    )
    distributed: DistributedConfig = Field(
        default_factory=DistributedConfig,
        description="Data-parallel RL across the ranks mlx.launch starts (split, calibration).",
    )
    checkpoints: CheckpointsConfig = Field(
        default_factory=CheckpointsConfig,
        description="Checkpoint retention (keep_last) and the run's checkpoint disk budget.",
    )

    @field_validator("run_name")
    @classmethod
    def _run_name_is_a_name(cls, name: str) -> str:
        # It heads the run id, which names a directory under log_path.
        problem = name_problem(name, MAX_RUN_NAME)
        if problem is not None:
            raise ValueError(f"not usable as a run name ({problem})")
        return name

    @model_validator(mode="after")
    def _grpo_options_fit_the_run(self) -> RunConfig:
        from stages.rl.rewards import check_weights
        from stages.tasks.families import family

        try:
            check_weights(self.grpo.reward_weights, family(self.data.task_family))
        except ValueError as e:
            raise _field_error(("grpo", "reward_weights"), self.grpo.reward_weights, str(e)) from e
        if self.grpo.dynamic_sampling and self.distributed.enabled:
            raise _field_error(("grpo", "dynamic_sampling"), True,
                               "not supported across ranks (distributed.enabled)")  # fmt: skip
        if self.grpo.max_staleness and self.distributed.enabled:
            # Each rank would need its own sampler process and version ring: not built.
            raise _field_error(("grpo", "max_staleness"), self.grpo.max_staleness,
                               "asynchronous rollouts are not supported across ranks "
                               "(distributed.enabled): set grpo.max_staleness = 0")  # fmt: skip
        return self


def _field_error(loc: tuple[str, ...], value: Any, message: str) -> ValidationError:
    """A cross-section check's error located at its field, so it names the field and its value."""
    return ValidationError.from_exception_data(
        "RunConfig",
        [{"type": PydanticCustomError("run_config", message), "loc": loc, "input": value}],
    )


# Sections whose shape depends on a discriminator (verifier.kind): checked when validated.
_FREE_SECTIONS = ("verifier",)


def _leaf_paths(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = []
    for name, info in model.model_fields.items():
        path = (*prefix, name)
        paths.append(path)
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            paths.extend(_leaf_paths(annotation, path))
    return paths


def known_keys() -> list[str]:
    return [".".join(p) for p in _leaf_paths(RunConfig)]


def _closest(key: str) -> str:
    keys = known_keys()
    leaf = {k.rsplit(".", 1)[-1]: k for k in keys}
    match = difflib.get_close_matches(key, keys, n=1, cutoff=0.6) or [
        leaf[m]
        for m in difflib.get_close_matches(key.rsplit(".", 1)[-1], list(leaf), n=1, cutoff=0.6)
    ]
    return f" (did you mean {match[0]!r}?)" if match else ""


def line_of(text: str, path: tuple[str, ...]) -> int | None:
    """Best-effort line number of a dotted key in TOML text (tables and dotted keys)."""
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r"^\[([^\[\]]+)\]", stripped)
        if header:
            table = tuple(part.strip().strip('"') for part in header.group(1).split("."))
            continue
        assign = re.match(r"^([A-Za-z0-9_.\"-]+)\s*=", stripped)
        if assign:
            key = tuple(part.strip().strip('"') for part in assign.group(1).split("."))
            # `[rl]` then `learning_rate = ...`, or a dotted `rl.learning_rate = ...`
            if (*table, *key) == path:
                return number
    return None


def _resolve_override_key(key: str) -> tuple[str, ...]:
    """`section.field` as given, or a bare field name that is unique across sections."""
    if key in known_keys() or key.split(".", 1)[0] in _FREE_SECTIONS:
        return tuple(key.split("."))
    matches = [k for k in known_keys() if k.rsplit(".", 1)[-1] == key]
    # The tinker-cookbook names (learning_rate, temperature, ...) are RL settings: GRPO wins a tie.
    preferred = [k for k in matches if k.startswith("grpo.")]
    if len(matches) > 1 and len(preferred) == 1:
        matches = preferred
    if len(matches) == 1:
        return tuple(matches[0].split("."))
    if len(matches) > 1:
        raise ConfigError(f"override {key!r} is ambiguous: use one of {', '.join(matches)}")
    raise ConfigError(f"unknown config key {key!r} on the command line{_closest(key)}")


def _parse_value(raw: str) -> Any:
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw  # a bare word such as `model_name=embedded` is a string
    except ValueError as e:  # an integer past Python's 4,300-digit conversion limit
        raise ConfigError(f"command line: {raw[:40]}...: {e}") from e
    except RecursionError as e:
        raise ConfigError(f"command line: {raw[:40]}...: nested too deeply") from e


def override_path(item: str) -> tuple[str, ...]:
    """The config path a `key=value` override sets; ConfigError when it is not one."""
    key, sep, _ = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"override {item!r}: expected key=value")
    return _resolve_override_key(key.strip())


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    for item in overrides:
        path, raw = override_path(item), item.partition("=")[2]
        node = data
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"override {item!r}: {part!r} is not a section")
        node[path[-1]] = _parse_value(raw.strip())
    return data


def _describe(error: dict[str, Any], source: str, text: str | None) -> str:
    path = tuple(str(p) for p in error["loc"])
    dotted = ".".join(path)
    line = line_of(text, path) if text else None
    where = f"{source}:{line}" if line else source
    if error["type"] == "extra_forbidden":
        return f"{where}: unknown config key {dotted!r}{_closest(dotted)}"
    return f"{where}: {dotted}: {error['msg']} (got {error.get('input')!r})"


def non_finite(data: Any, path: tuple[str, ...] = ()) -> tuple[tuple[str, ...], float] | None:
    """The first inf/nan anywhere in the data, whichever section (a free one too) holds it."""
    if isinstance(data, float) and not math.isfinite(data):
        return path, data
    children = (
        data.items()
        if isinstance(data, dict)
        else enumerate(data)
        if isinstance(data, list)
        else ()
    )
    for key, value in children:
        found = non_finite(value, (*path, str(key)))
        if found is not None:
            return found
    return None


def validate_config(
    data: dict[str, Any],
    *,
    source: str = "<defaults>",
    text: str | None = None,
    overridden: Sequence[tuple[str, ...]] = (),
    overrides_source: str = "command line",
) -> RunConfig:
    """Validate resolved config data, strictly: finite numbers only (JSON would log inf as null,
    and the run could never be resumed), no string->int or bool->int coercion, every bound and
    min < max pair checked. A fault set by an override is blamed on `overrides_source`, one from
    the file on `source` and its line."""

    def where(loc: tuple[str, ...]) -> tuple[str, str | None]:
        if any(loc[: len(p)] == p or p[: len(loc)] == loc for p in overridden):
            return overrides_source, None
        return source, text

    bad = non_finite(data)
    if bad is not None:
        loc, value = bad
        origin, origin_text = where(loc)
        line = line_of(origin_text, loc) if origin_text else None
        at = f"{origin}:{line}" if line else origin
        raise ConfigError(f"{at}: {'.'.join(loc)}: must be a finite number (got {value!r})")
    try:
        return RunConfig.model_validate(data, strict=True)
    except ValidationError as e:
        first = e.errors()[0]
        loc = tuple(str(p) for p in first["loc"])
        raise ConfigError(_describe(first, *where(loc))) from e


def override_paths(overrides: Sequence[str]) -> list[tuple[str, ...]]:
    """The config paths a list of `key=value` overrides sets."""
    return [_resolve_override_key(item.partition("=")[0].strip()) for item in overrides]


def load_config(path: Path | str | None, overrides: list[str] | None = None) -> RunConfig:
    """Read TOML (if given), apply overrides, validate; `ConfigError` names what is at fault."""
    text: str | None = None
    data: dict[str, Any] = {}
    source = "<defaults>"
    if path is not None:
        path = Path(path)
        source = str(path)
        if not path.is_file():  # a FIFO or a folder is there, but is not a file to read
            raise ConfigError(
                f"{path}: " + ("not a regular file" if path.exists() else "no such config file")
            )
        text, data = read_toml(path)
    overrides = overrides or []
    data = apply_overrides(data, overrides)
    problem = shape_problem(data) if overrides else None  # read_toml checked the file's data
    if problem is not None:  # an override's TOML value may hold a NUL ("\\u0000") too
        raise ConfigError(f"{source}: {problem}")
    return validate_config(data, source=source, text=text, overridden=override_paths(overrides))


def check_data(config: RunConfig) -> None:
    """Parse the task file in full before anything is written: a bad row, or one too long for
    the limits or the model's context, is a ConfigError naming the file, line and field, never a
    run that starts and then fails (or crashes mlx)."""
    from stages.services import check_task_file  # the task families: only when a run starts

    try:
        check_task_file(config)
    except ValueError as e:  # TaskFormatError (file, line, field) or a bad generator spec
        message = str(e)
        raise ConfigError(
            message if config.data.data_path in message else f"data.data_path: {message}"
        ) from e


def check_log_path(config: RunConfig) -> None:
    """`log_path` is a folder this process can write (run directories, blobs, the default store
    go there): a `ConfigError` naming it now, not a traceback once the run has started."""
    folder = Path(config.log_path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-check-"):
            pass
    except OSError as e:
        raise ConfigError(
            f"log_path: cannot write to {config.log_path!r}: {e.strerror or e}"
            + (f" ({e.filename})" if e.filename and str(e.filename) != config.log_path else "")
        ) from e


def run_store(store: str | None, config: RunConfig) -> str:
    """Where a new run's log goes: `--store` / RLVR_STORE, else the config's `store`, else a SQLite
    file in `log_path`."""
    return str(store or config.store or Path(config.log_path) / "events.db")


def config_hash(config: RunConfig) -> str:
    canonical = json.dumps(config.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()
