"""What the stages share within one driver: the task suite, the verifier, the SFT'd base model and
the evaluator. Everything is rebuilt from plain config, the folded log and the blob store, and
cached in `ctx.workspace`, so a resumed driver reconstructs exactly what the crashed one had."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stages.config import DataConfig
from stages.tasks.families import FAMILIES
from stages.tasks.generators import generate_reversal, split_tasks
from stages.tasks.loaders import load_tasks
from stages.tasks.types import Task, TaskFormatError
from stages.types import StageContext, StageError


@dataclass(frozen=True)
class TaskSuite:
    train: list[Task]
    heldout: list[Task]
    capability_train: dict[str, list[Task]]
    capability_heldout: dict[str, list[Task]]

    def by_id(self) -> dict[str, Task]:
        return {t.task_id: t for t in self.train}


def load_task_file(data: DataConfig) -> list[Task] | None:
    """The tasks of `data.data_path`, every row parsed (None when the tasks are generated). The
    CLI calls this before a run starts, so a bad file is an `error:` line, not a failed run.
    Raises TaskFormatError naming the file, line and field; ValueError for a bad spec."""
    if not data.data_path:
        return None
    family = FAMILIES[data.task_family]
    # A family without a file format (arithmetic) takes a file of whatever family it holds.
    return load_tasks(data.data_path, family.name if family.file_format else None)


def task_suite(ctx: StageContext) -> TaskSuite:
    if "tasks" in ctx.workspace:
        return ctx.workspace["tasks"]
    data = ctx.config.data
    family = FAMILIES[data.task_family]
    if data.data_path:
        try:
            tasks = load_task_file(data) or []
        except (TaskFormatError, OSError) as e:
            raise StageError(str(e)) from e
    else:
        generated = family.generate(
            {"difficulty": str(data.difficulty), "seed": str(data.data_seed)}
        )
        if generated is None:
            raise StageError(f"task_family {data.task_family!r} needs data.data_path (a task file)")
        tasks = generated
    train, heldout = split_tasks(tasks, data.train_ratio, data.data_seed)
    cap_train, cap_heldout = {}, {}
    for name in data.capability_benchmarks:
        skill = generate_reversal()
        skill_train, skill_heldout = split_tasks(skill, data.train_ratio, data.data_seed)
        cap_train[name], cap_heldout[name] = skill_train, skill_heldout[: data.capability_heldout]
    suite = TaskSuite(train, heldout[: data.max_heldout], cap_train, cap_heldout)
    ctx.workspace["tasks"] = suite
    return suite


def verifier_config(ctx: StageContext) -> Any:
    from stages.verifiers.registry import default_config, parse_verifier_config

    if ctx.config.verifier is not None:
        return parse_verifier_config(ctx.config.verifier)
    return default_config(ctx.config.data.task_family)


def verifier(ctx: StageContext, family: str | None = None) -> Any:
    """The task family's verifier (built once per driver); `family` for a capability benchmark."""
    from stages.verifiers.registry import build_verifier, default_config

    key = f"verifier:{family or 'main'}"
    if key not in ctx.workspace:
        config = verifier_config(ctx) if family is None else default_config(family)
        ctx.workspace[key] = build_verifier(config)
        if getattr(config, "sandbox", None) == "unisolated":
            from store.events import IsolationWaived

            ctx.emit([IsolationWaived(verifier=config.kind, reason='verifier.sandbox = "unisolated": '
                                      "candidate programs run without isolation")])  # fmt: skip
    return ctx.workspace[key]


def base_model_path(ctx: StageContext) -> Path:
    """The model RL starts from (the SFT'd embedded model, or the configured one), on local disk."""
    if "base_model_path" in ctx.workspace:
        return ctx.workspace["base_model_path"]
    state = ctx.state()
    digest = state.baseline_checkpoint
    if digest is None:
        raise StageError("no base model was recorded (stage 1 has not completed)")
    from stages.training.checkpoint import materialise

    path = ctx.run_dir / "models" / digest[:16]
    if not (path / "config.json").exists():
        # Hard links: the base model is stored once (in the blob store), not once more per run.
        materialise(ctx.blobs, digest, path, link=True)
    ctx.workspace["base_model_path"] = path
    return path


def greedy_verdicts(
    model: Any, tokenizer: Any, tasks: Sequence[Task], checker: Any, max_tokens: int
) -> list[Any]:
    from stages.training.sampling import generate_greedy
    from stages.verifiers.registry import verify_tasks

    answers = generate_greedy(model, tokenizer, [t.prompt for t in tasks], max_tokens=max_tokens)
    return verify_tasks(checker, tasks, answers)


def evaluate(ctx: StageContext, model: Any, tokenizer: Any) -> tuple[float, dict[str, float], int]:
    """Greedy held-out verify rate and each capability benchmark's score."""
    suite = task_suite(ctx)
    max_tokens = ctx.config.grpo.sampling.max_tokens
    verdicts = greedy_verdicts(model, tokenizer, suite.heldout, verifier(ctx), max_tokens)
    rate = sum(v.passed for v in verdicts) / max(len(verdicts), 1)
    capability = {}
    for name, tasks in suite.capability_heldout.items():
        marks = greedy_verdicts(model, tokenizer, tasks, verifier(ctx, "reverse"), max_tokens)
        capability[name] = sum(v.passed for v in marks) / max(len(marks), 1)
    return rate, capability, len(verdicts)


def sample_of(items: Sequence[Any], n: int, seed: int) -> list[Any]:
    """A deterministic subset of at most `n` items, in their original order."""
    if len(items) <= n:
        return list(items)
    keep = sorted(random.Random(seed).sample(range(len(items)), n))
    return [items[i] for i in keep]
