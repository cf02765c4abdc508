"""Our GRPO loss, its gradient and the advantages against TRL's own code on fixed inputs.

The numbers in fixtures/trl_grpo_golden.json were computed once by
fixtures/trl_grpo_golden.py (TRL's `GRPOTrainer._compute_loss` on fixed per-token log-probs,
see that file for the version and the command); this test needs no torch."""

import json
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest

from stages.training.config import GRPOConfig, SamplingConfig
from stages.training.grpo_loss import advantages, loss_from_logprobs, overlong_penalty

GOLDEN = json.loads((Path(__file__).parent / "fixtures" / "trl_grpo_golden.json").read_text())
TOLERANCE = 1e-5


def _ours(case: dict) -> tuple[float, np.ndarray]:
    inputs = GOLDEN["inputs"]
    mask = np.array(inputs["mask"], dtype=np.float32)
    rows = np.arange(mask.shape[0])
    if case["ours"].get("overlong_filter"):
        rows = rows[~np.array(inputs["truncated"], dtype=bool)]  # as train_step leaves them out
    pick = lambda name: mx.array(np.array(inputs[name], dtype=np.float32)[rows])  # noqa: E731
    settings = {k: v for k, v in case["ours"].items() if k not in ("overlong_filter", "max_tokens")}
    config = GRPOConfig(
        **settings, sampling=SamplingConfig(max_tokens=case["ours"].get("max_tokens", 16))
    )
    old = None if case["on_policy"] else pick("old")

    def loss(logp):
        return loss_from_logprobs(
            logp, mx.zeros_like(logp), mx.array(mask[rows]), pick("advantages"), pick("ref"),
            old, case["beta"], config,
        )[0]  # fmt: skip

    value, grad_rows = mx.value_and_grad(loss)(pick("logp"))
    grad = np.zeros_like(mask)
    grad[rows] = np.array(grad_rows)
    return value.item(), grad


@pytest.mark.parametrize("case", GOLDEN["loss_cases"], ids=lambda c: c["name"])
def test_loss_and_gradient_equal_trls(case):
    loss, grad = _ours(case)
    mask = np.array(GOLDEN["inputs"]["mask"]) > 0
    trl_grad = np.array(case["trl_grad"])
    assert abs(loss - case["trl_loss"]) < TOLERANCE, (loss, case["trl_loss"])
    assert np.max(np.abs(grad[mask] - trl_grad[mask])) < TOLERANCE
    assert np.all(grad[~mask] == 0)


def test_advantages_equal_trls_with_bessel_and_its_eps():
    case = GOLDEN["advantages"]
    rewards = np.array(case["rewards"])
    ours = advantages(rewards, "group", eps=case["eps"], std_estimator="bessel")
    assert np.max(np.abs(ours - np.array(case["trl_advantages"]))) < TOLERANCE
    # the default (population std) differs from TRL's by sqrt(N / (N - 1)) on varied groups
    assert np.max(np.abs(advantages(rewards, "group", eps=case["eps"]) - ours)) > 1e-2


def test_overlong_penalty_equals_trls_soft_overlong_punishment():
    case = GOLDEN["overlong_penalty"]
    ours = overlong_penalty(np.array(case["lengths"]), case["max_tokens"], case["buffer"], 1.0)
    assert np.max(np.abs(ours - np.array(case["trl_rewards"]))) < TOLERANCE
    assert ours.min() < 0 and ours.max() == 0  # the case reaches into the buffer


def test_reward_weights_equal_trls_weighted_sum_and_its_advantages():
    """`grpo.reward_weights` against TRL's `reward_weights`: the real math family scores the
    responses (correctness by the verifier, `format` by the family), `weigh` sums them."""
    from stages.rl.rewards import DETAILS_KEY, weigh
    from stages.tasks.references import verify_tasks
    from stages.tasks.types import Task
    from stages.verifiers.registry import build_verifier

    case = GOLDEN["reward_weights"]
    scored_as = {  # response -> (correctness, format) for the answer 12
        (1, 1): "so \\boxed{12}",
        (1, 0): "it is 12",
        (0, 1): "Answer: 13",
        (0, 0): "Answer: 12 or 13",
    }
    responses = [scored_as[tuple(pair)] for pair in case["rewards_per_func"]]
    task = Task(task_id="t", family="math", prompt="7+5=", answer="12")
    tasks = [task] * len(responses)
    verdicts = verify_tasks(build_verifier({"kind": "math"}), tasks, responses)
    weighted = weigh(
        verdicts,
        tasks,
        responses,
        dict(zip(["correctness", "format"], case["weights"], strict=True)),
    )
    assert [list(v.details[DETAILS_KEY].values()) for v in weighted] == case["rewards_per_func"]
    rewards = np.array([v.reward for v in weighted])
    assert np.max(np.abs(rewards - np.array(case["trl_rewards"]))) < TOLERANCE
    ours = advantages(rewards.reshape(2, 4), "group", eps=case["eps"], std_estimator="bessel")
    assert np.max(np.abs(ours - np.array(case["trl_advantages"]))) < TOLERANCE
