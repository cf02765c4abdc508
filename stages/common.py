"""What several stages compute the same way: the held-out evaluation and deterministic subsets.
What they share as objects (task suite, verifiers, base model) is the run's services
(stages/services.py)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from stages.services import RunServices
from stages.tasks.types import Task


def greedy_verdicts(
    model: Any, tokenizer: Any, tasks: Sequence[Task], checker: Any, max_tokens: int
) -> list[Any]:
    from stages.tasks.references import verify_tasks
    from stages.training.sampling import generate_greedy

    answers = generate_greedy(model, tokenizer, [t.prompt for t in tasks], max_tokens=max_tokens)
    return verify_tasks(checker, tasks, answers)


def evaluate(
    services: RunServices, model: Any, tokenizer: Any
) -> tuple[float, dict[str, float], int]:
    """Greedy held-out verify rate and each capability benchmark's score."""
    suite = services.tasks
    max_tokens = services.config.grpo.sampling.max_tokens
    verdicts = greedy_verdicts(model, tokenizer, suite.heldout, services.verifier(), max_tokens)
    rate = sum(v.passed for v in verdicts) / max(len(verdicts), 1)
    capability = {}
    for name, tasks in suite.capability_heldout.items():
        checker = services.verifier("reverse")
        marks = greedy_verdicts(model, tokenizer, tasks, checker, max_tokens)
        capability[name] = sum(v.passed for v in marks) / max(len(marks), 1)
    return rate, capability, len(verdicts)


def sample_of(items: Sequence[Any], n: int, seed: int) -> list[Any]:
    """A deterministic subset of at most `n` items, in their original order."""
    if len(items) <= n:
        return list(items)
    keep = sorted(random.Random(seed).sample(range(len(items)), n))
    return [items[i] for i in keep]
