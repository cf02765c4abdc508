"""Stage 4, verifiable data generation: the training set RL starts on, built from the base model's
pass rates and each task's instruction-following difficulty (stages/curriculum.py says how)."""

from __future__ import annotations

from stages.curriculum import build_training_set
from stages.types import StageContext


class DataGeneration:
    name = "data_generation"

    def run(self, ctx: StageContext) -> None:
        if "TrainingSetBuilt" in ctx.state().stage_results:
            return
        from stages.training.model import load_model

        services = ctx.services
        model, tokenizer = load_model(services.base_model_path(ctx.state().baseline_checkpoint))
        ctx.emit([build_training_set(services, model, tokenizer, seed=ctx.config.seed)])
