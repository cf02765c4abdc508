"""Every setting a run changes while it trains, changed by the trigger that changes it, at a
checkpoint, and a resume, a branch and a catch-up from the base model each end on the weights of
the run that never stopped: the settings in force are the log's fold, whatever is restored.

The real RL loop on a tiny untrained model (every reward 0: no group varies), 8 steps, a
checkpoint every 2 (evals faked: they need stages 1-4's held-out sets):
- learning_rate, temperature: `[chaos]` faults, injected at the checkpoints of steps 2 and 4;
- kl_penalty_coef: the KL policy (its limit ~0), on steps 1, 3, 5, 7, each followed by a checkpoint;
- group_size (and entropy_coef): the entropy policy's recovery (shrink_group_size,
  entropy_bonus) when no group varies for 2 steps, on the same steps;
- micro_batches: an out-of-memory injected into step 5's update; the faults policy retries it
  in 2 micro-batches, and step 5's checkpoint follows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import stages.rl.loop as rl_loop
import stages.rl.step as one_step
from orchestrator.config import load_config
from orchestrator.driver.commands import load_state, start_run, transition
from orchestrator.driver.lifecycle import branch
from store.events import RunRewound, TrainingSetBuilt
from store.log import EventLog, StoredEvent
from tests.unit.stages.test_stage_checkpoint_decisions import _driver, _train

ROOT = Path(__file__).resolve().parents[3]
STEPS, OOM_STEP = 8, 5
SETTINGS = [
    "grpo.groups_per_batch=4", "grpo.group_size=4", "save_every=2", "eval_every=2",
    "grpo.entropy_coef=0.5", "grpo.drop_zero_variance_groups=false", "grpo.learning_rate=1e-2",
    # the KL policy owns the coefficient alone here (the LR is chaos's)
    "policies.kl.limit=1e-12", "policies.kl.window=1", "policies.kl.adjust=['kl_penalty_coef']",
    "policies.kl.adjust_every_steps=2", "policies.kl.rollback_after_steps=64",
    "policies.kl.max_adjustments=100", "policies.rollback.enabled=false",
    # no group ever varies: every 2 steps the entropy policy shrinks the groups (4 -> 2, its
    # floor) and raises the entropy bonus
    "policies.entropy.early_steps=1", "policies.entropy.consecutive_steps=2",
    "policies.entropy.recoveries=['shrink_group_size', 'entropy_bonus']",
    "policies.entropy.entropy_bonus=0.05", "policies.entropy.max_entropy_coef=10.0",
    "policies.entropy.max_recoveries=100", "policies.entropy.rollback=false",
    "chaos.faults=[{kind='learning_rate', step=2, value=5e-3}, {kind='temperature', step=4, value=0.5}]",
    # every checkpoint keeps its optimizer state: each cut restores the one before it
    "checkpoints.keep_optimizer_last=100",
]  # fmt: skip


@pytest.fixture(autouse=True)
def _faked_evals_and_an_out_of_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        rl_loop, "evaluate", lambda services, model, tokenizer: (0.5, {"reverse": 1.0}, 10)
    )
    real = one_step.train_step

    def train_step(state, groups_G, rewards_GN, config, *args, **kwargs):
        if state.step == OOM_STEP and config.micro_batches == 1:
            raise MemoryError("out of memory (injected)")
        return real(state, groups_G, rewards_GN, config, *args, **kwargs)

    monkeypatch.setattr(one_step, "train_step", train_step)


def _started(tmp_path: Path) -> tuple[EventLog, str]:
    from stages.training.model import prepare_model

    config = load_config(ROOT / "configs" / "quickstart.toml", [f"log_path={tmp_path}", *SETTINGS])
    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, config)
    transition(log, run_id, "start")
    while load_state(log, run_id).state != "rlvr_optimization":
        transition(log, run_id, "advance", gate_passed=True)
    prepare_model(config.model, tmp_path / "base")
    ctx = _driver(tmp_path, log, run_id, config).context()
    ids = [t.task_id for t in ctx.services.tasks.train[:16]]
    ctx.emit([TrainingSetBuilt(n_candidates=16, n_kept=16, coverage={},
                               pass_rates=dict.fromkeys(ids, 0.5))])  # fmt: skip
    return log, run_id


def _run(tmp_path: Path, log: EventLog, run_id: str) -> None:
    """A fresh driver (a new process: nothing in memory but the base model) trains to STEPS."""
    from orchestrator.driver.lifecycle import config_of

    _train(_driver(tmp_path, log, run_id, config_of(load_state(log, run_id))), STEPS)
    assert not list(log.read(run_id, types=["CatchUpDiverged"]))


def _checkpoints(log: EventLog, run_id: str) -> dict[int, str]:
    """Each step's checkpoint, as last saved (a resumed span saves it again)."""
    return {r.event.step: r.event.checkpoint for r in log.read(run_id, types=["CheckpointSaved"])}


def _batches(log: EventLog, run_id: str) -> list[list[StoredEvent]]:
    ends, out = set(log.batch_ends(run_id)), [[]]
    for row in log.read(run_id):
        out[-1].append(row)
        if row.seq in ends:
            out.append([])
    return out[:-1]


def _step_batch(log: EventLog, run_id: str, step: int) -> list[StoredEvent]:
    """The batch that logged `step` (its last attempt), with the decisions on it."""
    return next(
        b for b in _batches(log, run_id)
        if any(r.type == "MetricsRecorded" and r.event.step == step for r in b)
    )  # fmt: skip


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory):
    tmp_path = tmp_path_factory.mktemp("uninterrupted")
    with pytest.MonkeyPatch.context() as patch:
        _faked_evals_and_an_out_of_memory.__wrapped__(patch)
        log, run_id = _started(tmp_path)
        _run(tmp_path, log, run_id)
    return tmp_path, log, run_id


def _copy(uninterrupted, tmp_path: Path) -> tuple[Path, EventLog]:
    """The reference run's rows and batch boundaries in a store of its own, beside its blobs."""
    workdir, log, run_id = uninterrupted
    copy = EventLog(tmp_path / "copy.db")
    copy.import_rows(log.read(run_id), log.batch_ends(run_id))
    return workdir, copy


def test_each_setting_changes_by_its_trigger_at_a_checkpoint(uninterrupted) -> None:
    _, log, run_id = uninterrupted
    rows = list(log.read(run_id))
    checkpoints = _checkpoints(log, run_id)
    assert sorted(checkpoints) == [2, 4, 6, 8]
    # Chaos: learning rate and temperature, injected right after the checkpoints of 2 and 4.
    faults = {r.event.kind: r.event.step for r in rows if r.type == "FaultInjected"}
    assert faults == {"learning_rate": 2, "temperature": 4}
    changed_by_chaos = {
        k for r in rows if r.type == "HyperparametersChanged" and "chaos" in r.event.reason
        for k in r.event.changes
    }  # fmt: skip
    assert changed_by_chaos == {"learning_rate", "temperature"}
    # The policies: each change in the batch of a step a checkpoint follows.
    changed: dict[str, set[str]] = {}
    for step in (1, 3, OOM_STEP, 7):
        batch = _step_batch(log, run_id, step)
        decided = {r.seq: r.event.policy for r in batch if r.type == "PolicyDecided"}
        for row in batch:
            if row.type == "HyperparametersChanged":
                changed.setdefault(decided[row.seq - 1], set()).update(row.event.changes)
        assert step + 1 in checkpoints
    assert changed["kl"] == {"kl_penalty_coef"}
    assert changed["entropy"] == {"group_size", "entropy_coef"}
    # The out-of-memory: its retry in more micro-batches, the same event as every change, in the
    # batch of the failed attempt of step 5 (whose retry, then checkpoint, follow).
    (oom,) = [b for b in _batches(log, run_id) if any(r.type == "StepFailed" for r in b)]
    assert [r.type for r in oom] == ["StepFailed", "PolicyDecided", "HyperparametersChanged"]
    assert (oom[0].event.step, oom[0].event.kind, oom[0].event.micro_batches) == (
        OOM_STEP,
        "oom",
        1,
    )
    assert oom[1].event.policy == "faults" and oom[2].event.changes == {"micro_batches": 2}
    # Every one of them is in force by the end: the log's fold says so.
    final = load_state(log, run_id).hyperparameters
    assert final["group_size"] == 2 and final["micro_batches"] == 2
    assert final["temperature"] == 0.5 and final["entropy_coef"] > 0.5
    metrics = {r.event.step: r.event.metrics for r in rows if r.type == "MetricsRecorded"}
    assert metrics[STEPS - 1]["group_size"] == 2.0 and metrics[STEPS - 1]["micro_batches"] == 2.0


def test_a_resume_after_a_crash_between_a_changing_step_and_its_checkpoint_ends_on_its_weights(
    uninterrupted, tmp_path: Path
) -> None:
    """Step 5's batch changed micro_batches, the KL coefficient, the group size and the entropy
    bonus; the crash came before its checkpoint. The resume restores step 4's checkpoint and
    replays steps 4 (after the temperature fault) and 5 (its out-of-memory retry) from the log."""
    workdir, copy = _copy(uninterrupted, tmp_path)
    _, log, run_id = uninterrupted
    cut = _step_batch(copy, run_id, OOM_STEP)[-1].seq
    copy.append(
        run_id, [RunRewound(to_seq=cut, reason="crash")], expected_seq=copy.last_seq(run_id)
    )
    _run(workdir, copy, run_id)
    assert _checkpoints(copy, run_id) == _checkpoints(log, run_id)
    assert not list(copy.read(run_id, types=["CheckpointFellBack"]))  # step 4's was restored


def test_a_branch_at_a_changing_checkpoint_step_ends_on_the_parents_weights(
    uninterrupted, tmp_path: Path
) -> None:
    workdir, copy = _copy(uninterrupted, tmp_path)
    _, log, run_id = uninterrupted
    child, _ = branch(copy, run_id, _step_batch(copy, run_id, 3)[-1].seq, [])
    assert load_state(copy, child).latest_checkpoint.step == 2
    _run(workdir, copy, child)
    assert _checkpoints(copy, child)[STEPS] == _checkpoints(log, run_id)[STEPS]
    assert not list(copy.read(child, types=["CheckpointFellBack"]))  # step 2's was restored


def test_a_catch_up_from_the_base_model_ends_on_the_same_weights(
    uninterrupted, tmp_path: Path
) -> None:
    """Cut before the first checkpoint (step 1's batch shrank the groups, changed the KL
    coefficient and the entropy bonus): nothing to restore, every step replays from the base
    model with the settings the log had in force for it."""
    workdir, copy = _copy(uninterrupted, tmp_path)
    _, log, run_id = uninterrupted
    child, _ = branch(copy, run_id, _step_batch(copy, run_id, 1)[-1].seq, [])
    assert load_state(copy, child).latest_checkpoint is None
    _run(workdir, copy, child)
    assert _checkpoints(copy, child) == _checkpoints(log, run_id)
