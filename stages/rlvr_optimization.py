"""Stage 5, RLVR optimization: the GRPO loop over the stage-4 curriculum for `pipeline.rl_steps`
steps (see stages/rl/loop.py). Its gates then check KL <= max and a held-out gain."""

from __future__ import annotations

from stages.curriculum import curriculum
from stages.rl.loop import RLLoop
from stages.types import StageContext


class RLVROptimization:
    name = "rlvr_optimization"

    def run(self, ctx: StageContext) -> None:
        tasks = curriculum(ctx.services, ctx.state())
        RLLoop(ctx).run(tasks, until_step=ctx.config.pipeline.rl_steps)
