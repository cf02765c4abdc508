"""The settings a run may change while it trains: their one vocabulary, and the values in force.

Each setting has one name everywhere (`RunStarted.hyperparameters`, `HyperparametersChanged`,
the policies' decisions, the step's arguments), a type, and the metric each step logs it under.
The values in force are a fold of the log: `RunStarted.hyperparameters` (the config's start
values), then every `HyperparametersChanged` in log order (`RunState.hyperparameters`). Nothing
else keeps them: not the trainer, not a checkpoint. The step takes them as an argument.

The learning rate is the one whose metric has another name: `learning_rate` is the base rate the
policies scale, `learning_rate_scheduled` the rate the step applied (the base times the schedule's
multiplier). Where each starts in the run's config is the training config's business
(stages/training/config.py), who changes it the policies' (README's table).
"""

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from store.errors import StoreError


@dataclass(frozen=True)
class Settings:
    """The values in force of every setting a run may change while it trains."""

    learning_rate: float
    kl_penalty_coef: float
    temperature: float
    entropy_coef: float
    group_size: int
    micro_batches: int

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> "Settings":
        """From a mapping by name (`RunState.hyperparameters`), each value read as its type.
        StoreError naming the setting when one is missing or not a number."""
        out = {}
        for setting in SETTINGS:
            if setting.name not in values:
                raise StoreError(f"no value in force for setting {setting.name!r}")
            out[setting.name] = _typed(setting, values[setting.name])
        return cls(**out)

    def changed(self, changes: Mapping[str, Any]) -> "Settings":
        """These settings with `changes` (a `HyperparametersChanged`'s) in force; names that are
        not settings are left out."""
        known = {s.name: s for s in SETTINGS}
        update = {k: _typed(known[k], v) for k, v in changes.items() if k in known}
        return Settings(**{**asdict(self), **update})

    def values(self) -> dict[str, float | int]:
        return asdict(self)

    def metrics(self) -> dict[str, float]:
        """Each setting logged under its own name. The learning rate is not among them: the step
        logs the rate it applied (`learning_rate_scheduled`), which only the update knows."""
        return {s.metric: float(getattr(self, s.name)) for s in SETTINGS if s.metric == s.name}


def _typed(setting: "Setting", value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StoreError(f"setting {setting.name!r}: expected a number, got {value!r}")
    return setting.type(value)


@dataclass(frozen=True)
class Setting:
    name: str
    type: type
    metric: str  # what each step's `MetricsRecorded` calls the value it ran with
    description: str


_METRICS = {"learning_rate": "learning_rate_scheduled"}
_DESCRIPTIONS = {
    "learning_rate": "base AdamW learning rate (the schedule multiplies it)",
    "kl_penalty_coef": "weight of the KL penalty to the reference in the loss",
    "temperature": "sampling temperature of the rollouts",
    "entropy_coef": "weight of the entropy bonus in the loss",
    "group_size": "completions sampled per prompt",
    "micro_batches": "slices each update's batch is split into (same effective batch)",
}
SETTINGS: tuple[Setting, ...] = tuple(
    Setting(f.name, f.type, _METRICS.get(f.name, f.name), _DESCRIPTIONS[f.name])  # type: ignore[arg-type]
    for f in fields(Settings)
)
BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}
