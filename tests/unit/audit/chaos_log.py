"""A synthesised chaos run: the real driver and gates, with training stages that emit what the
policies would (a KL adjustment, a capability rollback, an entropy recovery), so `why` and `report`
can be checked against known numbers without a model."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.runner import Driver
from stages.types import StageContext
from store.blobs import BlobStore
from store.events import (
    BaselineRecorded,
    CheckpointSaved,
    EvalRecorded,
    Event,
    HyperparametersChanged,
    MetricsRecorded,
    PolicyDecided,
    RolledBack,
    RolloutsSampled,
    VerdictsRecorded,
)
from store.log import EventLog, StoredEvent
from store.projections import project
from tests.scenario.fake_stages import FakeStages

GOOD_CHECKPOINT = "c" * 64
DROPPED = {"arith": 0.8, "reverse": 0.9}  # reverse falls from 1.0 to 0.9 at step 20: -10%
# KL over the policy's 0.1 limit: one step (4: halved LR), then three in a row (37..39: a KL
# rollback at 39 to step 10), after every other decision so earlier seqs stay where they were.
KL_SPIKES = {4: 0.16, 37: 0.15, 38: 0.17, 39: 0.19}
KL_ROLLBACK_STEP = 39


@dataclass
class _Training:
    name: str
    first_step: int

    def run(self, ctx: StageContext) -> None:
        hyper = ctx.state().hyperparameters
        lr, kl_coef = hyper.get("learning_rate", 1e-5), 0.05
        temperature = hyper.get("temperature", 1.0)
        for step in range(self.first_step, self.first_step + 20):
            kl = KL_SPIKES.get(step, 0.04 + 0.001 * (step % 5))
            entropy = 0.2 if step == 35 else 1.2 - 0.01 * step
            # As the RL step writes them: groups with their completions, verdicts flat by group.
            samples = [
                {"task_id": f"t{g}", "prompt": f"{step} + {g} =",
                 "completions": [str(step + g), str(step + g + (g == 2))], "rewards": [1.0, float(g != 2)]}
                for g in (1, 2)
            ]  # fmt: skip
            verdicts = [
                {"task_id": f"t{g}", "passed": not (g == 2 and j == 1), "status": "ok"}
                for g in (1, 2) for j in range(2)
            ]  # fmt: skip
            metrics = {
                "kl": kl, "entropy": entropy, "reward_mean": 0.4 + 0.01 * step,
                "verify_rate": 0.5 + 0.008 * step, "learning_rate_scheduled": lr, "kl_penalty_coef": kl_coef,
                "temperature": temperature, "reward_std": 0.2 + 0.05 * math.sin(step),
            }  # fmt: skip
            batch = [
                RolloutsSampled(step=step, n_groups=2, group_size=2, samples=samples),
                VerdictsRecorded(step=step, verifier={"kind": "math"}, n_passed=3, n_total=4, verdicts=verdicts),
                MetricsRecorded(step=step, metrics=metrics),
            ]  # fmt: skip
            metrics_seq = ctx.emit(batch)[-1].seq
            # The runner appends a decision citing its evidence, then acts on it.
            if step == 4:
                ctx.emit([PolicyDecided(
                    policy="kl_control", action="halve_lr", trigger_metric="kl", value=kl,
                    threshold=0.1, evidence_seqs=[metrics_seq],
                    parameters={"learning_rate": lr / 2}, reason="KL above 0.1",
                )])  # fmt: skip
                lr /= 2
                ctx.emit([HyperparametersChanged(changes={"learning_rate": lr}, reason="kl")])
            if step == 35:
                ctx.emit([PolicyDecided(
                    policy="entropy", action="raise_temperature", trigger_metric="entropy",
                    value=entropy, threshold=0.3, evidence_seqs=[metrics_seq],
                    parameters={"temperature": 1.2}, reason="entropy collapsed",
                )])  # fmt: skip
                temperature = 1.2
                ctx.emit([HyperparametersChanged(changes={"temperature": 1.2}, reason="entropy")])
            if step == KL_ROLLBACK_STEP:
                self._kl_roll_back(ctx, step)
            if step % 10 == 0:
                self._evaluate(ctx, step)

    def _kl_roll_back(self, ctx: StageContext, step: int) -> None:
        """KL over 0.1 for three consecutive steps (the KL policy's default `rollback_after_steps`):
        the KL policy rolls back to the last checkpoint saved before the excursion (step 10's),
        citing the steps of its window as the real policy does, trigger first."""
        excursion = sorted(s for s in KL_SPIKES if s > 20)
        metrics = [e for e in ctx.state().metrics_window if e.step in excursion]
        target = next(c for c in ctx.state().checkpoints if c.digest == GOOD_CHECKPOINT)
        kl = sum(KL_SPIKES[s] for s in excursion) / len(excursion)
        ctx.emit([PolicyDecided(
            policy="kl", action="rollback", trigger_metric="kl", value=kl, threshold=0.1,
            evidence_seqs=[*sorted((m.seq for m in metrics), reverse=True), target.seq],
            parameters={"checkpoint": GOOD_CHECKPOINT, "to_step": 10, "from_step": step,
                        "checkpoint_seq": target.seq},
            reason=f"KL {kl:.4g} (mean of the last 3 steps) > 0.1 for 3 consecutive steps "
            f"(since step {excursion[0]})",
        )])  # fmt: skip
        ctx.emit([RolledBack(from_step=step, to_step=10, checkpoint=GOOD_CHECKPOINT, reason="kl")])

    def _evaluate(self, ctx: StageContext, step: int) -> None:
        dropped = step == 20
        capability = DROPPED if dropped else {"arith": 0.82, "reverse": 0.99}
        checkpoint = GOOD_CHECKPOINT if step == 10 else f"{step:02d}" * 32
        stored = ctx.emit(
            [
                CheckpointSaved(step=step, checkpoint=checkpoint),
                EvalRecorded(step=step, verify_rate=0.6 + 0.005 * step, capability=capability),
            ]
        )
        if not dropped:
            return
        baseline_seq = ctx.state().baseline_seq
        ctx.emit(
            [
                PolicyDecided(
                    policy="rollback", action="rollback", trigger_metric="capability.reverse",
                    value=0.9, threshold=0.95, evidence_seqs=[stored[-1].seq, baseline_seq],
                    parameters={"checkpoint": GOOD_CHECKPOINT, "to_step": 10},
                    reason="reverse fell more than 5% below its baseline",
                )
            ]
        )  # fmt: skip
        ctx.emit(
            [
                RolledBack(
                    from_step=20, to_step=10, checkpoint=GOOD_CHECKPOINT, reason="capability"
                ),
                HyperparametersChanged(changes={"learning_rate": 2.5e-6}, reason="rollback"),
            ]
        )


def chaos_run(tmp_path: Path) -> tuple[EventLog, str]:
    """A completed run with baseline {arith 0.8, reverse 1.0}, a KL halving at step 4, a rollback
    at step 20 (reverse 1.0 -> 0.9) to step 10, and an entropy recovery at step 35."""
    stages = FakeStages().registry()
    stages["rlvr_optimization"] = _Training("rlvr_optimization", 1)
    stages["iterative_training"] = _Training("iterative_training", 21)
    stages["sft_preparation"] = _Emit(
        "sft_preparation",
        BaselineRecorded(verify_rate=0.5, capability={"arith": 0.8, "reverse": 1.0}, n_heldout=100),
    )
    stages["evaluation"] = _Emit(
        "evaluation",
        EvalRecorded(step=40, verify_rate=0.85, capability={"arith": 0.81, "reverse": 0.98}),
    )
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path), run_name="chaos")
    run_id, _ = start_run(log, config)
    _PlainDriver(
        log, run_id, config, stages, run_dir=tmp_path / run_id, blobs=BlobStore(tmp_path / "blobs")
    ).run()
    return log, run_id


class _PlainDriver(Driver):
    """The driver without its policy engine: the stages above stand in for the policies, so the
    decisions in this log are exactly the ones written here, whatever the policies' defaults."""

    def emit(self, events: Sequence[Event]) -> list[StoredEvent]:
        stored = self.log.append(self.run_id, events, expected_seq=self.state.last_seq)
        self.state = project(stored, self.state)
        return stored


@dataclass
class _Emit:
    name: str
    event: BaselineRecorded | EvalRecorded

    def run(self, ctx: StageContext) -> None:
        ctx.emit([self.event])
