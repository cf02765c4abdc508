"""Stage 2, verifiable task design: a task is verifiable when its own reference passes its
verifier and a perturbed reference fails. Unverifiable tasks are dropped, each with its reason
(stages/curriculum.py checks them; stage 4 leaves them out of the training set)."""

from __future__ import annotations

from stages.curriculum import verifiable_suite
from stages.types import StageContext
from store.events import TasksDesigned


class TaskDesign:
    name = "task_design"

    def run(self, ctx: StageContext) -> None:
        if "TasksDesigned" in ctx.state().stage_results:
            return
        sample, dropped = verifiable_suite(ctx.services)
        ctx.emit(
            [
                TasksDesigned(
                    n_tasks=len(sample), n_verifiable=len(sample) - len(dropped), dropped=dropped
                )
            ]
        )
