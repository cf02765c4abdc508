"""All policies in one fixed order, with their budgets enforced.

`decide_all(state, event, config)` is what the runner (and `rlvr replay`) calls for every appended
event whose type is in `TRIGGER_TYPES`, with `state` folded through that event and nothing after
it. Order: faults, reward_health, rollback, kl, entropy. The first policy that voids the step or stops the run
(`EXCLUSIVE_ACTIONS`) ends the evaluation of that event, and only the first rollback of an event is
kept. Every policy has budgets (counted from `RunState.decisions`, i.e. from the `PolicyDecided`
events in the log); a decision that would exceed one becomes a `fail` naming the budget, so an
unattended run stops with a reason instead of looping.

`with_decisions(state, events, config)` does this for a batch the runner is about to append: it
folds the batch provisionally and returns it with each trigger event's decisions right after it,
so a step and its decisions are appended in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from policies import entropy, faults, kl, reward_health, rollback
from policies.config import PolicyConfig
from policies.types import EXCLUSIVE_ACTIONS, Decision
from store.events import Event
from store.log import StoredEvent, canonical_json
from store.projections import RunState, fold

DecideFn = Callable[[RunState, StoredEvent, PolicyConfig], list[Decision]]

POLICIES: tuple[tuple[str, DecideFn], ...] = (
    ("faults", faults.decide),
    # Before the others: a scorer bug is not a regression, a KL excursion or a collapse.
    ("reward_health", reward_health.decide),
    ("rollback", rollback.decide),
    ("kl", kl.decide),
    ("entropy", entropy.decide),
)
TRIGGER_TYPES = frozenset({"MetricsRecorded", "EvalRecorded", "StepFailed"})
# Policies steer training only; outside it a regression is the gates' business.
TRAINING_STATES = frozenset({"rlvr_optimization", "iterative_training"})


@dataclass(frozen=True)
class Budget:
    policy: str
    actions: tuple[str, ...]
    limit: int
    name: str  # the config field, so the fail reason says what to raise

    def used(self, decisions: dict[str, int]) -> int:
        return sum(decisions.get(f"{self.policy}:{action}", 0) for action in self.actions)


def budgets(config: PolicyConfig) -> list[Budget]:
    adjust = ("adjust_hyperparameters",)
    return [
        Budget("rollback", ("rollback",), config.rollback.max_rollbacks, "rollback.max_rollbacks"),
        Budget("kl", adjust, config.kl.max_adjustments, "kl.max_adjustments"),
        Budget("kl", ("rollback",), config.kl.max_rollbacks, "kl.max_rollbacks"),
        Budget("entropy", adjust, config.entropy.max_recoveries, "entropy.max_recoveries"),
        Budget("entropy", ("rollback",), config.entropy.max_recoveries, "entropy.max_recoveries"),
        Budget(
            "faults",
            ("rollback",),
            config.faults.max_nonfinite_rollbacks,
            "faults.max_nonfinite_rollbacks",
        ),
        Budget("faults", ("pause",), config.faults.max_pauses, "faults.max_pauses"),
        Budget(
            "reward_health",
            ("rollback",),
            config.reward_health.max_rollbacks,
            "reward_health.max_rollbacks",
        ),
        Budget(
            "reward_health", ("pause",), config.reward_health.max_pauses, "reward_health.max_pauses"
        ),
        Budget(
            "faults",
            ("retry_step", "retry_smaller_microbatch"),
            config.faults.max_total_retries,
            "faults.max_total_retries",
        ),
    ]


def decide_all(state: RunState, event: StoredEvent, config: PolicyConfig) -> list[Decision]:
    """Every policy's decisions on `event`, `state` being the log folded through it."""
    if event.type not in TRIGGER_TYPES or state.state not in TRAINING_STATES:
        return []
    # Most trigger events decide nothing: the budgets are built once a policy proposes something
    # (replay asks this of every step of a long run).
    limits: list[Budget] | None = None
    counts = state.decisions
    out: list[Decision] = []
    for _, decide in POLICIES:
        proposed = decide(state, event, config)
        if not proposed:
            continue
        if any(d.action == "rollback" for d in out):
            proposed = [d for d in proposed if d.action != "rollback"]
        limits = budgets(config) if limits is None else limits
        # A policy's decisions go together (a rollback and its adjustment) or become one `fail`.
        trial = dict(counts)
        for decision in proposed:
            exhausted = _exhausted(decision, limits, trial)
            if exhausted is not None:
                out.append(exhausted)
                return out
            key = f"{decision.policy}:{decision.action}"
            trial[key] = trial.get(key, 0) + 1
        counts = trial
        out.extend(proposed)
        if any(d.action in EXCLUSIVE_ACTIONS for d in proposed):
            break
    return out


def _exhausted(decision: Decision, limits: list[Budget], counts: dict[str, int]) -> Decision | None:
    for budget in limits:
        if budget.policy != decision.policy or decision.action not in budget.actions:
            continue
        used = budget.used(counts)
        if used >= budget.limit:
            return Decision(
                policy=decision.policy,
                action="fail",
                trigger_metric=decision.trigger_metric,
                value=decision.value,
                threshold=decision.threshold,
                evidence_seqs=decision.evidence_seqs,
                parameters={"budget": budget.name, "used": used, "limit": budget.limit},
                reason=f"{decision.policy} policy budget {budget.name} exhausted ({used} of "
                f"{budget.limit} used); it would {decision.action.replace('_', ' ')} again: "
                f"{decision.reason}",
            )
    return None


def with_decisions(
    state: RunState,
    events: Sequence[Event],
    config: PolicyConfig,
    consequences: Callable[[RunState, Decision], list[Event]] | None = None,
) -> tuple[list[Event], list[Decision]]:
    """`events` with each trigger event's decisions (as `PolicyDecided`, each followed by what
    `consequences` maps it to, e.g. `HyperparametersChanged`) inserted right after it, and the
    decisions themselves. Append the returned events at `state.last_seq` in one call: their seqs
    then match the ones the decisions cite, and every later trigger was decided on the log
    folded through it, as `rlvr replay` will recompute."""
    out: list[Event] = []
    decisions: list[Decision] = []
    provisional = state
    for event in events:
        stored = _provisional(provisional, event)
        provisional = fold(provisional, stored)
        out.append(event)
        for decision in decide_all(provisional, stored, config):
            follow = [decision.to_event()]
            if consequences is not None:
                follow += consequences(provisional, decision)
            for extra in follow:
                provisional = fold(provisional, _provisional(provisional, extra))
                out.append(extra)
            decisions.append(decision)
    return out, decisions


def _provisional(state: RunState, event: Event) -> StoredEvent:
    # The fold reads type, seq and payload only; hashes and times are the log's business.
    payload = canonical_json(event.model_dump())
    return StoredEvent(
        state.run_id, state.last_seq + 1, event.type_name(), event.schema_version, "", "", "",
        payload,
    )  # fmt: skip
