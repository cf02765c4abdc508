"""Re-verify every logged rollout of a run, step by step, and compare with what the run recorded.

The task suite is rebuilt from the recorded config (plus the given `key=value` settings) and the
task file, refused when that file's digest differs from the one `RunStarted` recorded. The log is
streamed: one `RolloutsSampled` row and its rollout blob at a time, re-verified as one batch
through the verifier (whose pool checks in parallel), and only per-step counts are kept, so a
10,000-step run costs no more memory than one step."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.config import RunConfig, apply_overrides, override_paths, validate_config
from orchestrator.errors import OrchestratorError
from stages.rl.rewards import weigh
from stages.services import run_tasks, verifier_config
from stages.tasks.references import verify_tasks
from stages.tasks.types import Task
from stages.verifiers.provenance import provenance
from stages.verifiers.registry import build_verifier
from store.blobs import BlobStore, sha256_file
from store.errors import StoreError
from store.log import EventLog
from store.projections import RunState
from store.rewinds import Rewinds
from store.rollouts import decode

# A reward differs when it moved by more than this (rewards are sums of floats).
_TOLERANCE = 1e-9


@dataclass
class StepRescore:
    """One logged step re-verified: its rollouts, the verdicts that flipped each way, and the
    rewards that changed (`note`: why it could not be re-verified, e.g. its blob is gone)."""

    step: int
    seq: int
    rollouts: int = 0
    to_pass: int = 0
    to_fail: int = 0
    changed: int = 0
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "seq": self.seq, "rollouts": self.rollouts,
                "to_pass": self.to_pass, "to_fail": self.to_fail, "changed": self.changed}  # fmt: skip


@dataclass
class Rescore:
    """The whole rescore: every step, and where the rewards first differ."""

    verifier: dict[str, Any]
    steps: list[StepRescore] = field(default_factory=list)

    @property
    def first(self) -> StepRescore | None:
        return next((s for s in self.steps if s.changed), None)

    def total(self, name: str, since: StepRescore | None = None) -> int:
        return sum(getattr(s, name) for s in self.steps if since is None or s.seq >= since.seq)


def rescore_config(state: RunState, overrides: Sequence[str]) -> RunConfig:
    """The run's recorded config (with its branch overrides) plus `overrides`."""
    recorded = [*state.config_overrides, *overrides]
    return validate_config(
        apply_overrides(copy.deepcopy(dict(state.config)), recorded),
        source=f"run {state.run_id}'s recorded config",
        overridden=override_paths(overrides),
    )


def check_data(state: RunState, config: RunConfig) -> None:
    """Refuse a task file that is not the one the run read (its digest differs or it is gone)."""
    path = config.data.data_path
    if not path:
        return
    if not Path(path).is_file():
        raise OrchestratorError(f"data.data_path {path}: no such file (run {state.run_id} read it)")
    if state.data_digest is None:
        return
    try:
        digest = sha256_file(Path(path))
    except OSError as e:  # a FIFO or a device: refused, never a read that blocks
        raise OrchestratorError(f"data.data_path {path}: cannot read: {e.strerror or e}") from e
    if digest != state.data_digest:
        raise OrchestratorError(
            f"data.data_path {path} changed since run {state.run_id} read it (sha256 "
            f"{state.data_digest[:12]} recorded): rescoring would check other references"
        )


def logged_steps(
    log: EventLog, run_id: str, blobs: BlobStore, from_seq: int | None
) -> Iterator[tuple[StepRescore, dict[str, Any] | None]]:
    """Each step's row (abandoned spans of a rewind left out) with its blob's body (None and a
    note when it cannot be read), streamed."""
    rewinds = Rewinds.of(log.read(run_id, types=["RunRewound"]))
    for row in log.read(run_id, types=["RolloutsSampled"], from_seq=from_seq or 1):
        if rewinds.abandoned_by(row.seq) is not None:
            continue
        event = row.event
        step = StepRescore(step=event.step, seq=row.seq)
        if event.blob is None:
            step.note = "no rollout text logged"
            yield step, None
            continue
        try:
            yield step, decode(blobs.get_bytes(event.blob))
        except (StoreError, OSError):
            step.note = f"its rollout blob {event.blob[:12]} is gone (pruned with its checkpoint)"
            yield step, None


def rescore_step(
    step: StepRescore, body: dict[str, Any], tasks: dict[str, Task], checker: Any,
    weights: dict[str, float],
) -> StepRescore:  # fmt: skip
    """Re-verify one step's logged rollouts and count what differs from the log."""
    records, texts, old_rewards, old_passed = [], [], [], []
    verdicts = body["verdicts"]
    n = 0
    for group in body["samples"]:
        task = tasks.get(group["task_id"])
        if task is None:
            raise OrchestratorError(
                f"step {step.step}: task {group['task_id']!r} is not in the data"
            )
        for j, text in enumerate(group["completions"]):
            logged = verdicts[n + j] if n + j < len(verdicts) else {}
            records.append(task)
            texts.append(text)
            old_rewards.append(group["rewards"][j])
            old_passed.append(logged.get("passed"))
        n += len(group["completions"])
    new = weigh(verify_tasks(checker, records, texts), records, texts, weights) if texts else []
    for verdict, old, passed in zip(new, old_rewards, old_passed, strict=True):
        if old is None or verdict.excluded:
            continue  # excluded then or now (a judge error): nothing to compare
        step.rollouts += 1
        step.to_pass += passed is False and verdict.passed
        step.to_fail += passed is True and not verdict.passed
        step.changed += abs(float(verdict.reward) - float(old)) > _TOLERANCE
    return step


def rescore_run(
    log: EventLog, state: RunState, config: RunConfig, blobs: BlobStore,
    from_seq: int | None = None, on_step: Callable[[StepRescore], None] = lambda s: None,
) -> Rescore:  # fmt: skip
    """Re-verify every logged rollout of the run (from `from_seq`) with `config`'s verifier."""
    check_data(state, config)
    tasks = {t.task_id: t for t in run_tasks(config.data)}  # the split does not matter here
    vconfig = verifier_config(config)
    checker = build_verifier(vconfig)
    result = Rescore(provenance(vconfig))
    weights = dict(config.grpo.reward_weights)
    try:
        for step, body in logged_steps(log, state.run_id, blobs, from_seq):
            if body is not None:
                rescore_step(step, body, tasks, checker, weights)
            result.steps.append(step)
            on_step(step)
    finally:
        close = getattr(checker, "close", None)
        if close is not None:
            close()
    return result


def judged(config: RunConfig) -> bool:
    """Whether the config's verifier is the LLM judge (each check a paid call)."""
    return verifier_config(config).kind == "rubric"


def judge_calls(
    log: EventLog, state: RunState, config: RunConfig, blobs: BlobStore, from_seq: int | None
) -> int:
    """How many judge calls re-verifying the run would make: one per rubric of each logged
    rollout's task."""
    rubrics = {t.task_id: max(len(t.rubrics), 1) for t in run_tasks(config.data)}
    calls = 0
    for _, body in logged_steps(log, state.run_id, blobs, from_seq):
        for group in (body or {}).get("samples", []):
            calls += rubrics.get(group["task_id"], 1) * len(group["completions"])
    return calls


def checkpoint_before(log: EventLog, state: RunState, seq: int) -> dict[str, Any] | None:
    """The last checkpoint still retained (its weights on disk) saved before `seq`, with the end
    of the batch that saved it (where a branch keeps it in its history)."""
    retained = {c.digest: c for c in state.checkpoints}
    best = None
    for ref in retained.values():
        if ref.seq < seq and (best is None or ref.seq > best.seq):
            best = ref
    if best is None:
        return None
    # A suggestion: `rlvr branch` checks the cut it is given.
    ends = [e for e in log.batch_ends(state.run_id, to_seq=seq, cut=False) if e >= best.seq]
    return {"step": best.step, "digest": best.digest, "seq": best.seq,
            "cut": min(ends) if ends else best.seq}  # fmt: skip


def branch_command(run_id: str, cut: int, overrides: Sequence[str], store: str | None) -> str:
    import shlex

    words = ["rlvr", "branch", run_id, "--at", str(cut), *overrides]
    if store is not None:
        words += ["--store", store]
    return " ".join(shlex.quote(w) for w in words)
