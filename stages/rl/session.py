"""What the pieces of an RL stage meet through: the run's context, this process's place in the
world (a world of one unless launched under `mlx.launch`), the live trainer, and the settings the
policies changed (`overrides`). One session per driver, kept in `ctx.workspace`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from stages.distributed import World
from stages.rl.tunables import with_settings
from stages.tasks.types import Task
from stages.training.config import GRPOConfig
from stages.training.types import TrainerState
from stages.types import StageContext

T = TypeVar("T")


@dataclass
class RLSession:
    ctx: StageContext
    world: World
    trainer: TrainerState | None = None
    # The tunables that live in the GRPO config, as the policies set them (stages/rl/tunables.py)
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def config(self) -> Any:
        return self.ctx.config

    @property
    def keyed(self) -> bool:
        """Split-invariant sampling (see stages/rl/sampling.py): on for distributed runs, and kept
        when one is resumed on fewer ranks, so the rollouts match the log."""
        return self.world.size > 1 or bool(self.config.distributed.enabled)

    def grpo_config(self) -> GRPOConfig:
        """The GRPO settings in force: the config's, with the policies' changes on top."""
        config = with_settings(self.config.grpo, self.overrides)
        return config.model_copy(update={"seed": self.config.seed})

    def prompts(self, tasks: Sequence[Task], step: int) -> list[Task]:
        """Step `step`'s prompts: the same on every rank, whatever the number of ranks."""
        from stages.training.sft import epoch_batches

        return epoch_batches(list(tasks), self.grpo_config().groups_per_batch, self.config.seed)(
            step
        )

    def on_leader(self, compute: Callable[[], T], what: str) -> T:
        """Rank 0 computes (a checkpoint write, an eval), every rank gets its JSON result."""
        return self.world.from_leader(compute, what)


def session_of(ctx: StageContext) -> RLSession:
    """This driver's session (the world the orchestrator put in the workspace, or one of one)."""
    if "rl_session" not in ctx.workspace:
        world = ctx.workspace.get("world") or World(None, ctx.config.distributed)
        ctx.workspace["rl_session"] = RLSession(ctx, world)
    session: RLSession = ctx.workspace["rl_session"]
    session.ctx = ctx  # a later stage's context (same workspace, fresh emit/state)
    return session
