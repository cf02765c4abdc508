"""Out of memory in a GRPO step: StepFailed -> the faults policy's retry_smaller_microbatch ->
the retry (and the steps after it) run in that many micro-batches, same effective batch."""

from __future__ import annotations

from pathlib import Path

import pytest

import stages.rl.step as one_step
import stages.training.grpo as grpo
from orchestrator.config import load_config
from orchestrator.driver.commands import load_state, start_run, transition
from orchestrator.driver.runner import Driver
from stages.rl.loop import RLLoop
from stages.tasks.generators import generate_arithmetic
from stages.training.config import ModelConfig
from stages.training.model import prepare_model
from store.blobs import BlobStore
from store.log import EventLog

ROOT = Path(__file__).resolve().parents[3]


def test_out_of_memory_is_retried_in_more_micro_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(
        ROOT / "configs" / "quickstart.toml",
        [f"log_path={tmp_path}", "grpo.groups_per_batch=4", "grpo.group_size=4"],
    )
    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, config)
    transition(log, run_id, "start")
    while load_state(log, run_id).state != "rlvr_optimization":  # policies act while training
        transition(log, run_id, "advance", gate_passed=True)
    driver = Driver(
        log, run_id, config, {}, run_dir=tmp_path / run_id, blobs=BlobStore(tmp_path / "blobs")
    )
    loop = RLLoop(driver.context())
    model, tokenizer, _ = prepare_model(ModelConfig(), tmp_path / "base")
    loop.session.trainer = grpo.new_trainer_state(model, tokenizer, loop.session.grpo_config())
    # Checkpoints and evals are not the subject (they need stages 1-4's results).
    monkeypatch.setattr(RLLoop, "scheduled", lambda self, last_step: [])

    calls: list[tuple[int, int]] = []
    real_train_step = grpo.train_step

    def train_step(state, groups_G, rewards_GN, config, *args, **kwargs):
        calls.append((config.micro_batches, sum(len(g.rollouts_N) for g in groups_G)))
        if config.micro_batches == 1:
            raise MemoryError("out of memory (injected)")
        return real_train_step(state, groups_G, rewards_GN, config, *args, **kwargs)

    monkeypatch.setattr(one_step, "train_step", train_step)
    trainer = loop.run(generate_arithmetic(n=64, seed=0), until_step=2)

    assert trainer.step == 2
    rows = list(log.read(run_id))
    (failed,) = [r.event for r in rows if r.type == "StepFailed"]
    assert (failed.step, failed.attempt, failed.kind, failed.micro_batches) == (0, 0, "oom", 1)
    (retry,) = [r.event for r in rows if r.type == "PolicyDecided"]
    assert retry.action == "retry_smaller_microbatch"
    assert retry.parameters == {"step": 0, "attempt": 1, "micro_batches": 2}
    metrics = [r.event for r in rows if r.type == "MetricsRecorded"]
    assert [(m.step, m.metrics["attempt"], m.metrics["micro_batches"]) for m in metrics] == [
        (0, 1.0, 2.0),
        (1, 0.0, 2.0),  # later steps keep the finer split
    ]
    # Every attempt trained the same 16 rollouts: only their split changed.
    assert calls == [(1, 16), (2, 16), (2, 16)]
