"""One step as the run logs it: the split over ranks settled, the one step run, and the events
that describe it (`RolloutsSampled`, dynamic sampling's `BatchRefilled` rounds,
`VerdictsRecorded`, `MetricsRecorded`), the same on every rank (rank 0 appends them)."""

from __future__ import annotations

from collections.abc import Sequence

from stages.common import verifier
from stages.rl.rewards import weigh
from stages.rl.session import RLSession
from stages.rl.split import drift, plan_split
from stages.rl.step import rl_step
from stages.tasks.types import Task
from store.events import (
    BatchRefilled,
    Event,
    MetricsRecorded,
    RolloutsSampled,
    VerdictsRecorded,
)


def step_events(
    session: RLSession,
    tasks: Sequence[Task],
    attempt: int,
    logged_rewards: list | None = None,
    logged: Sequence[Event] = (),
) -> list[Event]:
    """Sample, verify and train step `session.trainer.step`; the events describing it. With
    `logged_rewards` (catch-up) the verifier is not asked again and nothing new is measured into
    the log: a split decided meanwhile waits in `world.pending` for the next live step. `logged`:
    the step's `RolloutsSampled`, `BatchRefilled` and `MetricsRecorded` events (catch-up), for
    the reward components and refill rounds they hold and whether dynamic sampling was on (a
    branch may have turned it on or off since)."""
    from stages.verifiers.registry import verify_tasks

    trainer, world, config = session.trainer, session.world, session.grpo_config()
    ran = next((e for e in logged if isinstance(e, MetricsRecorded)), None)
    if ran is not None:  # replay the step as it ran: with dynamic sampling iff it logged rounds
        config = config.model_copy(update={"dynamic_sampling": "refill_rounds" in ran.metrics})
    assert trainer is not None, "open the session's trainer first (stages/rl/resume.py)"
    live = logged_rewards is None
    prompts = session.prompts(tasks, trainer.step)
    out: list[Event] = list(world.pending)
    world.pending = []
    split = plan_split(world, trainer, config, prompts)
    if split is not None:
        (out if live else world.pending).append(split)
    checker = verifier(session.ctx)
    sampled = next((e for e in logged if isinstance(e, RolloutsSampled)), None)
    result = rl_step(
        trainer, prompts, config,
        lambda records, texts: weigh(
            verify_tasks(checker, records, texts), records, texts, config.reward_weights
        ),
        world=world, attempt=attempt, logged_rewards=logged_rewards, keyed=session.keyed,
        keep_samples=session.config.pipeline.sample_rollouts, refill_pool=tasks,
        logged_components=sampled.components if sampled is not None else None,
        logged_refills=[e.model_dump() for e in logged if isinstance(e, BatchRefilled)]
        if not live else None,
    )  # fmt: skip
    step = result.update.step
    out += [
        RolloutsSampled(
            step=step, attempt=attempt, n_groups=len(result.rewards_GN),
            group_size=config.group_size, samples=result.samples, rewards=result.rewards_GN,
            components=result.components,
        ),
        *(BatchRefilled(step=step, attempt=attempt, round=r.round, task_ids=r.task_ids,
                        rewards=r.rewards, n_varied=r.n_varied) for r in result.refills),
        VerdictsRecorded(
            step=step, verifier=checker.name, n_passed=result.n_passed,
            n_total=result.n_total, n_errors=result.n_errors, verdicts=result.verdicts,
        ),
        MetricsRecorded(step=step, metrics=result.metrics),
    ]  # fmt: skip
    drifted = drift(world, result.groups_per_s, len(prompts), result.update.step)
    if drifted is not None:
        (out if live else world.pending).append(drifted)
    return out
