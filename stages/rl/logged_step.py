"""One step as the run logs it: the split over ranks settled, the one step run, and the events
that describe it (`RolloutsSampled`, dynamic sampling's `BatchRefilled` rounds,
`VerdictsRecorded`, `MetricsRecorded`), the same on every rank (rank 0 appends them)."""

from __future__ import annotations

from collections.abc import Sequence

from stages.rl.async_sampler import stale_draw
from stages.rl.chaos import corrupt
from stages.rl.rewards import weigh
from stages.rl.session import RLSession
from stages.rl.split import drift, plan_split
from stages.rl.step import Rank, rl_step
from stages.rl.types import Logged, StepResult
from stages.services import verifier_config
from stages.tasks.types import Task
from stages.verifiers.provenance import provenance
from stages.verifiers.types import Verdict
from store.blobs import BlobStore
from store.events import (
    BatchRefilled,
    Event,
    MetricsRecorded,
    RolloutsSampled,
    VerdictsRecorded,
)
from store.rollouts import encode as encode_rollouts
from store.settings import Settings


def step_events(
    session: RLSession,
    tasks: Sequence[Task],
    attempt: int,
    settings: Settings,
    replay: Logged | None = None,
) -> list[Event]:
    """Sample, verify and train step `session.trainer.step` with `settings` in force; the events
    describing it. With `replay` (a catch-up: what the log holds of the step) the verifier is not
    asked again, dynamic sampling runs iff the step ran it, and nothing new is measured into the
    log: a split decided meanwhile waits in `split.pending` for the next live step."""
    from stages.tasks.references import verify_tasks

    trainer, split = session.trainer, session.split
    assert trainer is not None, "open the session's trainer first (stages/rl/resume.py)"
    config = session.grpo_config()
    if replay is not None:
        config = config.model_copy(update={"dynamic_sampling": replay.refilled})
    prompts = session.prompts(tasks, trainer.step)
    out: list[Event] = list(split.pending)
    split.pending = []
    planned = plan_split(session.world, split, trainer, config.in_force(settings), prompts)
    if planned is not None:
        (out if replay is None else split.pending).append(planned)
    checker = session.services.verifier()
    step, faults, seed = trainer.step, session.config.chaos.faults, session.config.seed

    def score(records: list[Task], texts: list[str]) -> list[Verdict]:
        verdicts = verify_tasks(checker, records, texts)
        verdicts = corrupt(faults, seed, step, [t.task_id for t in records], texts, verdicts)
        return weigh(verdicts, records, texts, config.reward_weights)

    draw, version = None, step
    if config.max_staleness:
        draw, version = stale_draw(
            session.rollouts(), trainer, config.in_force(settings),
            lambda s: session.prompts(tasks, s),
        )  # fmt: skip
    result = rl_step(
        trainer, prompts, config, settings, score,
        Rank(session.world, split), sampler=session.sampler, attempt=attempt, logged=replay,
        keep_samples=logged_groups(session.config.pipeline.sample_rollouts), refill_pool=tasks,
        draw=draw,
    )  # fmt: skip
    verifier = provenance(verifier_config(session.config))
    out += _described(session, result, attempt, verifier, settings, replay is None, version)
    drifted = drift(split, result.figures.groups_per_s, len(prompts), result.updated.metrics.step)
    if drifted is not None:
        (out if replay is None else split.pending).append(drifted)
    return out


def logged_groups(setting: int | str) -> int | None:
    """How many of a step's groups the log keeps whole: None for every one."""
    return None if setting == "all" else int(setting)


def logged_step(rows: Sequence[Event]) -> Logged:
    """What a catch-up replays of a step from its rows: its `RolloutsSampled`, `BatchRefilled`s
    and `MetricsRecorded`."""
    ran = next(e for e in rows if isinstance(e, MetricsRecorded))
    sampled = next(e for e in rows if isinstance(e, RolloutsSampled))
    refilled = "refill_rounds" in ran.metrics
    return Logged(
        rewards_GN=sampled.rewards, components=sampled.components, refilled=refilled,
        refills=[e.model_dump() for e in rows if isinstance(e, BatchRefilled)] if refilled else (),
    )  # fmt: skip


def _described(
    session: RLSession, result: StepResult, attempt: int, verifier: dict, settings: Settings,
    live: bool, policy_version: int,
) -> list[Event]:  # fmt: skip
    step, figures = result.updated.metrics.step, result.figures
    rollouts, judged = rollout_events(
        session.ctx.blobs if live else None, step=step, attempt=attempt,
        policy_version=policy_version,
        group_size=settings.group_size, verifier=verifier,
        rewards_GN=figures.rewards_GN, samples=figures.samples, verdicts=figures.verdicts,
        n_passed=figures.n_passed, n_total=figures.n_total, n_errors=figures.n_errors,
        components=figures.components,
    )  # fmt: skip
    return [
        rollouts,
        *(BatchRefilled(step=step, attempt=attempt, round=r.round, task_ids=r.task_ids,
                        rewards=r.rewards, n_varied=r.n_varied) for r in result.refilled.rounds),
        judged,
        MetricsRecorded(step=step, metrics=figures.metrics),
    ]  # fmt: skip


def rollout_events(
    blobs: BlobStore | None,
    *,
    step: int,
    attempt: int,
    group_size: int,
    verifier: dict,
    rewards_GN: list[list[float | None]],
    samples: list[dict],
    verdicts: list[dict],
    n_passed: int,
    n_errors: int,
    n_total: int | None = None,
    components: dict[str, list[list[float | None]]] | None = None,
    policy_version: int | None = None,
) -> tuple[RolloutsSampled, VerdictsRecorded]:
    """The step's rollout and verdict events. The rows keep what policies, gates, catch-up (every
    reward) and `why` read; the logged groups (`pipeline.sample_rollouts`: every one by default)
    and their verdicts go to one compressed blob (store/rollouts.py), which both events name
    (`blobs` None: a catch-up step, whose events are not appended)."""
    blob = None
    if blobs is not None and (samples or verdicts):
        blob = blobs.put_bytes(encode_rollouts(samples, verdicts))
    if n_total is None:
        n_total = sum(len(row) for row in rewards_GN)
    return (
        RolloutsSampled(
            step=step, attempt=attempt, n_groups=len(rewards_GN), group_size=group_size,
            policy_version=step if policy_version is None else policy_version,
            rewards=rewards_GN, components=components or {}, blob=blob,
        ),
        VerdictsRecorded(
            step=step, verifier=verifier, n_passed=n_passed, n_total=n_total, n_errors=n_errors,
            blob=blob,
        ),
    )  # fmt: skip
