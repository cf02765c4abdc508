"""Stage 7, evaluation & monitoring: held-out verify rate and capability benchmarks of the final
model against the baseline. If the final model regressed on a benchmark, the best earlier
checkpoint whose evals kept every benchmark within the retention threshold is evaluated instead:
the run completes with the best checkpoint that passes, or fails with the gate's evidence."""

from __future__ import annotations

from stages.common import evaluate
from stages.rl.loop import RLLoop
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
        rate, capability, _ = evaluate(ctx.services, trainer.model, trainer.tokenizer)
        latest = state.latest_checkpoint
        final = latest.digest if latest and latest.step == trainer.step else loop.save()
        candidates = [
            EvalRecorded(
                step=trainer.step, verify_rate=rate, capability=capability, checkpoint=final
            )
        ]
        # Earlier checkpoints were evaluated when they were saved (same weights, same batch).
        candidates += [
            EvalRecorded(step=e.step, verify_rate=e.verify_rate, capability=e.capability, checkpoint=e.checkpoint)
            for e in state.evals
            if e.checkpoint and e.step > 0
        ]  # fmt: skip
        passing = [
            c for c in candidates if _retained(c.capability, state.baseline_capability, threshold)
        ]
        # The best held-out verify rate among checkpoints that keep every benchmark; the final
        # model (first) wins ties. With none passing, the final model goes to the gate to fail it.
        chosen = max(passing, key=lambda c: c.verify_rate) if passing else candidates[0]
        ctx.emit([chosen])
