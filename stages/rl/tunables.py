"""Every setting a run may change while it trains, once: its one name (in the config's leaf, the
trainer, `HyperparametersChanged`, `CheckpointSaved.hyperparameters` and the policies' decisions),
its type, where it lives in the config, who changes it, and the metric each step logs it under.

The learning rate is the one whose metric has another name: `learning_rate` is the base
hyper-parameter the policies scale, `learning_rate_scheduled` the rate the step applied (the base
times the schedule's multiplier). Old logs and checkpoints that said `kl_coef` (and
`learning_rate` for the scheduled rate) are read through `store.upcasters` and
`stages.training.checkpoint`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from stages.training.config import GRPOConfig


@dataclass(frozen=True)
class Tunable:
    name: str
    type: type
    # Where the live value is kept: on the trainer (`TrainerState.<name>`), or as an override of
    # the GRPO config the next step is built from.
    lives_on: Literal["trainer", "grpo config"]
    config: str  # the config key of its starting value
    changed_by: str
    metric: str


TUNABLES: tuple[Tunable, ...] = (
    Tunable("learning_rate", float, "trainer", "grpo.learning_rate",
            "policies kl, rollback; chaos", "learning_rate_scheduled"),
    Tunable("kl_penalty_coef", float, "trainer", "grpo.kl_penalty_coef",
            "policies kl, rollback", "kl_penalty_coef"),
    Tunable("temperature", float, "grpo config", "grpo.sampling.temperature",
            "policy entropy; chaos", "temperature"),
    Tunable("entropy_coef", float, "grpo config", "grpo.entropy_coef", "policy entropy",
            "entropy_coef"),
    Tunable("group_size", int, "grpo config", "grpo.group_size", "policy entropy", "group_size"),
    Tunable("micro_batches", int, "grpo config", "grpo.micro_batches",
            "policy faults (out of memory)", "micro_batches"),
)  # fmt: skip
BY_NAME = {t.name: t for t in TUNABLES}


def with_settings(config: GRPOConfig, overrides: dict[str, Any]) -> GRPOConfig:
    """`config` with the config-held tunables in `overrides` set (the others are the trainer's)."""
    for name, value in overrides.items():
        tunable = BY_NAME.get(name)
        if tunable is not None and tunable.lives_on == "grpo config":
            config = _replaced(config, tunable.config.split(".")[1:], value)
    return config


def _replaced(model: BaseModel, path: list[str], value: Any) -> Any:
    """`model` with the field at `path` (e.g. ["sampling", "temperature"]) set to `value`."""
    head, *rest = path
    new = value if not rest else _replaced(getattr(model, head), rest, value)
    return model.model_copy(update={head: new})


def setting(config: GRPOConfig, name: str) -> Any:
    """A tunable's value in `config` (the GRPO config in force; for a trainer-held one, the value
    the trainer starts from)."""
    value: Any = config
    for part in BY_NAME[name].config.split(".")[1:]:
        value = getattr(value, part)
    return value


def start_values(config: GRPOConfig) -> dict[str, Any]:
    """Every tunable as `config` starts it: `RunStarted.hyperparameters`."""
    return {t.name: setting(config, t.name) for t in TUNABLES}


def table_markdown() -> str:
    """The table as the README shows it."""
    rows = [
        "| setting | type | config | changed by | step metric |",
        "| --- | --- | --- | --- | --- |",
    ]
    for t in TUNABLES:
        rows.append(
            f"| `{t.name}` | {t.type.__name__} | `{t.config}` | {t.changed_by} | `{t.metric}` |"
        )
    return "\n".join(rows)
