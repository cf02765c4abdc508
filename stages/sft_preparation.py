"""Stage 1, SFT preparation: load the configured model, or build the embedded one and SFT it on
generated tasks; then record the baseline held-out verify rate and every capability benchmark.

The embedded model's teacher is imperfect on purpose (`teacher.noise = "forgets_carry"`): on
carry/borrow problems it is off by ten with some probability, drawn afresh each time a problem is
seen, so the SFT'd model puts mass on right and wrong answers and verifiable rewards can move it.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from stages.common import TaskSuite, base_model_path, evaluate, task_suite
from stages.config import TeacherConfig
from stages.progress import progress
from stages.tasks.types import Task
from stages.types import StageContext, StageError
from store.events import BaselineRecorded, SFTProgressed


def _teacher_answer(task: Task, teacher: TeacherConfig, rng: random.Random) -> str:
    if teacher.noise == "forgets_carry" and task.metadata.get("has_carry") and rng.random() < teacher.carry_error:
        # Off by ten: the carry (or borrow) that a careless teacher forgets.
        return str(int(task.answer) + (-10 if task.metadata.get("op") == "+" else 10))
    return task.answer or ""


def teacher_batches(
    suite: TaskSuite, teacher: TeacherConfig, batch_size: int, seed: int
) -> Callable[[int], list[tuple[str, str]]]:
    """SFT batches: the main skill through the (noisy) teacher, plus a share of capability skills."""
    from stages.training.sft import epoch_batches

    skills = [t for tasks in suite.capability_train.values() for t in tasks]
    n_skill = round(batch_size * teacher.capability_share) if skills else 0
    main = epoch_batches(suite.train, batch_size - n_skill, seed)
    side = epoch_batches(skills, n_skill, seed + 1) if n_skill else None

    def batch(step: int) -> list[tuple[str, str]]:
        rng = random.Random(f"teacher:{seed}:{step}")
        pairs = [(t.prompt, _teacher_answer(t, teacher, rng)) for t in main(step)]
        if side is not None:
            pairs += [(t.prompt, t.answer or "") for t in side(step)]
        return pairs

    return batch


class SFTPreparation:
    name = "sft_preparation"

    def run(self, ctx: StageContext) -> None:
        if ctx.state().baseline_seq is not None:
            return  # recorded before an interruption; the gate decides next
        from stages.training.checkpoint import save_model_to_blobs
        from stages.training.errors import TrainingError
        from stages.training.model import prepare_model
        from stages.training.sft import sft

        config = ctx.config
        suite = task_suite(ctx)
        try:
            model, tokenizer, path = prepare_model(config.model, ctx.run_dir / "base")
        except (TrainingError, OSError, ValueError) as e:
            raise StageError(f"cannot load model {config.model.model_name!r}: {e}") from e
        if config.model.model_name == "embedded":
            batches = teacher_batches(suite, config.teacher, config.sft.batch_size, config.sft.seed)
            with progress("SFT", config.sft.steps) as bar:
                last = [0]

                def report(p: dict) -> None:
                    ctx.emit([SFTProgressed(step=p["step"] + 1, loss=p["loss"], tokens_per_s=p["tokens_per_s"])])
                    bar.advance(p["step"] + 1 - last[0], loss=p["loss"])
                    last[0] = p["step"] + 1

                sft(model, tokenizer, batches, config.sft, on_progress=report)
        digest = save_model_to_blobs(model, path, ctx.blobs)
        ctx.workspace["base_model_path"] = path
        rate, capability, n = evaluate(ctx, model, tokenizer)
        ctx.emit([BaselineRecorded(verify_rate=rate, capability=capability, n_heldout=n, checkpoint=digest)])
        base_model_path(ctx)  # the recorded digest now resolves to this model
