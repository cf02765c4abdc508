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
        # The rate round 1 must beat: the one stage 5's gate accepted (the latest eval when the
        # stage started), read from the log so that a resume inside the stage compares as the
        # uninterrupted run did; a later round's, the eval at the end of the round before.
        previous = _stage_start_rate(ctx)
        for round_ in range(1, pipe.rounds + 1):
            end = pipe.rl_steps + round_ * pipe.round_steps
            if trainer.step > end:  # a later round's steps are logged: this round is history
                previous = _rate_at(ctx, end, previous)
                continue
            if trainer.step < end:
                tasks = self._round_tasks(ctx, trainer, round_)
                if not tasks:
                    log_.warning(
                        "curriculum is empty: the model solves every task it can learn from",
                        round=round_,
                    )
                    break
                loop.run(tasks, until_step=end)
            else:
                # Resumed at the round's last step: the checkpoint and eval a cut left owed, once.
                loop.run((), until_step=end)
            current = ctx.state().last_eval.get("verify_rate")
            if previous is not None and current is not None and current <= previous:
                self._stop_early(ctx, round_, current, previous)
                break
            previous = current

    @staticmethod
    def _round_tasks(ctx: StageContext, trainer, round_: int):  # noqa: ANN001, ANN205
        built = ctx.state().stage_results.get("TrainingSetBuilt", {})
        if built.get("round", 0) != round_:
            event = build_training_set(
                ctx.services, trainer.model, trainer.tokenizer, seed=ctx.config.seed + round_
            )
            ctx.emit([event.model_copy(update={"round": round_})])
        return curriculum(ctx.services, ctx.state())

    @staticmethod
    def _stop_early(ctx: StageContext, round_: int, current: float, previous: float) -> None:
        log_.warning("round did not improve: stopping early", round=round_, verify_rate=current)
        if ctx.state().stage_results.get("TrainingStoppedEarly", {}).get("round") == round_:
            return  # logged before the cut this run resumed from
        ctx.emit([TrainingStoppedEarly(round=round_, verify_rate=current, previous=previous)])


def _stage_start_rate(ctx: StageContext) -> float | None:
    state = ctx.state()
    gate = state.gates.get("verify_rate_improving")
    if gate is not None and gate.stage == "rlvr_optimization":
        return gate.value
    return state.last_eval.get("verify_rate")


def _rate_at(ctx: StageContext, step: int, default: float | None = None) -> float | None:
    """The verify rate of the last eval logged at `step`, else the latest eval's (or `default`)."""
    state = ctx.state()
    at_step = [ref.verify_rate for ref in state.evals if ref.step == step]
    if at_step:
        return at_step[-1]
    return state.last_eval.get("verify_rate", default)
