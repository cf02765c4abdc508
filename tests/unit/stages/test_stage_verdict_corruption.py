"""The verdict-corruption fault (`[[chaos.faults]] kind = "verdict_corruption"`): from its step on
the step's verdicts are corrupted after the verifier's check; its silent form leaves nothing of
itself in the log (no event, not in the recorded config or its hash).

The real RL loop on a tiny untrained model (every verdict fails), 4 steps; evals are faked."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

import stages.rl.loop as rl_loop
from orchestrator.config import config_hash, load_config
from orchestrator.driver.commands import load_state, start_run, transition
from stages.config import ChaosConfig, InjectedFault
from stages.rl.chaos import corrupt
from stages.verifiers.types import Verdict
from store.events import TrainingSetBuilt
from store.log import EventLog
from tests.unit.stages.test_stage_checkpoint_decisions import _driver, _train

ROOT = Path(__file__).resolve().parents[3]


def _verdicts() -> list[Verdict]:
    return [
        Verdict(passed=True, reward=1.0, status="ok", reason="42 equals 42"),
        Verdict(passed=False, reward=0.0, status="failed", reason="41 is not 42"),
        Verdict(passed=False, reward=0.0, status="judge_error", reason="judge unreachable"),
    ]


def _fault(**settings) -> InjectedFault:
    return InjectedFault(kind="verdict_corruption", **settings)


def test_zero_mode_fails_every_verdict_from_its_step_on_and_leaves_earlier_steps_alone() -> None:
    faults = [_fault(step=3)]
    ids, texts = ["a", "b", "c"], ["42", "41", "x"]
    assert corrupt(faults, 0, 2, ids, texts, _verdicts()) == _verdicts()
    late = corrupt(faults, 0, 3, ids, texts, _verdicts())
    assert [(v.passed, v.reward) for v in late] == [(False, 0.0), (False, 0.0), (False, 0.0)]
    assert late[0].reason == "42 equals 42"  # a silent scorer bug: the reason still reads right
    assert late[2] == _verdicts()[2]  # a judge error carries no reward to corrupt


def test_flip_mode_passes_what_failed_and_fails_what_passed() -> None:
    flipped = corrupt([_fault(step=0, mode="flip")], 0, 5, ["a", "b", "c"], ["1", "2", "3"],
                      _verdicts())  # fmt: skip
    assert [(v.passed, v.reward, v.status) for v in flipped[:2]] == [
        (False, 0.0, "ok"), (True, 1.0, "ok"),
    ]  # fmt: skip


def test_a_share_corrupts_that_share_the_same_rollouts_each_time() -> None:
    ids, texts = [f"t{i}" for i in range(2000)], [str(i) for i in range(2000)]
    right = [Verdict(passed=True, reward=1.0, status="ok", reason="right")] * 2000
    first = corrupt([_fault(step=0, share=0.25)], 7, 4, ids, texts, right)
    again = corrupt([_fault(step=0, share=0.25)], 7, 4, ids, texts, right)
    wrong = sum(not v.passed for v in first)
    assert 400 < wrong < 600
    assert first == again


def test_mode_share_and_silent_belong_to_verdict_corruption_only() -> None:
    with pytest.raises(ValidationError, match="verdict_corruption's settings"):
        InjectedFault(kind="temperature", step=2, value=0.1, silent=True)


def test_a_silent_fault_is_in_neither_the_recorded_config_nor_its_hash(tmp_path: Path) -> None:
    quickstart = ROOT / "configs" / "quickstart.toml"
    plain = load_config(quickstart, [f"log_path={tmp_path}"])
    silent = load_config(
        quickstart,
        [f"log_path={tmp_path}", "chaos.faults=[{kind='verdict_corruption', step=2, silent=true}]"],
    )
    assert silent.chaos.faults[0].silent
    assert silent.model_dump(mode="json") == plain.model_dump(mode="json")
    assert config_hash(silent) == config_hash(plain)
    loud = ChaosConfig(faults=[_fault(step=2)])
    assert loud.model_dump()["faults"][0]["kind"] == "verdict_corruption"


def _run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str, *settings: str
) -> tuple[EventLog, str]:
    """A run of 4 RL steps of 4 groups of 4 on a tiny untrained model with `fault` (a chaos
    fault, TOML inline) and `settings`; its log and id."""
    config = load_config(
        ROOT / "configs" / "quickstart.toml",
        [f"log_path={tmp_path}", "grpo.groups_per_batch=4", "grpo.group_size=4",
         "save_every=2", "eval_every=2", "policies.rollback.enabled=false",
         "policies.entropy.enabled=false", "policies.kl.enabled=false",
         f"chaos.faults=[{fault}]", *settings],
    )  # fmt: skip
    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, config)
    transition(log, run_id, "start")
    while load_state(log, run_id).state != "rlvr_optimization":
        transition(log, run_id, "advance", gate_passed=True)
    monkeypatch.setattr(
        rl_loop, "evaluate", lambda ctx, model, tokenizer: (0.5, {"reverse": 1.0}, 10)
    )
    from stages.training.model import prepare_model

    prepare_model(config.model, tmp_path / "base")
    driver = _driver(tmp_path, log, run_id, config)
    ctx = driver.context()
    ids = [t.task_id for t in ctx.services.tasks.train[:16]]
    ctx.emit([TrainingSetBuilt(n_candidates=16, n_kept=16, coverage={},
                               pass_rates=dict.fromkeys(ids, 0.5))])  # fmt: skip
    _train(driver, 4)
    return log, run_id


def _rewards_by_step(log: EventLog, run_id: str) -> dict[int, set[float]]:
    return {
        r.event.step: {x for row in r.event.rewards for x in row}
        for r in log.read(run_id) if r.type == "RolloutsSampled"
    }  # fmt: skip


def test_a_silent_flip_changes_the_logged_rewards_from_its_step_and_logs_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, run_id = _run(
        tmp_path, monkeypatch, "{kind='verdict_corruption', step=2, mode='flip', silent=true}"
    )
    # an untrained model answers nothing right: its verdicts all fail until they are flipped
    assert _rewards_by_step(log, run_id) == {0: {0.0}, 1: {0.0}, 2: {1.0}, 3: {1.0}}
    rows = list(log.read(run_id))
    assert not [r for r in rows if r.type == "FaultInjected"]
    assert "verdict_corruption" not in str(rows[0].event.config)


def test_a_loud_corruption_is_logged_as_a_fault_at_its_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, run_id = _run(tmp_path, monkeypatch, "{kind='verdict_corruption', step=1, mode='flip'}")
    faults = [r.event for r in log.read(run_id) if r.type == "FaultInjected"]
    assert [(f.kind, f.step, f.parameters["mode"]) for f in faults] == [
        ("verdict_corruption", 1, "flip")
    ]
    assert _rewards_by_step(log, run_id) == {0: {0.0}, 1: {1.0}, 2: {1.0}, 3: {1.0}}
