"""Stage 2, verifiable task design: a task is verifiable when its own reference passes its
verifier and a perturbed reference fails. Unverifiable tasks are dropped, each with its reason."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stages.common import sample_of, verifier
from stages.tasks.types import Task
from stages.types import StageContext
from store.events import TasksDesigned


def check_verifiability(checker: Any, tasks: Sequence[Task], seed: int) -> tuple[int, list[dict]]:
    """(verifiable count, dropped [{task_id, reason}]) over `tasks`, in one batch per check."""
    from stages.verifiers.calibration import wrong_candidates
    from stages.verifiers.registry import reference_for
    from stages.verifiers.types import VerifierError

    dropped: list[dict] = []
    items, perturbed, owners = [], [], []
    for task in tasks:
        try:
            reference = reference_for(task)
        except VerifierError as e:
            dropped.append({"task_id": task.task_id, "reason": str(e)})
            continue
        wrong = [c for c in wrong_candidates(task, tasks, seed) if c.kind != "empty"]
        if not wrong:
            dropped.append(
                {"task_id": task.task_id, "reason": "no perturbation of its reference exists"}
            )
            continue
        owners.append(task)
        items.append((task.answer or "", reference))
        perturbed.append((wrong[0].text, reference))
    own = checker.verify_batch(items)
    other = checker.verify_batch(perturbed)
    for task, right, wrong, (text, _) in zip(owners, own, other, perturbed, strict=True):
        if not right.passed:
            dropped.append(
                {"task_id": task.task_id, "reason": f"its reference fails: {right.reason}"}
            )
        elif wrong.passed:
            dropped.append(
                {
                    "task_id": task.task_id,
                    "reason": f"perturbed reference {text!r} passes: {wrong.reason}",
                }
            )
    return len(tasks) - len(dropped), dropped


def verifiable_suite(ctx: StageContext) -> tuple[list[Task], list[dict]]:
    """The checked sample and what was dropped (recomputed deterministically on resume)."""
    from stages.common import task_suite

    suite = task_suite(ctx)
    sample = sample_of(
        suite.train + suite.heldout, ctx.config.pipeline.verifiability_sample, ctx.config.seed
    )
    _, dropped = check_verifiability(verifier(ctx), sample, ctx.config.seed)
    return sample, dropped


class TaskDesign:
    name = "task_design"

    def run(self, ctx: StageContext) -> None:
        if "TasksDesigned" in ctx.state().stage_results:
            return
        sample, dropped = verifiable_suite(ctx)
        ctx.workspace["dropped_task_ids"] = {d["task_id"] for d in dropped}
        ctx.emit(
            [
                TasksDesigned(
                    n_tasks=len(sample), n_verifiable=len(sample) - len(dropped), dropped=dropped
                )
            ]
        )
