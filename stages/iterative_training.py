"""Stage 6, iterative training: further rounds, each re-filtering the curriculum with the current
model (tasks it now always solves stop teaching) and continuing GRPO. A round that does not raise
the held-out verify rate stops the stage early; the gate then judges the rounds as a whole."""

from __future__ import annotations

import structlog

from stages.curriculum import build_training_set, curriculum
from stages.rl.loop import RLLoop
from stages.types import StageContext
from store.events import TrainingStoppedEarly

log_ = structlog.get_logger("rlvr.iterative")


class IterativeTraining:
    name = "iterative_training"

    def run(self, ctx: StageContext) -> None:
        pipe = ctx.config.pipeline
        loop = RLLoop(ctx)
        trainer = loop.trainer()
        previous = ctx.state().last_eval.get("verify_rate")
        for round_ in range(1, pipe.rounds + 1):
            end = pipe.rl_steps + round_ * pipe.round_steps
            if trainer.step >= end:
                previous = ctx.state().last_eval.get("verify_rate")
                continue
            built = ctx.state().stage_results.get("TrainingSetBuilt", {})
            if built.get("round", 0) != round_:
                event = build_training_set(
                    ctx.services, trainer.model, trainer.tokenizer, seed=ctx.config.seed + round_
                )
                ctx.emit([event.model_copy(update={"round": round_})])
            tasks = curriculum(ctx.services, ctx.state())
            if not tasks:
                log_.warning(
                    "curriculum is empty: the model solves every task it can learn from",
                    round=round_,
                )
                break
            loop.run(tasks, until_step=end)
            current = ctx.state().last_eval.get("verify_rate")
            if previous is not None and current is not None and current <= previous:
                log_.warning(
                    "round did not improve: stopping early", round=round_, verify_rate=current
                )
                ctx.emit(
                    [TrainingStoppedEarly(round=round_, verify_rate=current, previous=previous)]
                )
                break
            previous = current
