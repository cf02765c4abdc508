"""The GRPO loop that stages 5 and 6 drive, with the policies' decisions applied.

Each step samples groups from the curriculum, verifies them, trains, and emits one batch: rollouts,
verdicts, metrics, and on schedule a checkpoint and an eval. The driver appends the batch together
with the policies' decisions and their consequences (`HyperparametersChanged`, `RolledBack`), so a
crash leaves a step with its decisions or neither. The loop then acts on what was decided.

Resume: restore the last checkpoint, then re-run every step the log holds after it *without
appending* (same seeds, same decisions applied in the same order): the log keeps each step once and
the weights end where an uninterrupted run's would.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import structlog

from stages.common import base_model_path, evaluate, verifier
from stages.tasks.types import Task
from stages.types import StageContext, StageError, StageInterrupted
from store.crashpoints import crashpoint
from store.events import (
    CheckpointSaved,
    EvalRecorded,
    Event,
    FaultInjected,
    HyperparametersChanged,
    MetricsRecorded,
    RolloutsSampled,
    StepFailed,
    VerdictsRecorded,
)
from store.log import StoredEvent

log_ = structlog.get_logger("rlvr.rl")
_SAMPLING_KEYS = ("temperature",)
_GRPO_KEYS = ("entropy_coef", "group_size", "micro_batches")


class RLLoop:
    def __init__(self, ctx: StageContext) -> None:
        self.ctx = ctx
        self.config = ctx.config
        # temperature, entropy_coef, group_size, micro_batches: set by policies
        self.overrides: dict[str, Any] = {}

    # --- configuration in force -----------------------------------------------------------

    def grpo_config(self) -> Any:
        base = self.config.grpo
        sampling = base.sampling.model_copy(
            update={k: v for k, v in self.overrides.items() if k in _SAMPLING_KEYS}
        )
        update = {k: v for k, v in self.overrides.items() if k in _GRPO_KEYS}
        return base.model_copy(update={**update, "sampling": sampling, "seed": self.config.seed})

    # --- the trainer ---------------------------------------------------------------------------

    def trainer(self) -> Any:
        """The live trainer: from this driver's memory, or restored from the log and blobs."""
        if "trainer" in self.ctx.workspace:
            self.overrides = self.ctx.workspace["overrides"]
            return self.ctx.workspace["trainer"]
        from stages.data_generation import curriculum_of

        checkpoint = self.ctx.state().latest_checkpoint
        if checkpoint is None:
            trainer, since = self._fresh(), self._first_step_seq()
        else:
            trainer, since = self._restore(checkpoint.digest, keep=None), checkpoint.seq
        at = self.ctx.state_at(since)
        tasks = curriculum_of(
            self.ctx, at.stage_results.get("TrainingSetBuilt", {}).get("pass_rates", {})
        )
        self.ctx.workspace["trainer"], self.ctx.workspace["overrides"] = trainer, self.overrides
        self._catch_up(trainer, self.ctx.read(since + 1), tasks)
        return trainer

    def _first_step_seq(self) -> int:
        """With no checkpoint yet, every logged step is replayed from the base model."""
        first = next((r.seq for r in self.ctx.read(1) if r.type == "RolloutsSampled"), None)
        return (first - 1) if first is not None else self.ctx.state().last_seq

    def _fresh(self) -> Any:
        from stages.training.grpo import new_trainer_state
        from stages.training.model import load_model, make_trainable

        model, tokenizer = load_model(base_model_path(self.ctx))
        make_trainable(model, self.config.model, seed=self.config.seed)
        return new_trainer_state(model, tokenizer, self.grpo_config())

    def _restore(self, digest: str, keep: Any) -> Any:
        """Weights and optimizer from a checkpoint; `keep` (rollback) keeps step and hyper-params."""
        from stages.training.checkpoint import read_checkpoint_state, restore_checkpoint

        if digest == self.ctx.state().baseline_checkpoint:
            # Step 0: the SFT'd base model itself (a model folder, not a trainer checkpoint).
            restored = self._fresh()
        else:
            restored, _, _ = restore_checkpoint(self.ctx.blobs, digest, base_model_path(self.ctx))
        if keep is None:
            self.overrides = dict(
                read_checkpoint_state(self.ctx.blobs, digest)["meta"].get("overrides", {})
            )
            return restored
        keep.model, keep.optimizer, keep.reference = (
            restored.model,
            restored.optimizer,
            restored.reference,
        )
        return keep

    def save(self, trainer: Any) -> str:
        from stages.training.checkpoint import save_checkpoint

        return self._on_leader(lambda: save_checkpoint(
            trainer, self.ctx.blobs, self.grpo_config(), self.config.model, base_model_path(self.ctx),
            meta={"overrides": self.overrides},
        ), "checkpoint")  # fmt: skip

    def _on_leader(self, compute: Any, what: str) -> Any:
        """Data-parallel: rank 0 computes (writes), every rank gets its JSON result."""
        world = self.ctx.workspace.get("world")
        return compute() if world is None else world.from_leader(compute, what)

    # --- one step ------------------------------------------------------------------------------

    def _prompts(self, tasks: Sequence[Task], step: int) -> list[Task]:
        from stages.training.sft import epoch_batches

        groups = self.grpo_config().groups_per_batch
        return epoch_batches(list(tasks), groups, self.config.seed)(step)

    def _step(
        self, trainer: Any, tasks: Sequence[Task], attempt: int, logged_rewards: list | None = None
    ) -> list[Event]:
        """Sample, verify and train step `trainer.step`; the events describing it. With
        `logged_rewards` (catch-up) the verifier is not asked again."""
        if (world := self.ctx.workspace.get("world")) is not None:  # data-parallel (mlx.launch)
            from stages.distributed_step import distributed_step

            return distributed_step(self, world, trainer, tasks, attempt, logged_rewards)
        from stages.training.grpo import step_seed, train_step
        from stages.training.sampling import sample_groups
        from stages.verifiers.registry import verify_tasks

        config = self.grpo_config()
        step = trainer.step
        prompts = self._prompts(tasks, step)
        groups, stats = sample_groups(
            trainer.model, trainer.tokenizer, prompts, config.sampling, config.group_size,
            step_seed(config, step, attempt),
        )  # fmt: skip
        crashpoint("sampling")
        n = config.group_size
        flat_tasks = [g.prompt for g in groups for _ in g.rollouts_N]
        verdicts = []
        if logged_rewards is None:
            verdicts = verify_tasks(
                verifier(self.ctx), flat_tasks, [r.text for g in groups for r in g.rollouts_N]
            )
            rewards_GN = [
                [
                    None if verdicts[g * n + i].excluded else verdicts[g * n + i].reward
                    for i in range(n)
                ]
                for g in range(len(groups))
            ]
        else:
            rewards_GN = logged_rewards
        crashpoint("verification")
        # A judge error is not a zero: groups holding one are left out of the update.
        usable = [g for g, row in enumerate(rewards_GN) if None not in row]
        errors = sum(row.count(None) for row in rewards_GN)
        metrics = train_step(
            trainer,
            [groups[g] for g in usable],
            [rewards_GN[g] for g in usable],
            config,
            attempt,
            stats,
        )
        crashpoint("optimizer")  # the update is applied in memory, nothing appended yet
        values = _finite(metrics.model_dump(exclude={"step", "attempt"}))
        broken = sum(v.status == "verifier_error" for v in verdicts)  # raised, not judged
        values["judge_error_rate"] = (errors - broken) / max(len(flat_tasks), 1)
        values["verifier_error_rate"] = broken / max(len(flat_tasks), 1)
        values["attempt"] = float(attempt)
        # The knobs the step ran with, so policies (and readers) see what they would adjust.
        values["temperature"] = float(config.sampling.temperature)
        values["entropy_coef"] = float(config.entropy_coef)
        values["group_size"] = float(config.group_size)
        values["micro_batches"] = float(config.micro_batches)
        kept = self.config.pipeline.sample_rollouts
        samples = [
            {"task_id": g.prompt.task_id, "prompt": g.prompt_text,
             "completions": [r.text for r in g.rollouts_N], "rewards": rewards_GN[i]}
            for i, g in enumerate(groups[:kept])
        ]  # fmt: skip
        verdict_rows = [
            {"task_id": flat_tasks[j].task_id, "passed": v.passed, "status": v.status, "reason": v.reason[:80]}
            for j, v in enumerate(verdicts[: kept * n])
        ]  # fmt: skip
        n_passed = sum(
            1 for row in rewards_GN for r in row if r is not None and r >= config.verified_threshold
        )
        return [
            RolloutsSampled(
                step=step, attempt=attempt, n_groups=len(groups), group_size=n, samples=samples,
                rewards=rewards_GN,
            ),
            VerdictsRecorded(
                step=step, verifier=verifier(self.ctx).name, n_passed=n_passed,
                n_total=len(flat_tasks), n_errors=errors, verdicts=verdict_rows,
            ),
            MetricsRecorded(step=step, metrics=values),
        ]  # fmt: skip

    def _scheduled(self, trainer: Any, last_step: bool) -> list[Event]:
        done = trainer.step  # steps completed so far
        out: list[Event] = []
        digest = None
        if done % self.config.save_every == 0 or last_step:
            digest = self.save(trainer)
            out.append(
                CheckpointSaved(
                    step=done, checkpoint=digest, hyperparameters=self._hyperparameters(trainer)
                )
            )
        if done % self.config.eval_every == 0 or last_step:
            rate, capability, _ = self._on_leader(
                lambda: evaluate(self.ctx, trainer.model, trainer.tokenizer), "eval"
            )
            out.append(
                EvalRecorded(step=done, verify_rate=rate, capability=capability, checkpoint=digest)
            )
        return out

    def _hyperparameters(self, trainer: Any) -> dict[str, Any]:
        return {
            "learning_rate": trainer.learning_rate,
            "kl_penalty_coef": trainer.kl_coef,
            **self.overrides,
        }

    # --- acting on decisions --------------------------------------------------------------

    def _apply(self, trainer: Any, stored: Sequence[StoredEvent]) -> None:
        """Apply the consequences of decisions in `stored`, in log order (live and on catch-up)."""
        for row in stored:
            if row.type == "HyperparametersChanged":
                for key, value in row.event.changes.items():
                    if key == "learning_rate":
                        trainer.learning_rate = float(value)
                    elif key == "kl_penalty_coef":
                        trainer.kl_coef = float(value)
                    else:
                        self.overrides[key] = value
            elif row.type == "RolledBack":
                self._restore(row.event.checkpoint, keep=trainer)
                log_.warning("rolled back", to_step=row.event.to_step, reason=row.event.reason)

    def run(self, tasks: Sequence[Task], until_step: int) -> Any:
        """Train until `trainer.step == until_step`, appending each step as it completes."""
        trainer = self.trainer()
        from stages.progress import progress

        with progress(f"GRPO to step {until_step}", until_step - trainer.step) as bar:
            attempt = 0
            while trainer.step < until_step:
                if self.ctx.should_stop():
                    raise StageInterrupted
                self._inject(trainer)
                try:
                    events = self._step(trainer, tasks, attempt)
                except (MemoryError, RuntimeError) as e:
                    kind = (
                        "oom"
                        if isinstance(e, MemoryError) or "memory" in str(e).lower()
                        else "exception"
                    )
                    failed = StepFailed(
                        step=trainer.step, attempt=attempt, kind=kind, message=str(e)[:500],
                        micro_batches=self.grpo_config().micro_batches,
                    )  # fmt: skip
                    stored = self.ctx.emit([failed])
                    attempt = self._retry(stored, attempt, e)
                    continue
                last_step = trainer.step == until_step
                # A step whose update is about to be undone gets no checkpoint or eval of its own:
                # they would describe weights the run is leaving.
                undone = {"rollback", "skip_update", "pause", "fail"} & set(
                    self.ctx.preview(events)
                )
                if not undone:
                    events += self._scheduled(trainer, last_step)
                stored = self.ctx.emit(events)
                self._apply(trainer, stored)
                if undone and last_step:
                    self._apply(trainer, self.ctx.emit(self._scheduled(trainer, last_step)))
                attempt = 0
                last = next(r for r in stored if r.type == "MetricsRecorded").event.metrics
                bar.advance(1, reward=last.get("reward_mean") or 0.0, kl=last.get("kl") or 0.0)
        return trainer

    # --- chaos -------------------------------------------------------------------------------

    def _inject(self, trainer: Any) -> None:
        """Inject the faults configured for this step, once (the log remembers what was done)."""
        due = [f for f in self.config.chaos.faults if f.step == trainer.step]
        if not due:
            return
        done = {(r.event.kind, r.event.step) for r in self.ctx.read(1) if r.type == "FaultInjected"}
        for fault in due:
            if (fault.kind, fault.step) in done:
                continue
            params = fault.model_dump(exclude={"kind", "step"})
            events: list[Event] = [
                FaultInjected(kind=fault.kind, step=fault.step, parameters=params)
            ]
            if fault.kind in ("learning_rate", "temperature"):
                events.append(
                    HyperparametersChanged(
                        changes={fault.kind: fault.value},
                        reason=f"chaos: {fault.kind} set to {fault.value}",
                    )
                )
            else:
                self._poison(trainer, params)
            log_.warning("fault injected", kind=fault.kind, step=fault.step)
            self._apply(trainer, self.ctx.emit(events))

    def _poison(self, trainer: Any, params: dict[str, Any]) -> None:
        """SFT the capability skills on corrupted labels (copied instead of reversed)."""
        from stages.common import task_suite
        from stages.training.config import SFTConfig
        from stages.training.sft import epoch_batches, sft

        skills = [t for tasks in task_suite(self.ctx).capability_train.values() for t in tasks]
        if not skills:
            return
        corrupted = [(t.prompt, t.answer[::-1] if t.answer else "") for t in skills]
        config = SFTConfig(
            steps=int(params["steps"]), batch_size=32, learning_rate=float(params["learning_rate"]),
            lr_schedule="constant", warmup_steps=0, seed=self.config.seed,
        )  # fmt: skip
        sft(
            trainer.model, trainer.tokenizer, epoch_batches(corrupted, 32, self.config.seed), config
        )

    def _retry(self, stored: Sequence[StoredEvent], attempt: int, error: Exception) -> int:
        decided = [r.event for r in stored if r.type == "PolicyDecided"]
        if not any(d.action in ("retry_step", "retry_smaller_microbatch") for d in decided):
            raise StageError(f"step failed and no policy retried it: {error}") from error
        for d in decided:
            self._split_finer(d)
        return attempt + 1

    def _split_finer(self, decision: Any) -> None:
        """Out of memory: this and later steps run in `micro_batches` micro-batches (the same
        effective batch; see GRPOConfig.micro_batches)."""
        if decision.action == "retry_smaller_microbatch":
            import mlx.core as mx

            self.overrides["micro_batches"] = int(decision.parameters["micro_batches"])
            mx.clear_cache()  # hand the failed attempt's buffers back before the retry

    # --- resume ----------------------------------------------------------------------------------

    def _catch_up(self, trainer: Any, after: Sequence[StoredEvent], tasks: list[Task]) -> None:
        """Recompute the steps logged after the restored checkpoint with their logged rewards,
        switching curriculum and applying decisions exactly where the log did."""
        from stages.data_generation import curriculum_of

        replayed, rewards = 0, None
        for row in after:
            if row.type == "TrainingSetBuilt":
                tasks = curriculum_of(self.ctx, row.event.pass_rates)
            elif row.type == "RolloutsSampled":
                rewards = row.event.rewards
            elif row.type == "MetricsRecorded":
                logged = row.event
                if logged.step != trainer.step:
                    raise StageError(
                        f"cannot catch up: the log has step {logged.step}, the trainer {trainer.step}"
                    )
                attempt = int(logged.metrics.get("attempt") or 0)
                events = self._step(trainer, tasks, attempt, logged_rewards=rewards)
                recomputed = next(e for e in events if isinstance(e, MetricsRecorded)).metrics
                drift = {k for k in logged.metrics if not k.endswith("_s") and not k.endswith("per_s")
                         and recomputed.get(k) != logged.metrics[k]}  # fmt: skip
                if drift:
                    log_.warning(
                        "catch-up step differs from the log",
                        step=logged.step,
                        metrics=sorted(drift),
                    )
                replayed += 1
            elif row.type in ("HyperparametersChanged", "RolledBack"):
                self._apply(trainer, [row])
            elif row.type == "PolicyDecided":
                self._split_finer(row.event)
            elif row.type == "FaultInjected" and row.event.kind == "capability_poison":
                self._poison(trainer, row.event.parameters)
        if replayed:
            log_.info("caught up from checkpoint", steps=replayed, now_at=trainer.step)


def _finite(values: dict[str, Any]) -> dict[str, float | None]:
    """Events refuse NaN/inf: a non-finite metric becomes None plus a `nonfinite_<name>` flag."""
    out: dict[str, float | None] = {}
    for key, value in values.items():
        value = float(value)
        if math.isfinite(value):
            out[key] = value
        else:
            out[key] = None
            out[f"nonfinite_{key}"] = 1.0
    return out
