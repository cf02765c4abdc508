"""One step as the run logs it: the split over ranks settled, the one step run, and the events
that describe it (`RolloutsSampled`, dynamic sampling's `BatchRefilled` rounds,
`VerdictsRecorded`, `MetricsRecorded`), the same on every rank (rank 0 appends them)."""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from stages.common import verifier
from stages.rl.rewards import weigh
from stages.rl.session import RLSession
from stages.rl.split import drift, plan_split
from stages.rl.step import rl_step
from stages.tasks.types import Task
from store.blobs import BlobStore
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
    rollouts, judged = rollout_events(
        session.ctx.blobs if live else None, step=step, attempt=attempt,
        group_size=config.group_size, verifier=checker.name, rewards_GN=result.rewards_GN,
        samples=result.samples, verdicts=result.verdicts, n_passed=result.n_passed,
        n_total=result.n_total, n_errors=result.n_errors, components=result.components,
    )  # fmt: skip
    out += [
        rollouts,
        *(BatchRefilled(step=step, attempt=attempt, round=r.round, task_ids=r.task_ids,
                        rewards=r.rewards, n_varied=r.n_varied) for r in result.refills),
        judged,
        MetricsRecorded(step=step, metrics=result.metrics),
    ]  # fmt: skip
    drifted = drift(world, result.groups_per_s, len(prompts), result.update.step)
    if drifted is not None:
        (out if live else world.pending).append(drifted)
    return out


def rollout_events(
    blobs: BlobStore | None,
    *,
    step: int,
    attempt: int,
    group_size: int,
    verifier: str,
    rewards_GN: list[list[float | None]],
    samples: list[dict],
    verdicts: list[dict],
    n_passed: int,
    n_errors: int,
    n_total: int | None = None,
    components: dict[str, list[list[float | None]]] | None = None,
) -> tuple[RolloutsSampled, VerdictsRecorded]:
    """The step's rollout and verdict events. The rows keep what policies, gates, catch-up (every
    reward) and `why` read; the sampled groups' text and their verdicts go to one blob, which
    both events name (`blobs` None: a catch-up step, whose events are not appended)."""
    blob = None
    if blobs is not None and (samples or verdicts):
        blob = blobs.put_bytes(orjson.dumps({"samples": samples, "verdicts": verdicts}))
    if n_total is None:
        n_total = sum(len(row) for row in rewards_GN)
    return (
        RolloutsSampled(
            step=step, attempt=attempt, n_groups=len(rewards_GN), group_size=group_size,
            rewards=rewards_GN, components=components or {}, blob=blob,
        ),
        VerdictsRecorded(
            step=step, verifier=verifier, n_passed=n_passed, n_total=n_total, n_errors=n_errors,
            blob=blob,
        ),
    )  # fmt: skip
