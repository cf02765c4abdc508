"""The curriculum: which tasks RL trains on, and the helpers the stages that build and use it share
(stage 2 drops what cannot be verified, stage 4 builds the training set, stage 6 rebuilds it each
round, stages 5 and 6 and a resume read it back from the log).

Stage 4's filter: estimate each training task's pass rate under the model with k samples and keep
the tasks that can teach (min < pass rate < max: a task the model always or never solves gives
every sample the same reward, hence no gradient); report each task's instruction-following
difficulty and allow selecting by it; count coverage per category.

IFD (Li et al. 2023) = loss(answer | prompt) / loss(answer alone): near 1, the prompt does not help
the model produce the answer (hard to follow); near 0, the prompt makes the answer easy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from stages.common import sample_of
from stages.errors import StageError
from stages.progress import progress
from stages.services import RunServices
from stages.tasks.types import Task
from store.events import TrainingSetBuilt
from store.projections import RunState

_CHUNK = 64


def check_verifiability(checker: Any, tasks: Sequence[Task], seed: int) -> tuple[int, list[dict]]:
    """(verifiable count, dropped [{task_id, reason}]) over `tasks`, in one batch per check: a
    task is verifiable when its own reference passes its verifier and a perturbed one fails."""
    from stages.tasks.calibration import wrong_candidates
    from stages.tasks.references import reference_for
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


def verifiable_suite(services: RunServices) -> tuple[list[Task], list[dict]]:
    """Stage 2's checked sample and what it dropped (recomputed deterministically on resume)."""
    config = services.config
    suite = services.tasks
    sample = sample_of(
        suite.train + suite.heldout, config.pipeline.verifiability_sample, config.seed
    )
    _, dropped = check_verifiability(services.verifier(), sample, config.seed)
    services.dropped_task_ids = {d["task_id"] for d in dropped}
    return sample, dropped


def candidates(services: RunServices) -> list[Task]:
    """Training tasks minus those stage 2 found unverifiable, subsampled for pass-rate estimation."""
    if services.dropped_task_ids is None:
        verifiable_suite(services)
    dropped = services.dropped_task_ids or set()
    train = [t for t in services.tasks.train if t.task_id not in dropped]
    return sample_of(train, services.config.pipeline.pass_rate_tasks, services.config.seed)


def pass_rates(
    services: RunServices, model: Any, tokenizer: Any, tasks: Sequence[Task], seed: int
) -> dict[str, float]:
    """k sampled answers per task, verified in batches: task id -> share that passed."""
    from stages.tasks.references import verify_tasks
    from stages.training.sampling import batched, sample_groups

    k = services.config.pipeline.pass_rate_samples
    sampling = services.config.grpo.sampling
    rates: dict[str, float] = {}
    with progress("pass rates", len(tasks)) as bar:
        for start in range(0, len(tasks), _CHUNK):
            chunk = list(tasks[start : start + _CHUNK])
            sampler = batched(seed + start, sampling)
            groups, _ = sample_groups(model, tokenizer, chunk, sampling, k, sampler)
            texts = [r.text for g in groups for r in g.rollouts_N]
            verdicts = verify_tasks(
                services.verifier(), [t for t in chunk for _ in range(k)], texts
            )
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
    services: RunServices, tasks: Sequence[Task], rates: dict[str, float], ifd: dict[str, float]
) -> tuple[list[Task], dict[str, int]]:
    pipe = services.config.pipeline
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
    services: RunServices, model: Any, tokenizer: Any, seed: int
) -> TrainingSetBuilt:
    tasks = candidates(services)
    rates = pass_rates(services, model, tokenizer, tasks, seed)
    use_chat_template = services.config.grpo.sampling.use_chat_template
    ifd = ifd_scores(model, tokenizer, tasks, use_chat_template)
    kept, dropped = select(services, tasks, rates, ifd)
    coverage = Counter(t.category or "uncategorised" for t in kept)
    return TrainingSetBuilt(
        n_candidates=len(tasks),
        n_kept=len(kept),
        coverage=dict(sorted(coverage.items())),
        pass_rates={t.task_id: rates[t.task_id] for t in kept},
        dropped={**dropped, "ifd_mean": round(sum(ifd.values()) / max(len(ifd), 1), 4)},
    )


def curriculum_of(
    services: RunServices, kept: dict[str, float], seq: int | None = None
) -> list[Task]:
    """The training tasks a TrainingSetBuilt kept (its `pass_rates` keys), in task-id order. A
    kept id the task file does not hold is a `StageError` naming the row's seq (red team round
    16: a forged id reached the last-resort handler as a KeyError)."""
    by_id = services.tasks.by_id()
    missing = sorted(i for i in kept if i not in by_id)
    if missing:
        where = f" recorded at seq {seq}" if seq is not None else ""
        raise StageError(
            f"the training set{where} names task(s) the task file does not hold: "
            f"{', '.join(map(repr, missing[:5]))}{' ...' if len(missing) > 5 else ''} "
            "(the log or the task file was changed)"
        )
    return [by_id[i] for i in sorted(kept)]


def curriculum(services: RunServices, state: RunState) -> list[Task]:
    """The tasks RL trains on now: those the latest TrainingSetBuilt kept."""
    result = state.stage_results.get("TrainingSetBuilt")
    if result is None:
        raise StageError("no training set has been built (stage 4 has not completed)")
    return curriculum_of(services, result["pass_rates"], state.stage_seqs.get("TrainingSetBuilt"))
