"""Stage gates: pure functions of (run state, gate config) -> `GateEvaluated` events.

Each verdict carries its metric, value, threshold, comparator and the `seq`s of the events it was
computed from, so `rlvr why` can explain it from the log alone. A stage advances only when every
gate it produced passed.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from policies.config import GateConfig
from store.events import GateEvaluated
from store.projections import RunState

_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
}


def _verdict(
    gate: str,
    stage: str,
    metric: str,
    value: float | None,
    comparator: str,
    threshold: float,
    evidence: list[int | None],
    detail: str = "",
    extra_ok: bool = True,
    judges_checkpoint: bool = False,
) -> GateEvaluated:
    passed = value is not None and extra_ok and _COMPARE[comparator](value, threshold)
    if value is None and not detail:
        detail = f"no {metric} was recorded"
    return GateEvaluated(
        gate=gate,
        stage=stage,
        metric=metric,
        value=value,
        threshold=threshold,
        comparator=comparator,  # type: ignore[arg-type]
        passed=passed,
        evidence_seqs=[seq for seq in evidence if seq is not None],
        detail=detail,
        judges_checkpoint=judges_checkpoint,
    )


def baseline_recorded(state: RunState, config: GateConfig) -> list[GateEvaluated]:
    return [
        _verdict(
            "baseline_recorded", "sft_preparation", "baseline_verify_rate",
            state.baseline_verify_rate, ">=", 0.0, [state.baseline_seq],
            detail=f"capability benchmarks: {sorted(state.baseline_capability)}",
        )
    ]  # fmt: skip


def verifiability(state: RunState, config: GateConfig) -> list[GateEvaluated]:
    result = state.stage_results.get("TasksDesigned")
    value = result["n_verifiable"] / result["n_tasks"] if result and result["n_tasks"] else None
    detail = f"{result['n_verifiable']} of {result['n_tasks']} tasks verifiable" if result else ""
    return [
        _verdict(
            "verifiability", "task_design", "verifiability", value, ">=",
            config.min_verifiability, [state.stage_seqs.get("TasksDesigned")], detail,
        )
    ]  # fmt: skip


def false_positive_rate(state: RunState, config: GateConfig) -> list[GateEvaluated]:
    result = state.stage_results.get("VerifierCalibrated")
    value = result["false_positive_rate"] if result else None
    detail = (
        f"verifier {result['verifier']}: FP {value:.3f} on {result['n_wrong']} wrong answers, "
        f"FN {result['false_negative_rate']:.3f} on {result['n_right']} right answers"
        if result
        else ""
    )
    hacks = (result or {}).get("accepted_hack_kinds") or {}
    examples = (result or {}).get("accepted_hack_examples") or {}
    hacked = config.zero_tolerance_hacks and bool(hacks)
    if result and result.get("adversary_variants"):
        rate = result.get("right_variant_pass_rate")
        detail += f"; adversary: {result['adversary_variants']} wrong variants" + (
            f", right variants passed {rate:.1%}" if rate is not None else ""
        )
    if hacked:
        kinds = ", ".join(
            f"{kind} x{n}" + (f" (e.g. {examples[kind][:80]!r})" if kind in examples else "")
            for kind, n in sorted(hacks.items())
        )
        detail += f"; known reward-hack probes accepted (zero tolerance): {kinds}"
    return [
        _verdict(
            "false_positive_rate", "verification", "false_positive_rate", value, "<",
            config.max_false_positive_rate, [state.stage_seqs.get("VerifierCalibrated")], detail,
            extra_ok=not hacked,
        )
    ]  # fmt: skip


def coverage(state: RunState, config: GateConfig) -> list[GateEvaluated]:
    result = state.stage_results.get("TrainingSetBuilt")
    counts: dict[str, int] = result["coverage"] if result else {}
    total = sum(counts.values())
    smallest = min(counts.values()) if counts else None
    largest_share = max(counts.values()) / total if total else 1.0
    share_ok = largest_share <= config.max_category_share
    detail = (
        f"per category {counts}; largest share {largest_share:.2f} "
        f"(max {config.max_category_share:.2f})"
    )
    return [
        _verdict(
            "coverage", "data_generation", "min_tasks_per_category",
            None if smallest is None else float(smallest), ">=",
            float(config.min_tasks_per_category), [state.stage_seqs.get("TrainingSetBuilt")],
            detail, extra_ok=share_ok,
        )
    ]  # fmt: skip


def _kl_gate(state: RunState, config: GateConfig, stage: str) -> GateEvaluated:
    # The mean over the stage's last steps: one batch's KL estimate is too noisy to gate on.
    recent = [m for m in state.metrics_window if m.metrics.get("kl") is not None][
        -config.kl_window :
    ]
    kl = sum(m.metrics["kl"] for m in recent) / len(recent) if recent else None
    detail = f"mean KL of the last {len(recent)} steps" if recent else ""
    return _verdict("kl", stage, "kl", kl, "<=", config.max_kl, [m.seq for m in recent], detail)


def _improving_gate(
    state: RunState, config: GateConfig, stage: str, since: float | None
) -> GateEvaluated:
    current = state.last_eval.get("verify_rate") if state.last_eval else None
    reference = since if since is not None else state.baseline_verify_rate
    threshold = (reference or 0.0) + config.min_verify_rate_gain
    detail = f"held-out verify rate {current} vs reference {reference}"
    return _verdict(
        "verify_rate_improving", stage, "heldout_verify_rate", current, ">", threshold,
        [state.last_eval.get("seq"), state.baseline_seq], detail,
    )  # fmt: skip


def rlvr_optimization(state: RunState, config: GateConfig) -> list[GateEvaluated]:
    return [
        _kl_gate(state, config, "rlvr_optimization"),
        _improving_gate(state, config, "rlvr_optimization", None),
    ]


def iterative_training(state: RunState, config: GateConfig) -> list[GateEvaluated]:
    # Round over round: compare with the verify rate the RLVR stage's gate accepted.
    previous = state.gates.get("verify_rate_improving")
    since = (
        previous.value if previous is not None and previous.stage == "rlvr_optimization" else None
    )
    # A round that did not improve stops the stage early: recorded, it passes on to evaluation,
    # which keeps the best checkpoint.
    stopped = state.stage_results.get("TrainingStoppedEarly")
    if stopped is not None:
        return [
            GateEvaluated(
                gate="verify_rate_improving", stage="iterative_training", metric="heldout_verify_rate",
                # Reads as what happened: this round's rate was not above the last one, so it stopped.
                value=stopped["verify_rate"], threshold=stopped["previous"], comparator="<=", passed=True,
                evidence_seqs=[state.stage_seqs["TrainingStoppedEarly"]],
                detail=f"stopped early at round {stopped['round']}: {stopped['verify_rate']} <= "
                f"{stopped['previous']}; evaluation keeps the best checkpoint",
            )
        ]  # fmt: skip
    return [_improving_gate(state, config, "iterative_training", since)]


def capability_retention(state: RunState, config: GateConfig) -> list[GateEvaluated]:
    capability = state.last_eval.get("capability", {}) if state.last_eval else {}
    ratios = {
        name: capability.get(name, 0.0) / base if base else 1.0
        for name, base in state.baseline_capability.items()
    }
    worst = min(ratios, key=ratios.__getitem__) if ratios else None
    value = ratios[worst] if worst else None
    detail = ", ".join(f"{k}: {v:.3f}" for k, v in sorted(ratios.items()))
    return [
        _verdict(
            "capability_retention", "evaluation", "capability_retention", value, ">=",
            config.min_capability_retention, [state.last_eval.get("seq"), state.baseline_seq],
            f"retention per benchmark: {detail} (worst: {worst})" if ratios else "",
            judges_checkpoint=True,  # passing it makes the evaluated checkpoint a rollback target
        )
    ]  # fmt: skip


GATES: dict[str, Callable[[RunState, GateConfig], list[GateEvaluated]]] = {
    "sft_preparation": baseline_recorded,
    "task_design": verifiability,
    "verification": false_positive_rate,
    "data_generation": coverage,
    "rlvr_optimization": rlvr_optimization,
    "iterative_training": iterative_training,
    "evaluation": capability_retention,
}


def evaluate(stage: str, state: RunState, config: GateConfig) -> list[GateEvaluated]:
    """The gate verdicts for `stage` given the folded state."""
    return GATES[stage](state, config)
