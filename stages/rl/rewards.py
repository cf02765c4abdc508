"""Weighted reward components (`grpo.reward_weights`, TRL's `reward_weights`): the verifier's
reward is the `correctness` component; a task family may offer others (`TaskFamily.
reward_components`, e.g. `format`). The step's reward is their weighted sum; each component's
value stays in the verdict's details, so the step can log it (`RolloutsSampled.components`, the
`reward_<name>` metrics) for `why` and the policies to read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stages.verifiers.types import Verdict

CORRECTNESS = "correctness"
DETAILS_KEY = "reward_components"


def component_names(family: Any) -> list[str]:
    """What `grpo.reward_weights` may name for tasks of `family`."""
    return [CORRECTNESS, *family.reward_components()]


def check_weights(weights: Mapping[str, float], family: Any) -> None:
    """ValueError naming the components `family` offers when `weights` names another."""
    known = component_names(family)
    unknown = [name for name in weights if name not in known]
    if unknown:
        raise ValueError(
            f"no reward component {', '.join(map(repr, unknown))}: task family "
            f"{family.name!r} offers {', '.join(known)}"
        )


def weigh(
    verdicts: Sequence[Verdict], tasks: Sequence[Any], texts: Sequence[str],
    weights: Mapping[str, float],
) -> list[Verdict]:  # fmt: skip
    """Each verdict with `reward` = the weighted sum of the components `weights` names
    (`correctness` weighs 1 unless named) and the components' values in its details. An excluded
    verdict (a judge error) stays as it is: it has no reward to weigh. A forfeited one (the
    response made the verifier raise, or tried to steer the judge) scores 0 in every component."""
    from stages.tasks.families import FAMILIES

    if not weights:
        return list(verdicts)
    weights = {CORRECTNESS: 1.0, **weights}
    out = []
    for verdict, task, text in zip(verdicts, tasks, texts, strict=True):
        if verdict.excluded:
            out.append(verdict)
            continue
        offered = FAMILIES[task.family].reward_components()
        values = {CORRECTNESS: float(verdict.reward)}
        forfeited = verdict.status == "verifier_error" or bool(verdict.details.get("injection"))
        for name in weights:
            if name != CORRECTNESS:
                values[name] = 0.0 if forfeited else float(offered[name](text, task))
        reward = sum(weight * values[name] for name, weight in weights.items())
        details = {**verdict.details, DETAILS_KEY: values}
        out.append(verdict.model_copy(update={"reward": reward, "details": details}))
    return out


def components_of(verdicts: Sequence[Verdict], group_size: int) -> dict[str, list[list]]:
    """Each component's value per rollout, `[group][sample]` (None where excluded); {} when the
    verdicts carry none."""
    names = list(dict.fromkeys(n for v in verdicts for n in v.details.get(DETAILS_KEY, {})))
    flat = {n: [v.details.get(DETAILS_KEY, {}).get(n) for v in verdicts] for n in names}
    return {
        n: [values[i : i + group_size] for i in range(0, len(values), group_size)]
        for n, values in flat.items()
    }
