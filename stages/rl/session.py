"""What the pieces of an RL stage meet through: the stage's context, and the run's services (this
process's place in the world, the live trainer, the split in force). The settings in force are
neither: they are a fold of the log (store/settings.py), read from the run's state at each step."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from stages.config import RunConfig
from stages.distributed import World
from stages.rl.sampling import keyed
from stages.rl.split import Split
from stages.services import RunServices
from stages.tasks.types import Task
from stages.training.config import GRPOConfig
from stages.training.sampling import Sampler, batched
from stages.training.types import TrainerState
from stages.types import StageContext
from store.projections import RunState
from store.settings import Settings

if TYPE_CHECKING:
    from stages.rl.async_sampler import AsyncRollouts

T = TypeVar("T")


@dataclass
class RLSession:
    ctx: StageContext

    @property
    def services(self) -> RunServices:
        return self.ctx.services

    @property
    def config(self) -> RunConfig:
        return self.ctx.config

    @property
    def world(self) -> World:
        return self.services.world

    @property
    def split(self) -> Split:
        return self.services.rl.split

    @property
    def trainer(self) -> TrainerState | None:
        return self.services.rl.trainer

    @trainer.setter
    def trainer(self, trainer: TrainerState | None) -> None:
        self.services.rl.trainer = trainer

    @property
    def keyed(self) -> bool:
        """Split-invariant sampling (see stages/rl/sampling.py): on for distributed runs, and kept
        when one is resumed on fewer ranks, so the rollouts match the log."""
        return self.world.size > 1 or bool(self.config.distributed.enabled)

    @property
    def sampler(self) -> Sampler:
        return keyed if self.keyed else batched

    def rollouts(self) -> AsyncRollouts:
        """The run's sampler process (`grpo.max_staleness` > 0), started on first use."""
        from stages.rl.async_sampler import AsyncRollouts

        rl = self.services.rl
        if rl.rollouts is None:
            rl.rollouts = AsyncRollouts(
                self.config.grpo.max_staleness, self.base_model_path(), self.config.model,
                self.config.seed, self.sampler,
            )  # fmt: skip
        return rl.rollouts

    def grpo_config(self) -> GRPOConfig:
        """The run's GRPO config, seeded by the run's seed. Its settings that a run changes while
        it trains are start values only: each step takes those in force (`settings`)."""
        return self.config.grpo.model_copy(update={"seed": self.config.seed})

    def settings(self, state: RunState | None = None) -> Settings:
        """The settings in force: the log's fold (`RunState.hyperparameters`, of the run now or
        of `state`). A setting a log from before it was recorded lacks is the config's."""
        state = state if state is not None else self.ctx.state()
        start = self.config.grpo.start_settings().values()
        return Settings.of({**start, **state.hyperparameters})

    def base_model_path(self) -> Path:
        return self.services.base_model_path(self.ctx.state().baseline_checkpoint)

    def prompts(self, tasks: Sequence[Task], step: int) -> list[Task]:
        """Step `step`'s prompts: the same on every rank, whatever the number of ranks."""
        from stages.training.sft import epoch_batches

        per_step = self.config.grpo.groups_per_batch
        return epoch_batches(list(tasks), per_step, self.config.seed)(step)

    def on_leader(self, compute: Callable[[], T], what: str) -> T:
        """Rank 0 computes (a checkpoint write, an eval), every rank gets its JSON result."""
        return self.world.from_leader(compute, what)


def session_of(ctx: StageContext) -> RLSession:
    """The RL session of this stage: its context over the driver's services."""
    return RLSession(ctx)
