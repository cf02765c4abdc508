"""A small embedded model, SFT'd briefly on `a+b=` once per session, loaded fresh per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from stages.training.config import GRPOConfig, ModelConfig, SamplingConfig, SFTConfig
from stages.training.model import load_model, prepare_model, save_model_dir
from stages.training.sft import epoch_batches, sft

EXAMPLES = [(f"{a}+{b}=", str(a + b)) for a in range(100) for b in range(10)]
PROMPTS = [p for p, _ in EXAMPLES]


@pytest.fixture(scope="session")
def sft_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("embedded")
    model, tokenizer, path = prepare_model(ModelConfig(), root / "base")
    sft(model, tokenizer, epoch_batches(EXAMPLES, 64), SFTConfig(steps=120, warmup_steps=20))
    return save_model_dir(model, path, root / "sft")


@pytest.fixture
def fresh_model(sft_model_dir: Path):
    return load_model(sft_model_dir)


@pytest.fixture
def small_grpo():
    """A factory of small GRPO configs: 8 prompts x 8 samples, 6 new tokens."""

    def make(**overrides) -> GRPOConfig:
        base = dict(
            groups_per_batch=8,
            group_size=8,
            learning_rate=1e-3,
            kl_penalty_coef=0.01,
            sampling=SamplingConfig(max_tokens=6),
        )
        return GRPOConfig(**(base | overrides))

    return make


@pytest.fixture
def starts_with_7():
    """The toy reward: 1 when the answer starts with "7"."""

    def reward(records: list, texts: list[str]) -> list[float]:
        return [1.0 if t.startswith("7") else 0.0 for t in texts]

    return reward


@pytest.fixture
def prompts():
    return PROMPTS
