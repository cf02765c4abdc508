"""The GRPO loop that stages 5 and 6 drive, with the policies' decisions applied.

Each step is appended in two batches. First the step itself (rollouts, verdicts, metrics), with
the policies' decisions on it and their consequences (`HyperparametersChanged`, `RolledBack`) in
the same transaction; the loop applies them. Then, on schedule, the checkpoint and the eval of
the weights as the decisions left them, with the decisions on the eval (a capability rollback).
A step whose update a decision voided (rolled back) gets no checkpoint or eval of its own, except
the stage's last step, whose checkpoint and eval describe the restored weights. A crash between
the two batches: the resumed loop replays the step from the log (stages/rl/resume.py) and writes
the checkpoint and eval it still owes before the next step.
"""

from __future__ import annotations

from collections.abc import Sequence

from stages.common import evaluate
from stages.errors import StageInterrupted
from stages.rl.chaos import inject
from stages.rl.checkpoints import save
from stages.rl.decisions import apply, discarded_events, retry, voided
from stages.rl.logged_step import step_events
from stages.rl.resume import open_trainer, owes_schedule
from stages.rl.session import RLSession, session_of
from stages.tasks.types import Task
from stages.training.types import TrainerState
from stages.types import StageContext
from store.events import CheckpointSaved, EvalRecorded, Event, StepFailed
from store.log import StoredEvent


class RLLoop:
    def __init__(self, ctx: StageContext) -> None:
        self.session: RLSession = session_of(ctx)

    def trainer(self) -> TrainerState:
        return open_trainer(self.session)

    def save(self) -> str:
        return save(self.session)

    def run(self, tasks: Sequence[Task], until_step: int) -> TrainerState:
        """Train until `trainer.step == until_step`, appending each step as it completes."""
        from stages.progress import progress

        session, ctx = self.session, self.session.ctx
        trainer = open_trainer(session)
        if owes_schedule(session, self._due(trainer.step, until_step), trainer.step == until_step):
            self._emit_scheduled(trainer.step == until_step)
        with progress(f"GRPO to step {until_step}", until_step - trainer.step) as bar:
            attempt = 0
            while trainer.step < until_step:
                if ctx.should_stop():
                    raise StageInterrupted
                inject(session)
                settings = session.settings()  # the log's, after the decisions so far
                try:
                    events = step_events(session, tasks, attempt, settings)
                except (MemoryError, RuntimeError) as e:
                    kind = (
                        "oom"
                        if isinstance(e, MemoryError) or "memory" in str(e).lower()
                        else "exception"
                    )
                    failed = StepFailed(
                        step=trainer.step, attempt=attempt, kind=kind, message=str(e)[:500],
                        micro_batches=settings.micro_batches,
                    )  # fmt: skip
                    attempt = retry(ctx.emit([failed]), attempt, e)
                    continue
                stored = ctx.emit(events)
                self._apply(stored)
                last_step = trainer.step == until_step
                if self._due(trainer.step, until_step) and (last_step or not voided(stored)):
                    self._emit_scheduled(last_step)
                attempt = 0
                last = next(r for r in stored if r.type == "MetricsRecorded").event.metrics
                bar.advance(1, reward=last.get("reward_mean") or 0.0, kl=last.get("kl") or 0.0)
        return trainer

    def _emit_scheduled(self, last_step: bool) -> None:
        if events := self.scheduled(last_step):
            self._apply(self.session.ctx.emit(events))

    def _apply(self, stored: Sequence[StoredEvent]) -> None:
        apply(self.session, stored)
        if discarded := discarded_events(self.session):
            self.session.ctx.emit(discarded)

    def _due(self, done: int, until_step: int) -> bool:
        config = self.session.config
        return done % config.save_every == 0 or done % config.eval_every == 0 or done == until_step

    def scheduled(self, last_step: bool) -> list[Event]:
        """The checkpoint and the eval due after the step just completed."""
        session = self.session
        trainer = session.trainer
        assert trainer is not None
        done, config = trainer.step, session.config
        out: list[Event] = []
        digest = None
        if done % config.save_every == 0 or last_step:
            digest = save(session)
            out.append(CheckpointSaved(
                step=done, checkpoint=digest, hyperparameters=session.settings().values()
            ))  # fmt: skip
        if done % config.eval_every == 0 or last_step:
            rate, capability, _ = session.on_leader(
                lambda: evaluate(session.services, trainer.model, trainer.tokenizer), "eval"
            )
            out.append(
                EvalRecorded(step=done, verify_rate=rate, capability=capability, checkpoint=digest)
            )
        return out
