"""Stage 1, SFT preparation: load the configured model, or build the embedded one and SFT it on
generated tasks; then record the baseline held-out verify rate and every capability benchmark.

The embedded model's teacher is imperfect on purpose (`teacher.noise = "forgets_carry"`): on
carry/borrow problems it is off by ten (fractions: on improper sums it adds the denominators too)
with some probability, drawn afresh each time a problem is seen, so the SFT'd model puts mass on
right and wrong answers and verifiable rewards can move it.
`other_answer` does the same for any task family: a share of labels are other tasks' answers.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from stages.common import evaluate
from stages.config import TeacherConfig
from stages.progress import progress
from stages.services import TaskSuite
from stages.tasks.types import Task
from stages.types import StageContext, StageError, StageInterrupted
from store.events import BaselineRecorded, Event, SFTCompleted


def _teacher_answer(
    task: Task, teacher: TeacherConfig, rng: random.Random, others: list[str]
) -> str:
    if teacher.noise == "other_answer" and others and rng.random() < teacher.wrong_share:
        # A confident wrong answer: another task's (any family; the label is still well formed).
        return rng.choice(others)
    if (
        teacher.noise == "forgets_carry"
        and task.metadata.get("has_carry")
        and rng.random() < teacher.carry_error
    ):
        # The family's own systematic mistake (fractions: adding the denominators too), else off
        # by ten: the carry (or borrow) that a careless teacher forgets.
        if "teacher_mistake" in task.metadata:
            return str(task.metadata["teacher_mistake"])
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
    others = sorted({t.answer for t in suite.train if t.answer})

    def batch(step: int) -> list[tuple[str, str]]:
        rng = random.Random(f"teacher:{seed}:{step}")
        pairs = [(t.prompt, _teacher_answer(t, teacher, rng, others)) for t in main(step)]
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
        from stages.training.errors import CheckpointWriteError, TrainingError, TrainingInterrupted
        from stages.training.model import prepare_model
        from stages.training.sft import sft

        config = ctx.config
        suite = ctx.services.tasks
        try:
            model, tokenizer, path = prepare_model(config.model, ctx.run_dir / "base")
        except (TrainingError, OSError, ValueError) as e:
            raise StageError(f"cannot load model {config.model.model_name!r}: {e}") from e
        done: list[Event] = []
        if config.model.model_name == "embedded":
            batches = teacher_batches(suite, config.teacher, config.sft.batch_size, config.sft.seed)
            curve: list[list[float]] = []
            with progress("SFT", config.sft.steps) as bar:

                def report(p: dict) -> None:
                    bar.advance(p["step"] + 1 - (int(curve[-1][0]) if curve else 0), loss=p["loss"])
                    curve.append([float(p["step"] + 1), p["loss"]])
                    report.last = p  # type: ignore[attr-defined]

                try:
                    sft(model, tokenizer, batches, config.sft, on_progress=report,
                        should_stop=ctx.should_stop)  # fmt: skip
                except TrainingInterrupted as e:
                    # Nothing of stage 1 is logged yet: a resume runs it again from the start.
                    # The pause's reason is the driver's (SIGTERM, lease lost), as in the RL loop.
                    raise StageInterrupted from e
            last = getattr(report, "last", {})
            done.append(
                SFTCompleted(
                    steps=config.sft.steps, losses=curve, tokens_per_s=last.get("tokens_per_s", 0.0),
                    seconds=last.get("elapsed_s", 0.0),
                )
            )  # fmt: skip
        try:
            digest = save_model_to_blobs(model, path, ctx.blobs)
        except CheckpointWriteError as e:  # a full disk: pause; a resume runs stage 1 again
            raise StageInterrupted(f"the SFT'd model was not saved: {e}") from e
        rate, capability, n = evaluate(ctx.services, model, tokenizer)
        baseline = BaselineRecorded(
            verify_rate=rate, capability=capability, n_heldout=n, checkpoint=digest
        )
        ctx.emit([*done, baseline])
        ctx.services.base_model_path(digest)  # materialise the SFT'd model that RL starts from
