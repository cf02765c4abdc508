"""Phase 5 of the step (stages/rl/step.py): the step's figures. Each rank's phases report what
they saw; every rank gathers every rank's, and the metrics are assembled here, once: the batch as
drawn (rewards, lengths, errors), the update (KL, entropy, loss, ...), the timings, and the
settings the step ran with, so policies (and readers) see what they would adjust."""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from stages.distributed import World
from stages.rl.rewards import CORRECTNESS
from stages.rl.rollout_log import logged_rollouts
from stages.rl.types import Refilled, Rows, Sampled, Scored, StepFigures, Updated
from stages.training.config import GRPOConfig
from store.settings import Settings


def gather_figures(
    world: World, config: GRPOConfig, settings: Settings, attempt: int, keep_samples: int | None,
    sampled: Sampled, scored: Scored, refilled: Refilled, updated: Updated,
) -> StepFigures:  # fmt: skip
    """Every rank's report gathered on every rank, and the figures made from it."""
    ranks = world.gather_json(
        _report(config, keep_samples, sampled, scored, updated), "step summary"
    )
    rewards = [row for r in ranks for row in r["rewards"]]
    components = {k: [row for r in ranks for row in r["components"][k]] for k in scored.components}
    verified = components.get(CORRECTNESS, rewards)
    return StepFigures(
        rewards_GN=rewards,
        components=components,
        metrics=_metrics(config, settings, attempt, ranks, rewards, components, refilled, updated),
        samples=[s for r in ranks for s in r["samples"]],
        verdicts=[v for r in ranks for v in r["verdicts"]],
        n_passed=sum(
            1 for row in verified for x in row if x is not None and x >= config.verified_threshold
        ),  # fmt: skip
        n_errors=sum(row.count(None) for row in rewards),
        n_total=sum(len(r["lengths"]) for r in ranks),
        groups_per_s=[len(r["rewards"]) / max(r["sample_s"] + r["train_s"], 1e-9) for r in ranks],
    )


def _report(
    config: GRPOConfig, keep_samples: int | None, sampled: Sampled, scored: Scored,
    updated: Updated,
) -> dict[str, Any]:  # fmt: skip
    """This rank's part of the figures, as JSON. `keep_samples`: the step's first groups logged
    whole (text, verdicts, advantages, lengths), None for every one."""
    groups, lo, n = sampled.groups, sampled.first_index, config.group_size
    rollouts = [r for g in groups for r in g.rollouts_N]
    kept = len(groups) if keep_samples is None else max(0, min(len(groups), keep_samples - lo))
    return {
        "rewards": scored.rewards_GN,
        "components": scored.components,
        **logged_rollouts(config, groups[:kept], scored.rewards_GN[:kept],
                          scored.verdicts[: kept * n]),
        "lengths": [len(r.tokens) for r in rollouts],
        "truncated": sum(r.truncated for r in rollouts),
        "repetitive": sum(repetitive(r.tokens, r.text) for r in rollouts),
        "verifier_errors": sum(v.status == "verifier_error" for v in scored.verdicts),
        "judge_injections": sum(bool(v.details.get("injection")) for v in scored.verdicts),
        "sample_s": updated.sample_s, "train_s": updated.train_s,
        "sample_tokens": sampled.sample_tokens, "train_tokens": updated.metrics.train_tokens,
    }  # fmt: skip


def _metrics(
    config: GRPOConfig, settings: Settings, attempt: int, ranks: list[dict], rewards_GN: Rows,
    components: dict[str, Rows], refilled: Refilled, updated: Updated,
) -> dict[str, float | None]:  # fmt: skip
    update = updated.metrics
    values: dict[str, Any] = update.model_dump(exclude={"step", "train_tokens", "train_s"})
    if values["logprob_gap"] is None:  # on-policy: the sampler's log-probs are not read
        del values["logprob_gap"]
    scored = np.array([row for row in rewards_GN if None not in row], dtype=np.float64)
    if not len(scored):  # nothing of the batch as drawn was scored: what the update trained on
        scored = np.array([row for row in refilled.rewards_GN if None not in row], np.float64)
    if len(scored):
        values.update(_reward_figures(config, scored, update.trained_groups))
    values.update(_batch_figures(ranks, sum(row.count(None) for row in rewards_GN)))
    values["attempt"] = float(attempt)
    values.update(settings.metrics())
    if len(ranks) > 1:
        for r, rank in enumerate(ranks):
            values[f"rank{r}_sample_s"], values[f"rank{r}_train_s"] = (
                rank["sample_s"],
                rank["train_s"],
            )
    values.update(_component_figures(config, components, len(refilled.rounds)))
    return finite(values)


def _reward_figures(config: GRPOConfig, scored_GN: np.ndarray, trained: int) -> dict[str, float]:
    varied = np.ptp(scored_GN, axis=1) > 0
    return {
        "reward_mean": float(scored_GN.mean()),
        "reward_std": float(scored_GN.std()),
        "verify_rate": float((scored_GN >= config.verified_threshold).mean()),
        "zero_variance_frac": float(1.0 - varied.mean()),
        "scored_groups": float(len(scored_GN)),
        "trained_groups": float(
            trained if config.dynamic_sampling
            else varied.sum() if config.drop_zero_variance_groups else len(scored_GN)
        ),
    }  # fmt: skip


def _batch_figures(ranks: list[dict], excluded: int) -> dict[str, float]:
    """Lengths, errors and timings over every rank's rollouts as drawn. `excluded`: the
    rollouts left out (judge errors)."""
    lengths = [x for r in ranks for x in r["lengths"]]
    broken = sum(r.get("verifier_errors", 0) for r in ranks)  # raised: scored 0
    injections = sum(r.get("judge_injections", 0) for r in ranks)  # steered the judge: scored 0
    sample_s = max(r["sample_s"] for r in ranks)
    train_s = max(r["train_s"] for r in ranks)
    return {
        "response_len": float(np.mean(lengths)),
        "truncation_rate": sum(r["truncated"] for r in ranks) / max(len(lengths), 1),
        "sample_s": sample_s, "train_s": train_s,
        "step_s": max(r["sample_s"] + r["train_s"] for r in ranks),
        "sample_tokens_per_s": sum(r["sample_tokens"] for r in ranks) / max(sample_s, 1e-9),
        "train_tokens_per_s": sum(r["train_tokens"] for r in ranks) / max(train_s, 1e-9),
        "judge_error_rate": excluded / max(len(lengths), 1),
        "verifier_error_rate": broken / max(len(lengths), 1),
        "judge_injection_rate": injections / max(len(lengths), 1),
        "repetition_share": sum(r.get("repetitive", 0) for r in ranks) / max(len(lengths), 1),
    }  # fmt: skip


def _component_figures(
    config: GRPOConfig, components_GN: dict[str, Rows], refill_rounds: int
) -> dict[str, float]:
    """Each reward component's mean over the scored rollouts (`reward_<name>`), `verify_rate` on
    correctness when the reward is a weighted sum, and dynamic sampling's extra rounds."""
    values: dict[str, float] = {}
    for name, rows in components_GN.items():
        scored = np.array([row for row in rows if None not in row], dtype=np.float64)
        if len(scored):
            values[f"reward_{name}"] = float(scored.mean())
            if name == CORRECTNESS:
                values["verify_rate"] = float((scored >= config.verified_threshold).mean())
    if config.dynamic_sampling:
        values["refill_rounds"] = float(refill_rounds)
    return values


# A response is repetitive when half its token 4-grams repeat an earlier one, or when its text
# compresses below a fifth of its size (ordinary text: ~0.4-0.6 at these lengths); shorter
# responses than these minimums are never called repetitive.
NGRAM, MIN_NGRAM_TOKENS, MAX_REPEATED_NGRAMS = 4, 16, 0.5
MIN_COMPRESS_BYTES, MIN_COMPRESSION_RATIO = 64, 0.2


def repetitive(tokens: Sequence[int], text: str) -> bool:
    """Whether a response loops (n-gram repetition) or is mostly one pattern (compression ratio):
    what `repetition_share` counts, for the reward-health policy."""
    if len(tokens) >= MIN_NGRAM_TOKENS:
        grams = [tuple(tokens[i : i + NGRAM]) for i in range(len(tokens) - NGRAM + 1)]
        if 1 - len(set(grams)) / len(grams) >= MAX_REPEATED_NGRAMS:
            return True
    data = text.encode("utf-8", "replace")
    return len(data) >= MIN_COMPRESS_BYTES and (
        len(zlib.compress(data, 6)) / len(data) < MIN_COMPRESSION_RATIO
    )


def finite(values: dict[str, Any]) -> dict[str, float | None]:
    """Events refuse NaN/inf: a non-finite figure becomes None plus a `nonfinite_<name>` flag."""
    out: dict[str, float | None] = {}
    for key, value in values.items():
        value = float(value)
        if math.isfinite(value):
            out[key] = value
        else:
            out[key] = None
            out[f"nonfinite_{key}"] = 1.0
    return out
