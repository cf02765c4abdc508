"""What the log keeps of each rollout a step logs whole (store/rollouts.py holds the format): its
prompt id, completion, reward, advantage, length in tokens, whether it was truncated, and its
verdict with the verifier's full reason. Logging only: nothing here feeds the update.

The advantage is the one the update computes for the group as drawn (stages/training/grpo.py:
the rewards plus any overlong penalty, normalised as `scale_rewards` says); a group with an
excluded rollout (a judge error) is left out of the update and logs None. Dynamic sampling's
refill rounds log their rewards in `BatchRefilled`, not here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stages.training.config import GRPOConfig
from stages.training.grpo_loss import advantages, overlong_penalty
from stages.training.types import RolloutGroup
from stages.verifiers.types import Verdict


def logged_rollouts(
    config: GRPOConfig, groups_G: Sequence[RolloutGroup], rewards_GN: Sequence[Sequence[Any]],
    verdicts: Sequence[Verdict],
) -> dict[str, list[dict[str, Any]]]:  # fmt: skip
    """`{"samples": [one record a group], "verdicts": [one a rollout, group by group]}` for
    `groups_G` (verdicts: none when the rewards came from the log, a catch-up)."""
    adv_GN = drawn_advantages(config, groups_G, rewards_GN)
    samples = [
        {"task_id": g.prompt.task_id, "prompt": g.prompt_text,
         "completions": [r.text for r in g.rollouts_N], "rewards": list(rewards_GN[i]),
         "advantages": adv_GN[i], "lengths": [len(r.tokens) for r in g.rollouts_N],
         "truncated": [r.truncated for r in g.rollouts_N]}
        for i, g in enumerate(groups_G)
    ]  # fmt: skip
    n = config.group_size
    logged = [
        {"task_id": groups_G[j // n].prompt.task_id, "passed": v.passed, "status": v.status,
         "reason": v.reason}
        for j, v in enumerate(verdicts)
    ]  # fmt: skip
    return {"samples": samples, "verdicts": logged}


def drawn_advantages(
    config: GRPOConfig, groups_G: Sequence[RolloutGroup], rewards_GN: Sequence[Sequence[Any]]
) -> list[list[float | None]]:
    """Each rollout's advantage as the update computes it for the groups as drawn; None for a
    group with an excluded rollout."""
    out: list[list[float | None]] = [[None] * len(row) for row in rewards_GN]
    usable = [g for g, row in enumerate(rewards_GN) if None not in row]
    if not usable:
        return out
    rewards = np.array([rewards_GN[g] for g in usable], dtype=np.float64)
    lengths = np.array([[len(r.tokens) for r in groups_G[g].rollouts_N] for g in usable])
    shaped = rewards + overlong_penalty(
        lengths.reshape(-1), config.sampling.max_tokens, config.overlong_buffer,
        config.overlong_penalty_factor,
    ).reshape(rewards.shape)  # fmt: skip
    adv = advantages(shaped, config.scale_rewards, config.std_eps, config.std_estimator)
    for k, g in enumerate(usable):
        out[g] = [round(float(x), 6) for x in adv[k]]
    return out
