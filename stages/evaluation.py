"""Stage 7, evaluation & monitoring: held-out verify rate and capability benchmarks of the final
model against the baseline. If the final model regressed on a benchmark, the best earlier
checkpoint whose evals kept every benchmark within the retention threshold is evaluated instead:
the run completes with the best checkpoint that passes, or fails with the gate's evidence."""

from __future__ import annotations

from stages.common import evaluate
from stages.rl_loop import RLLoop
from stages.types import StageContext
from store.events import EvalRecorded


def _retained(capability: dict[str, float], baseline: dict[str, float], threshold: float) -> bool:
    return all(capability.get(k, 0.0) >= threshold * v for k, v in baseline.items())


class Evaluation:
    name = "evaluation"

    def run(self, ctx: StageContext) -> None:
        state = ctx.state()
        threshold = ctx.config.gates.min_capability_retention
        loop = RLLoop(ctx)
        trainer = loop.trainer()
        rate, capability, _ = evaluate(ctx, trainer.model, trainer.tokenizer)
        final = state.latest_checkpoint.digest if state.latest_checkpoint and state.latest_checkpoint.step == trainer.step else None
        if final is None:
            final = loop.save(trainer)
        chosen = EvalRecorded(step=trainer.step, verify_rate=rate, capability=capability, checkpoint=final)
        if not _retained(capability, state.baseline_capability, threshold):
            passing = [
                e for e in state.evals
                if e.checkpoint and _retained(e.capability, state.baseline_capability, threshold)
            ]  # fmt: skip
            if passing:
                best = max(passing, key=lambda e: (e.verify_rate, e.step))
                chosen = EvalRecorded(
                    step=trainer.step, verify_rate=best.verify_rate, capability=best.capability,
                    checkpoint=best.checkpoint,
                )  # fmt: skip
        ctx.emit([chosen])
