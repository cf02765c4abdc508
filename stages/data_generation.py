"""Stage 4, verifiable data generation: estimate each training task's pass rate under the base
model with k samples and keep the tasks that can teach (min < pass rate < max: a task the model
always or never solves gives every sample the same reward, hence no gradient); report each task's
instruction-following difficulty and allow selecting by it; count coverage per category.

IFD (Li et al. 2023) = loss(answer | prompt) / loss(answer alone): near 1, the prompt does not help
the model produce the answer (hard to follow); near 0, the prompt makes the answer easy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from stages.common import sample_of, task_suite, verifier
from stages.progress import progress
from stages.tasks.types import Task
from stages.types import StageContext, StageError
from store.events import TrainingSetBuilt

_CHUNK = 64


def candidates(ctx: StageContext) -> list[Task]:
    """Training tasks minus those stage 2 found unverifiable, subsampled for pass-rate estimation."""
    dropped = ctx.workspace.get("dropped_task_ids")
    if dropped is None:
        from stages.task_design import verifiable_suite

        dropped = {d["task_id"] for d in verifiable_suite(ctx)[1]}
        ctx.workspace["dropped_task_ids"] = dropped
    train = [t for t in task_suite(ctx).train if t.task_id not in dropped]
    return sample_of(train, ctx.config.pipeline.pass_rate_tasks, ctx.config.seed)


def pass_rates(
    ctx: StageContext, model: Any, tokenizer: Any, tasks: Sequence[Task], seed: int
) -> dict[str, float]:
    """k sampled answers per task, verified in batches: task id -> share that passed."""
    from stages.training.sampling import sample_groups
    from stages.verifiers.registry import verify_tasks

    k = ctx.config.pipeline.pass_rate_samples
    sampling = ctx.config.grpo.sampling
    rates: dict[str, float] = {}
    with progress("pass rates", len(tasks)) as bar:
        for start in range(0, len(tasks), _CHUNK):
            chunk = list(tasks[start : start + _CHUNK])
            groups, _ = sample_groups(model, tokenizer, chunk, sampling, k, seed + start)
            texts = [r.text for g in groups for r in g.rollouts_N]
            verdicts = verify_tasks(verifier(ctx), [t for t in chunk for _ in range(k)], texts)
            for i, task in enumerate(chunk):
                rates[task.task_id] = sum(v.passed for v in verdicts[i * k : (i + 1) * k]) / k
            bar.advance(len(chunk))
    return rates


def ifd_scores(
    model: Any, tokenizer: Any, tasks: Sequence[Task], use_chat_template: bool
) -> dict[str, float]:
    from stages.training.logprobs import completion_logprobs
    from stages.training.model import encode_completion, encode_prompt

    scores = {}
    empty = encode_prompt(tokenizer, "", use_chat_template)
    for start in range(0, len(tasks), 256):
        chunk = tasks[start : start + 256]
        answers = [encode_completion(tokenizer, t.answer or "") for t in chunk]
        prompts = [encode_prompt(tokenizer, t.prompt, use_chat_template) for t in chunk]
        given = completion_logprobs(model, prompts, answers)
        alone = completion_logprobs(model, [empty or [0]] * len(chunk), answers)
        for task, g, a in zip(chunk, given, alone, strict=True):
            loss_given, loss_alone = -sum(g) / len(g), -sum(a) / len(a)
            scores[task.task_id] = loss_given / loss_alone if loss_alone > 0 else 1.0
    return scores


def select(
    ctx: StageContext, tasks: Sequence[Task], rates: dict[str, float], ifd: dict[str, float]
) -> tuple[list[Task], dict[str, int]]:
    pipe = ctx.config.pipeline
    kept, dropped = [], Counter()
    for task in tasks:
        rate = rates[task.task_id]
        if rate <= pipe.min_pass_rate:
            dropped["never_solved"] += 1
        elif rate >= pipe.max_pass_rate:
            dropped["always_solved"] += 1
        elif pipe.ifd_min is not None and ifd[task.task_id] < pipe.ifd_min:
            dropped["ifd_below_min"] += 1
        elif pipe.ifd_max is not None and ifd[task.task_id] > pipe.ifd_max:
            dropped["ifd_above_max"] += 1
        else:
            kept.append(task)
    return kept, dict(dropped)


def build_training_set(
    ctx: StageContext, model: Any, tokenizer: Any, seed: int
) -> TrainingSetBuilt:
    tasks = candidates(ctx)
    rates = pass_rates(ctx, model, tokenizer, tasks, seed)
    ifd = ifd_scores(model, tokenizer, tasks, ctx.config.grpo.sampling.use_chat_template)
    kept, dropped = select(ctx, tasks, rates, ifd)
    coverage = Counter(t.category or "uncategorised" for t in kept)
    return TrainingSetBuilt(
        n_candidates=len(tasks),
        n_kept=len(kept),
        coverage=dict(sorted(coverage.items())),
        pass_rates={t.task_id: rates[t.task_id] for t in kept},
        dropped={**dropped, "ifd_mean": round(sum(ifd.values()) / max(len(ifd), 1), 4)},
    )


def curriculum_of(ctx: StageContext, kept: dict[str, float]) -> list[Task]:
    """The training tasks a TrainingSetBuilt kept (its `pass_rates` keys), in task-id order."""
    by_id = task_suite(ctx).by_id()
    return [by_id[i] for i in sorted(kept)]


def curriculum(ctx: StageContext) -> list[Task]:
    """The tasks RL trains on now: those the latest TrainingSetBuilt kept."""
    result = ctx.state().stage_results.get("TrainingSetBuilt")
    if result is None:
        raise StageError("no training set has been built (stage 4 has not completed)")
    return curriculum_of(ctx, result["pass_rates"])


class DataGeneration:
    name = "data_generation"

    def run(self, ctx: StageContext) -> None:
        if "TrainingSetBuilt" in ctx.state().stage_results:
            return
        from stages.common import base_model_path
        from stages.training.model import load_model

        model, tokenizer = load_model(base_model_path(ctx))
        ctx.emit([build_training_set(ctx, model, tokenizer, seed=ctx.config.seed)])
