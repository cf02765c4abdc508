"""A log written before a policy cited more evidence replays as the same decisions: what is
compared is the decision on its trigger event, not the list of steps it cited."""

from __future__ import annotations

from orchestrator.audit.replay import ReplayRow
from policies.types import Decision


def _kl(evidence: list[int], lr: float = 5e-5) -> Decision:
    return Decision(policy="kl", action="adjust_hyperparameters", trigger_metric="kl", value=0.2,
                    threshold=0.1, evidence_seqs=evidence, parameters={"learning_rate": lr})  # fmt: skip


def test_more_evidence_on_the_same_trigger_is_the_same_decision() -> None:
    old, new = _kl([30]), _kl([30, 27, 24, 21, 18])
    assert ReplayRow(30, 5, "MetricsRecorded", (new,), (old,)).same
    assert not ReplayRow(30, 5, "MetricsRecorded", (_kl([30], 1e-5),), (old,)).same
    assert not ReplayRow(30, 5, "MetricsRecorded", (_kl([27, 30]),), (old,)).same
