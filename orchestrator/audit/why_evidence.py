"""What `rlvr why` reads of a run's log: one decode of its rows, indexes over them, and how each
kind of event reads as evidence (a window of metric values, an eval against its baseline, the
wrong answers a verifier accepted), as a cause (an injected fault) or as a consequence."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from store.log import StoredEvent
from store.rewinds import Rewinds

STEP_TYPES = ("MetricsRecorded", "EvalRecorded", "RolloutsSampled", "VerdictsRecorded")
CONSEQUENCES = (
    "StateChanged", "RolledBack", "HyperparametersChanged", "RunFailed", "RunCompleted",
    "RunPaused", "RunRewound",
)  # fmt: skip
# Rows that start something new: a decision's own consequences end before the next of them.
_NEW_CAUSE = (
    "PolicyDecided", "GateEvaluated", "MetricsRecorded", "EvalRecorded", "StepFailed",
    "FaultInjected", "RolloutsSampled", "StageStarted", "CheckpointSaved",
)  # fmt: skip
_TERMINAL = ("RunRewound", "RunFailed", "RunCompleted", "RunPaused")
_LATER_BATCHES = 2  # a pause or failure a decision asked for is appended in the next batch


@dataclass(frozen=True, slots=True)
class Entry:
    """A stored event with its payload decoded (and upcast) once."""

    seq: int
    type: str
    recorded_at: str
    payload: dict[str, Any]


def entries(events: Iterable[StoredEvent]) -> list[Entry]:
    out = []
    for stored in events:
        out.append(Entry(stored.seq, stored.type, stored.recorded_at, stored.checked_fields()))
    return out


def steps_by_seq(log: list[Entry]) -> dict[int, int]:
    """The training step the run was at when each event was appended (0 before training)."""
    step, out = 0, {}
    for e in log:
        if e.type in STEP_TYPES:
            step = max(step, int(e.payload.get("step", step)))
        elif e.type == "RolledBack":
            step = max(step, int(e.payload["from_step"]))
        out[e.seq] = step
    return out


@dataclass(frozen=True)
class Evidence:
    seq: int
    type: str
    summary: str
    details: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def num(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"  # as a config file writes it
    if isinstance(value, float):
        return repr(float(f"{value:.4g}"))  # 1.0 stays "1.0", 2.5e-06 stays readable
    return "none" if value is None else str(value)


def _wrong_answer(item: dict[str, Any]) -> dict[str, Any]:
    # Calibration reports nest the candidate; hand-written fakes keep it flat.
    candidate = item.get("candidate") or {}
    return {
        "task_id": item.get("task_id", candidate.get("task_id")),
        "response": item.get("response", item.get("text", candidate.get("text"))),
        "reference": item.get("reference", candidate.get("reference")),
        "kind": item.get("kind", candidate.get("kind")),
        "reason": item.get("reason", ""),
    }


def _hack_summary(p: dict[str, Any]) -> str:
    """The known-hack and adversary kinds accepted (zero tolerance), each with an example."""
    hacks, examples = p.get("accepted_hack_kinds") or {}, p.get("accepted_hack_examples") or {}
    if not hacks:
        return ""
    kinds = ", ".join(
        f"{kind} x{n}" + (f" (e.g. {examples[kind][:80]!r})" if kind in examples else "")
        for kind, n in sorted(hacks.items())
    )
    return f"; known-hack kinds accepted (zero tolerance): {kinds}"


def _benchmarks(capability: dict[str, float], baseline: dict[str, float]) -> list[dict[str, Any]]:
    rows = []
    for name in sorted(set(capability) | set(baseline)):
        base, now = baseline.get(name), capability.get(name)
        change = (now - base) / base if base and now is not None else None
        rows.append({"benchmark": name, "baseline": base, "value": now, "change": change})
    return rows


class LogIndex:
    """Indexes over one run's entries for rendering."""

    def __init__(self, log: list[Entry]) -> None:
        self.log = log
        self.by_seq = {e.seq: e for e in log}
        self.position = {e.seq: i for i, e in enumerate(log)}
        self.steps = steps_by_seq(log)
        self.rewinds = Rewinds.of(log)

    def before(self, seq: int, type_name: str) -> Entry | None:
        return next((e for e in reversed(self.log) if e.seq < seq and e.type == type_name), None)

    def after(self, seq: int) -> Iterator[Entry]:
        """The entries after `seq`, in order, read lazily (a caller stops early)."""
        log = self.log
        return (log[i] for i in range(self.position[seq] + 1, len(log)))

    def batch_start(self, seq: int) -> int:
        """The first seq of the append `seq` was written in (a batch shares its time)."""
        at = self.position[seq]
        while at > 0 and self.log[at - 1].recorded_at == self.log[at].recorded_at:
            at -= 1
        return self.log[at].seq

    def config_at(self, seq: int) -> dict[str, Any]:
        """The run's config as it stood at `seq`: RunStarted's, with the branch and resume
        overrides recorded before it."""
        from orchestrator.config import apply_overrides

        config: dict[str, Any] = {}
        overrides: list[str] = []
        for e in self.log:
            if e.seq >= seq:
                break
            if e.type == "RunStarted":
                config = e.payload["config"]
            elif e.type in ("RunBranched", "SettingsOverridden"):
                overrides += e.payload["overrides"]
        return apply_overrides(copy.deepcopy(config), overrides) if overrides else config

    def hyperparameters_before(self, seq: int) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for e in self.log:
            if e.seq >= seq:
                break
            if e.type == "RunStarted":
                values = dict(e.payload["hyperparameters"])
            elif e.type == "HyperparametersChanged":
                values.update(e.payload["changes"])
            elif e.type == "MetricsRecorded":
                values.update(e.payload["metrics"])  # steps log the values they trained with
        return values

    def render(self, e: Entry) -> Evidence:
        p, t = e.payload, e.type
        if t == "VerifierCalibrated":
            wrong = [_wrong_answer(w) for w in p.get("accepted_wrong", [])]
            summary = (
                f"verifier {p['verifier']} accepted {len(wrong)} of {p['n_wrong']} known-wrong "
                f"answers (false-positive rate {p['false_positive_rate']:.1%}); false-negative "
                f"rate {p['false_negative_rate']:.1%} on {p['n_right']} right answers"
            ) + _hack_summary(p)
            details = [
                f"task {w['task_id']}: accepted {w['response']!r}"
                + (f" (reference {w['reference']!r})" if w["reference"] is not None else "")
                + (f" [{w['kind']}]" if w["kind"] else "")
                + (f": {w['reason']}" if w["reason"] else "")
                for w in wrong
            ]
            return Evidence(
                e.seq, t, summary, details, {"verifier": p["verifier"], "accepted_wrong": wrong}
            )
        if t in ("EvalRecorded", "BaselineRecorded"):
            base = self.before(e.seq, "BaselineRecorded") if t == "EvalRecorded" else None
            rows = _benchmarks(p["capability"], base.payload["capability"] if base else {})
            where = f"eval at step {p['step']}" if t == "EvalRecorded" else "baseline"
            details = [
                f"{r['benchmark']}: {num(r['baseline'])} -> {num(r['value'])}"
                + (f" ({r['change']:+.1%})" if r["change"] is not None else "")
                if base
                else f"{r['benchmark']}: {num(r['value'])}"
                for r in rows
            ]
            summary = f"{where}: held-out verify rate {num(p['verify_rate'])}"
            return Evidence(e.seq, t, summary, details, {"step": p.get("step"), "benchmarks": rows})
        if t == "MetricsRecorded":
            values = ", ".join(f"{k} {num(v)}" for k, v in sorted(p["metrics"].items()))
            return Evidence(e.seq, t, f"step {p['step']}: {values}", data=p)
        if t == "HyperparametersChanged":
            old = self.hyperparameters_before(e.seq)
            changes = ", ".join(
                f"{k} {num(old.get(k))} -> {num(v)}" if k in old else f"{k} -> {num(v)}"
                for k, v in p["changes"].items()
            )
            return Evidence(e.seq, t, f"hyper-parameters changed: {changes}", data=p)
        if t == "FaultInjected":
            return Evidence(e.seq, t, _fault(p), data=p)
        return Evidence(e.seq, t, summary_of(t, p), data=p)

    def consequences(self, origin: Entry) -> list[Evidence]:
        """What this gate, decision or event itself led to: for a gate, the rest of its batch
        (the state change, the run's failure or completion); for a decision, the rows after it
        up to the next decision or new step (its rollback, its hyper-parameter change), or the
        pause or failure the driver appended for it in the next batch."""
        gate = origin.type == "GateEvaluated"
        found, batch, seen = [], origin.recorded_at, 1
        for e in self.after(origin.seq):
            if e.recorded_at != batch:
                seen += 1
                if gate or seen > _LATER_BATCHES:
                    break
                batch = e.recorded_at
            if gate and e.type == "GateEvaluated":
                continue
            if e.type in _NEW_CAUSE:
                break
            if e.type in CONSEQUENCES:
                found.append(self.render(e))
                if e.type in _TERMINAL:
                    break
        return found

    def faults_between(self, after_seq: int, before_seq: int) -> list[Evidence]:
        """Faults injected on purpose (chaos) in that span of the log: named as causes."""
        return [
            self.render(e)
            for e in self.log
            if after_seq < e.seq < before_seq and e.type == "FaultInjected"
        ]


def _fault(p: dict[str, Any]) -> str:
    """A chaos fault in words: the knob it set, or the poisoning it did."""
    params = p.get("parameters", {})
    if p["kind"] == "capability_poison":
        what = (f"capability_poison ({params.get('steps')} SFT steps on corrupted labels at "
                f"lr {num(params.get('learning_rate'))})")  # fmt: skip
    elif p["kind"] == "verdict_corruption":
        what = (f"verdict_corruption ({params.get('mode')} on a share {num(params.get('share'))} "
                "of the verdicts from this step on)")  # fmt: skip
    else:
        what = f"{p['kind']} set to {num(params.get('value'))}"
    return f"fault injected on purpose before step {p['step'] + 1}: {what}"


def summary_of(t: str, p: dict[str, Any]) -> str:
    if t == "GateEvaluated":
        verdict = "passed" if p["passed"] else "FAILED"
        return f"gate {p['gate']} {verdict}: {p['metric']} = {num(p['value'])} (needs {p['comparator']} {num(p['threshold'])})"
    if t == "PolicyDecided":
        return (
            f"policy {p['policy']} decided {p['action']}: {p['trigger_metric']} = {num(p['value'])}"
        )
    if t == "RolledBack":
        fresh = " with a fresh optimizer state" if p.get("fresh_optimizer") else ""
        return f"rolled back from step {p['from_step']} to step {p['to_step']} (checkpoint {p['checkpoint'][:12]}){fresh}"
    if t == "StateChanged":
        why = f": {p['reason']}" if p.get("reason") else ""
        return f"state {p['source']} -> {p['dest']} ({p['trigger']}){why}"
    if t == "RunFailed":
        return f"run failed: {p['reason']}"
    if t == "RunPaused":
        return f"run paused: {p['reason']}"
    if t == "RunCompleted":
        return f"run completed; final checkpoint {(p['final_checkpoint'] or 'none')[:12]}"
    if t == "RunRewound":
        return f"run rewound to seq {p['to_seq']}" + (f": {p['reason']}" if p.get("reason") else "")
    if t == "TasksDesigned":
        return f"{p['n_verifiable']} of {p['n_tasks']} tasks verifiable"
    if t == "TrainingSetBuilt":
        return f"kept {p['n_kept']} of {p['n_candidates']} tasks; coverage {p['coverage']}"
    if t == "CheckpointSaved":
        return f"checkpoint {p['checkpoint'][:12]} saved at step {p['step']}"
    if t == "VerdictsRecorded":
        return (
            f"step {p['step']}: verifier {p['verifier'].get('kind')} passed {p['n_passed']} of "
            f"{p['n_total']}"
        )
    small = {k: v for k, v in p.items() if not isinstance(v, list | dict)}
    return f"{t} {json.dumps(small)[:160]}"


# The metric of a step's row that a gate or policy compares (a capability drop reads an eval).
def window_metric(kind: str, metric: str | None) -> str | None:
    if metric is None or metric.startswith(("capability", "step_failures", "heldout")):
        return None
    return metric


@dataclass(frozen=True)
class Window:
    """The values a rule read from consecutive steps, and how it combined them."""

    metric: str
    steps: list[int]
    values: list[float | None]
    combined: float | None  # the mean, for rules that judge a mean (KL)
    how: str  # "mean" or "each"

    def short(self, comparator: str | None, threshold: float | None) -> str:
        """The rule's reading in a phrase: the mean it judged, or the values."""
        if self.how != "mean" or self.combined is None:
            return self.line(comparator, threshold)
        span = (
            f"steps {self.steps[0]}..{self.steps[-1]}"
            if len(self.steps) > 1
            else f"step {self.steps[0]}"
        )
        text = f"mean {self.metric} of {span} = {num(self.combined)}"
        if threshold is not None:
            text += f" (threshold {comparator + ' ' if comparator else ''}{num(threshold)})"
        return text

    def line(self, comparator: str | None, threshold: float | None) -> str:
        shown = ", ".join(num(v) for v in self.values)
        span = (
            f"step {self.steps[0]}" if len(self.steps) == 1
            else f"steps {self.steps[0]}..{self.steps[-1]}"
        )  # fmt: skip
        text = f"{self.metric} at {span}: {shown}"
        if self.how == "mean" and self.combined is not None:
            text += f" -> mean {num(self.combined)}"
        if threshold is not None:
            text += f" (threshold {comparator + ' ' if comparator else ''}{num(threshold)})"
        return text


def window_of(idx: LogIndex, evidence_seqs: list[int], metric: str, how: str) -> Window | None:
    rows = sorted(
        (idx.by_seq[s] for s in evidence_seqs
         if s in idx.by_seq and idx.by_seq[s].type == "MetricsRecorded"),
        key=lambda e: e.seq,
    )  # fmt: skip
    if not rows or not any(metric in e.payload["metrics"] for e in rows):
        return None
    values = [e.payload["metrics"].get(metric) for e in rows]
    finite = [v for v in values if v is not None]
    combined = sum(finite) / len(finite) if how == "mean" and finite else None
    return Window(metric, [int(e.payload["step"]) for e in rows], values, combined, how)


@dataclass(frozen=True)
class Item:
    seq: int
    kind: str  # gate | policy | rollback | failure
    name: str
    step: int
    passed: bool | None
    metric: str | None
    value: float | None
    threshold: float | None
    comparator: str | None
    headline: str
    detail: str
    story: str  # in short: what the rule saw, what caused it, and what this decision itself did
    evidence: list[Evidence]
    then: list[Evidence]
    abandoned_by: int | None = None
    window: Window | None = None  # the step values the rule read, when it read a window
    causes: list[Evidence] | None = None
    settings: list[dict[str, Any]] | None = None  # [{"key", "value"}], the threshold's first
    branch_command: str | None = None


@dataclass(frozen=True)
class Explanation:
    run_id: str
    items: list[Item]
    abandoned: list[tuple[int, int, int]]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
