"""`rlvr why` answers first (issue 29, item 5): the evidence is the window of values the rule read
with its threshold and setting (every metric only with `--full`), "in short" is this decision's own
consequences, an injected fault is named as a cause, and `--seq` finds every seq of the run. On a
log the real driver and policy engine wrote."""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from orchestrator.audit.why import WHY_TYPES, explain, print_explanation
from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.runner import Driver
from orchestrator.errors import OrchestratorError
from stages.types import StageContext
from store.blobs import BlobStore
from store.events import FaultInjected, HyperparametersChanged, MetricsRecorded, RolloutsSampled
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.scenario.fake_stages import FakeStages

KL = {
    11: 0.04,
    12: 0.05,
    13: 0.2,
    14: 0.3,
    15: 0.3,
    16: 0.3,
    17: 0.05,
    18: 0.05,
    19: 0.05,
    20: 0.05,
}


class _Spiked:
    """Stage 5: an LR spike injected before step 13 (as the chaos config does), KL rising with it;
    the real policy engine decides on every step."""

    name = "rlvr_optimization"

    def run(self, ctx: StageContext) -> None:
        for step in range(11, 21):
            if step == 13:
                ctx.emit([FaultInjected(kind="learning_rate", step=12, parameters={"value": 5e-4}),
                          HyperparametersChanged(changes={"learning_rate": 5e-4},
                                                 reason="chaos: learning_rate set to 0.0005")])  # fmt: skip
            ctx.emit([
                RolloutsSampled(step=step, n_groups=1, group_size=2, rewards=[[1.0, 0.0]]),
                MetricsRecorded(step=step, metrics={"kl": KL[step], "entropy": 1.0,
                                                    "reward_mean": 0.5}),
            ])  # fmt: skip


@pytest.fixture(scope="module")
def spiked(tmp_path_factory: pytest.TempPathFactory) -> tuple[EventLog, str]:
    tmp_path = tmp_path_factory.mktemp("spiked")
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path), policies={"kl": {"rollback_after_steps": 64}},
                       gates={"max_kl": 0.09})  # fmt: skip
    run_id, _ = start_run(log, config)
    stages = FakeStages().registry()
    stages["rlvr_optimization"] = _Spiked()
    Driver(log, run_id, config, stages, run_dir=tmp_path / run_id,
           blobs=BlobStore(tmp_path / "blobs")).run()  # fmt: skip
    return log, run_id


def _explain(run: tuple[EventLog, str], **kwargs):
    log, run_id = run
    return explain(log.read(run_id, types=WHY_TYPES), last_seq=log.last_seq(run_id), **kwargs)


def _text(explanation, full: bool = False) -> str:
    console = Console(record=True, width=100)
    print_explanation(explanation, console, full=full)
    return console.export_text()


def test_a_kl_decision_shows_the_window_it_read_its_setting_and_the_fault_behind_it(
    spiked: tuple[EventLog, str],
) -> None:
    first, second, *_ = [i for i in _explain(spiked).items if i.name == "kl:adjust_hyperparameters"]
    # The mean it quotes, over exactly the steps it cites.
    assert first.window.steps == [11, 12, 13, 14] and first.window.values == [0.04, 0.05, 0.2, 0.3]
    assert first.window.combined == pytest.approx(first.value)
    assert [s["key"] for s in first.settings][:2] == ["policies.kl.limit", "policies.kl.window"]
    assert first.settings[0]["value"] == 0.1
    (cause,) = first.causes
    assert cause.type == "FaultInjected" and "learning_rate" in cause.summary
    assert "caused by: fault injected on purpose before step 13: learning_rate" in first.story
    # In short: its own change of settings, never the second decision's.
    assert [t.type for t in first.then] == ["HyperparametersChanged"]
    assert first.then[0].data["changes"] != second.then[0].data["changes"]
    assert second.then[0].summary not in first.story
    assert second.causes == []  # the fault came before the policy last acted
    text = _text(_explain(spiked, seq=first.seq))
    assert "kl at steps 11..14: 0.04, 0.05, 0.2, 0.3 -> mean 0.1475 (threshold 0.1)" in text
    assert "setting: policies.kl.limit = 0.1" in text
    assert "entropy" not in text  # other metrics of those steps: --full only
    assert "entropy 1.0" in _text(_explain(spiked, seq=first.seq), full=True)


def test_a_gate_names_its_key_and_the_branch_command_that_judges_it_again(
    spiked: tuple[EventLog, str],
) -> None:
    (gate,) = _explain(spiked, gate="kl").items
    assert gate.passed is False and gate.threshold == 0.09
    assert gate.settings == [{"key": "gates.max_kl", "value": 0.09},
                             {"key": "gates.kl_window", "value": 5}]  # fmt: skip
    assert gate.window.steps == [16, 17, 18, 19, 20] and gate.window.how == "mean"
    assert gate.causes == []  # the fault came before the steps it judged
    log, run_id = spiked
    cut = gate.branch_command.split("--at ")[1].split()[0]
    assert gate.branch_command == f"rlvr branch {run_id} --at {cut} gates.max_kl=VALUE"
    assert int(cut) == gate.seq - 1 and int(cut) in log.batch_ends(run_id)
    text = _text(_explain(spiked, gate="kl"))
    assert "rlvr config explain gates.max_kl" in text and gate.branch_command in text


def test_why_seq_finds_every_seq_of_the_run(
    spiked: tuple[EventLog, str], capsys: pytest.CaptureFixture[str]
) -> None:
    log, run_id = spiked
    rollouts = next(r.seq for r in log.read(run_id, types=["RolloutsSampled"]))
    with pytest.raises(OrchestratorError, match=rf"seq {rollouts} holds a step's rollouts"):
        _explain(spiked, seq=rollouts)
    with pytest.raises(
        OrchestratorError, match=r"no seq 99999 in this run \(it has seqs 1\.\.\d+\)"
    ):
        _explain(spiked, seq=99999)
    # A step's metrics: the decisions taken on them.
    decided = next(r for r in log.read(run_id, types=["PolicyDecided"]))
    trigger = decided.event.evidence_seqs[0]
    assert [i.seq for i in _explain(spiked, seq=trigger).items] == [decided.seq]
    store = log.url.removeprefix("sqlite:///")
    typed = rlvr(capsys, "why", run_id, "--seq", str(rollouts), "--store", store)
    assert typed.code == 1 and f"seq {rollouts} holds" in typed.err
    as_json = rlvr(capsys, "why", "latest", "--seq", str(trigger), "--json", "--store", store)
    item = json.loads(as_json.out)["items"][0]
    assert item["window"]["metric"] == "kl" and item["causes"][0]["type"] == "FaultInjected"


def test_why_names_the_setting_and_branch_for_every_gate() -> None:
    """Every gate the gates module evaluates has its key named (or a fixed threshold)."""
    from orchestrator.config_schema import schema_keys
    from policies.gates import GATES
    from policies.settings import GATE_SETTINGS, all_keys

    keys = {k.key for k in schema_keys()}
    assert all_keys() <= keys
    evaluated = {v.gate for stage in GATES for v in GATES[stage](_state(), RunConfig().gates)}
    assert evaluated <= set(GATE_SETTINGS)


def _state():
    from store.projections import RunState

    return RunState()
