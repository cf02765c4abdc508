"""Dynamic sampling and weighted reward components through the RL loop and a resume's catch-up
(stages/rl/resume.py): each refill round is a `BatchRefilled` event of its step's batch, each
component is in `RolloutsSampled.components` and a `reward_<name>` metric, and a run rebuilt from
its log (the verifier not asked again) ends on the same weights as one that never stopped."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from mlx.utils import tree_flatten

import stages.tasks.references as references
from orchestrator.config import load_config
from orchestrator.driver.commands import load_state, start_run, transition
from orchestrator.driver.runner import Driver
from stages.rl.loop import RLLoop
from stages.rl.resume import catch_up
from stages.tasks.generators import generate_arithmetic
from stages.training.grpo import new_trainer_state
from stages.training.model import load_model
from store.blobs import BlobStore
from store.log import EventLog

ROOT = Path(__file__).resolve().parents[3]
SETTINGS = [
    "grpo.groups_per_batch=4",
    "grpo.group_size=4",
    "grpo.sampling.max_tokens=5",
    "grpo.learning_rate=1e-3",
    "grpo.dynamic_sampling=true",
    "grpo.max_refill_rounds=2",
    "grpo.reward_weights={correctness=1.0, format=0.25}",
]
TIMING = ("_s", "per_s")


def _loop(
    tmp_path: Path, model_dir: Path, log: EventLog | None = None, run_id: str = "", *extra: str
):
    settings = [f"log_path={tmp_path}", *SETTINGS, *extra]
    config = load_config(ROOT / "configs" / "quickstart.toml", settings)
    if log is None:
        log = EventLog(tmp_path / "events.db")
        run_id, _ = start_run(log, config)
        transition(log, run_id, "start")
        while load_state(log, run_id).state != "rlvr_optimization":
            transition(log, run_id, "advance", gate_passed=True)
    driver = Driver(
        log, run_id, config, {}, run_dir=tmp_path / run_id, blobs=BlobStore(tmp_path / "blobs")
    )
    loop = RLLoop(driver.context())
    model, tokenizer = load_model(model_dir)
    loop.session.trainer = new_trainer_state(model, tokenizer, loop.session.grpo_config())
    return log, run_id, loop


def _weights(trainer) -> dict[str, np.ndarray]:
    return {k: np.array(v) for k, v in tree_flatten(trainer.model.trainable_parameters())}


def _logged(log: EventLog, run_id: str) -> list[tuple[str, dict]]:
    """The steps' events as logged, wall-clock figures left out."""
    out = []
    for row in log.read(run_id, types=["RolloutsSampled", "BatchRefilled", "MetricsRecorded"]):
        payload = row.event.model_dump()
        if row.type == "MetricsRecorded":
            payload["metrics"] = {
                k: v for k, v in payload["metrics"].items() if not k.endswith(TIMING)
            }
        out.append((row.type, payload))
    return out


def test_a_resumed_run_replays_its_refill_rounds_and_ends_on_the_same_weights(
    tmp_path: Path, sft_model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Checkpoints and evals are not the subject (they need stages 1-4's results).
    monkeypatch.setattr(RLLoop, "scheduled", lambda self, last_step: [])
    tasks = generate_arithmetic(n=64, seed=0)

    log_a, run_a, uninterrupted = _loop(tmp_path / "a", sft_model_dir)
    reference = uninterrupted.run(tasks, until_step=3)

    log_b, run_b, first = _loop(tmp_path / "b", sft_model_dir)
    first.run(tasks, until_step=2)
    # The driver dies; a new one rebuilds the trainer from the log without asking the verifier.
    _, _, second = _loop(tmp_path / "b", sft_model_dir, log_b, run_b)

    def no_verifier(*args, **kwargs):
        raise AssertionError("catch-up must take the rewards from the log")

    # A driver whose config turned dynamic sampling off since (a branch's override) replays
    # the logged steps as they ran: with their refill rounds.
    _, _, branched = _loop(tmp_path / "b", sft_model_dir, log_b, run_b,
                           "grpo.dynamic_sampling=false", "grpo.max_refill_rounds=0")  # fmt: skip
    with monkeypatch.context() as patched:
        patched.setattr(references, "verify_tasks", no_verifier)
        start = second.session.config.grpo.start_settings()  # in force where the log begins
        catch_up(second.session, list(log_b.read(run_b)), tasks, start)
        catch_up(branched.session, list(log_b.read(run_b)), tasks, start)
    assert second.session.trainer.step == branched.session.trainer.step == 2
    at_two, branched_at_two = _weights(second.session.trainer), _weights(branched.session.trainer)
    assert all(np.array_equal(at_two[k], branched_at_two[k]) for k in at_two)
    resumed = second.run(tasks, until_step=3)

    logged = _logged(log_a, run_a)
    assert logged == _logged(log_b, run_b)  # each step once, refills and components alike
    refills = [p for t, p in logged if t == "BatchRefilled"]
    assert refills, "no step refilled: the test would not exercise the replay"
    assert all(len(p["task_ids"]) == len(p["rewards"]) > 0 for p in refills)
    sampled = [p for t, p in logged if t == "RolloutsSampled"]
    assert all(set(p["components"]) == {"correctness", "format"} for p in sampled)
    metrics = [p["metrics"] for t, p in logged if t == "MetricsRecorded"]
    assert all({"reward_correctness", "reward_format", "refill_rounds"} <= set(m) for m in metrics)
    for p, m in zip(sampled, metrics, strict=True):  # the reward is the weighted sum
        combined = np.array(p["components"]["correctness"]) + 0.25 * np.array(
            p["components"]["format"]
        )
        assert np.allclose(combined, np.array(p["rewards"]))
        assert m["reward_format"] == pytest.approx(np.mean(p["components"]["format"]))
        correct = np.array(p["components"]["correctness"]) >= 1.0
        assert m["verify_rate"] == pytest.approx(correct.mean())  # not the weighted reward's
    live, replayed = _weights(reference), _weights(resumed)
    assert all(np.array_equal(live[k], replayed[k]) for k in live)
