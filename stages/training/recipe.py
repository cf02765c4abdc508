"""The embedded end-to-end recipe that shows an RL gain on a laptop CPU:

`a+b=` / `a-b=` with a in 0..99, b in 0..9 (2,000 problems, 1,600 train / 400 held-out). The SFT
teacher makes a *systematic* error, "forgets the carry": on carry/borrow problems it is off by ten
with probability `carry_error` (drawn afresh each time a problem is seen). Greedy decoding then
learns the wrong habit partly; GRPO with an exact-answer reward repairs it (+20-30 greedy pts in
~100 steps at 32 prompts x 8 samples).

The task code proper lives in stages/tasks; this module keeps the recipe self-contained so the
training engine can be tested and benchmarked on its own.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stages.rl.step import train_grpo
from stages.training.config import GRPOConfig, ModelConfig, SFTConfig
from stages.training.grpo import new_trainer_state
from stages.training.model import make_trainable, prepare_model, save_model_dir
from stages.training.sampling import generate_greedy
from stages.training.sft import epoch_batches, sft
from stages.training.types import ProgressFn, StepFn, StepMetrics, TrainerState


@dataclass(frozen=True)
class Problem:
    prompt: str
    answer: str
    carry: bool


def arithmetic_problems(seed: int = 0, held_out: int = 400) -> tuple[list[Problem], list[Problem]]:
    """All 2,000 `a+b=` / `a-b=` problems, split into disjoint (train, held-out) by `seed`."""
    problems = []
    for a in range(100):
        for b in range(10):
            problems.append(Problem(f"{a}+{b}=", str(a + b), a % 10 + b >= 10))
            problems.append(Problem(f"{a}-{b}=", str(a - b), a % 10 < b))
    random.Random(seed).shuffle(problems)
    return problems[held_out:], problems[:held_out]


def forgets_the_carry(
    problems: Sequence[Problem], batch_size: int, carry_error: float = 0.7, seed: int = 0
) -> Callable[[int], list[tuple[str, str]]]:
    """SFT batches from a teacher that is off by ten on carry/borrow problems, drawn afresh."""
    order = epoch_batches(list(problems), batch_size, seed)

    def batch(step: int) -> list[tuple[str, str]]:
        rng = random.Random(f"teacher:{seed}:{step}")
        out = []
        for p in order(step):
            answer = int(p.answer)
            if p.carry and rng.random() < carry_error:
                answer += -10 if "+" in p.prompt else 10
            out.append((p.prompt, str(answer)))
        return out

    return batch


def exact_answer_reward(records: list[Any], texts: list[str]) -> list[float]:
    """1.0 when the completion equals the record's answer (whitespace stripped), else 0.0."""
    return [float(t.strip() == r.answer) for r, t in zip(records, texts, strict=True)]


def greedy_accuracy(state_or_model: Any, tokenizer: Any, problems: Sequence[Problem]) -> float:
    """Fraction of problems whose greedy completion is exactly right."""
    model = state_or_model.model if isinstance(state_or_model, TrainerState) else state_or_model
    answers = generate_greedy(model, tokenizer, [p.prompt for p in problems], max_tokens=6)
    return sum(a.strip() == p.answer for a, p in zip(answers, problems, strict=True)) / len(
        problems
    )


@dataclass
class RecipeResult:
    baseline_accuracy: float
    final_accuracy: float
    carry_baseline: float
    carry_final: float
    history: list[StepMetrics]
    state: TrainerState
    # The SFT'd model folder: the base of RL, what restore_checkpoint needs.
    model_path: Path


def run_recipe(
    directory: Path | str,
    model_config: ModelConfig | None = None,
    sft_config: SFTConfig | None = None,
    grpo_config: GRPOConfig | None = None,
    steps: int = 100,
    split_seed: int = 0,
    on_progress: ProgressFn | None = None,
    on_step: StepFn | None = None,
) -> RecipeResult:
    """Build the embedded model, SFT it on the noisy teacher, GRPO it, and measure greedy
    held-out accuracy before and after."""
    model_config = model_config or ModelConfig()
    sft_config = sft_config or SFTConfig()
    grpo_config = grpo_config or GRPOConfig()
    train, held_out = arithmetic_problems(split_seed)
    model, tokenizer, path = prepare_model(model_config, Path(directory) / "model")
    batches = forgets_the_carry(train, sft_config.batch_size, seed=sft_config.seed)
    sft(model, tokenizer, batches, sft_config, on_progress)
    sft_path = save_model_dir(model, path, Path(directory) / "sft")
    carry = [p for p in held_out if p.carry]
    baseline = greedy_accuracy(model, tokenizer, held_out)
    carry_baseline = greedy_accuracy(model, tokenizer, carry)
    make_trainable(model, model_config, seed=grpo_config.seed)
    state = new_trainer_state(model, tokenizer, grpo_config)
    prompts = epoch_batches(train, grpo_config.groups_per_batch, grpo_config.seed)
    history = train_grpo(state, prompts, exact_answer_reward, grpo_config, steps, on_step)
    return RecipeResult(
        baseline_accuracy=baseline,
        final_accuracy=greedy_accuracy(state, tokenizer, held_out),
        carry_baseline=carry_baseline,
        carry_final=greedy_accuracy(state, tokenizer, carry),
        history=history,
        state=state,
        model_path=sft_path,
    )
