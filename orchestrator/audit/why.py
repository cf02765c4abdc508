"""`rlvr why RUN [--gate NAME | --seq N]`: explain gates, policy decisions and rollbacks from the log.

`explain` is a pure function of a run's stored events. For each gate or decision it gathers the
metric, value and threshold, renders the evidence events it cites (the wrong answers a verifier
accepted, each benchmark against its baseline) and what the run did next. Spans abandoned by a
`RunRewound` stay visible, marked with the seq of the rewind that abandoned them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson
from rich.console import Console
from rich.tree import Tree

from orchestrator.errors import OrchestratorError
from orchestrator.terminal import plain
from store.events import EVENT_TYPES
from store.log import StoredEvent
from store.rewinds import Rewinds
from store.upcasters import upcast

CONSEQUENCES = (
    "StateChanged", "RolledBack", "HyperparametersChanged", "RunFailed", "RunCompleted",
    "RunPaused", "RunRewound",
)  # fmt: skip
EXPLAINABLE = (
    "GateEvaluated",
    "PolicyDecided",
    "RolledBack",
    "HyperparametersChanged",
    "RunFailed",
)
STEP_TYPES = ("MetricsRecorded", "EvalRecorded", "RolloutsSampled", "VerdictsRecorded")
# Every type but the per-step rollout rows (their step is also on the MetricsRecorded appended
# with them, and no gate or policy cites them): what `why` reads of a long run.
WHY_TYPES = tuple(t for t in EVENT_TYPES if t not in ("RolloutsSampled", "VerdictsRecorded"))
_LATER_BATCHES = 2  # how many appends after the explained one may hold what the run did about it


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
        payload = orjson.loads(stored.payload)
        known = EVENT_TYPES.get(stored.type)
        if known is not None and stored.schema_version != known.schema_version:
            payload = upcast(stored.type, stored.schema_version, payload)
        out.append(Entry(stored.seq, stored.type, stored.recorded_at, payload))
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
    story: str  # one line: what dropped, from what to what, and what the run did
    evidence: list[Evidence]
    then: list[Evidence]
    abandoned_by: int | None = None


@dataclass(frozen=True)
class Explanation:
    run_id: str
    items: list[Item]
    abandoned: list[tuple[int, int, int]]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _num(value: Any) -> str:
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
        self.steps = steps_by_seq(log)
        self.rewinds = Rewinds.of(log)

    def before(self, seq: int, type_name: str) -> Entry | None:
        return next((e for e in reversed(self.log) if e.seq < seq and e.type == type_name), None)

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
            )
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
                f"{r['benchmark']}: {_num(r['baseline'])} -> {_num(r['value'])}"
                + (f" ({r['change']:+.1%})" if r["change"] is not None else "")
                if base
                else f"{r['benchmark']}: {_num(r['value'])}"
                for r in rows
            ]
            summary = f"{where}: held-out verify rate {_num(p['verify_rate'])}"
            return Evidence(e.seq, t, summary, details, {"step": p.get("step"), "benchmarks": rows})
        if t == "MetricsRecorded":
            values = ", ".join(f"{k} {_num(v)}" for k, v in sorted(p["metrics"].items()))
            return Evidence(e.seq, t, f"step {p['step']}: {values}", data=p)
        if t == "HyperparametersChanged":
            old = self.hyperparameters_before(e.seq)
            changes = ", ".join(
                f"{k} {_num(old.get(k))} -> {_num(v)}" if k in old else f"{k} -> {_num(v)}"
                for k, v in p["changes"].items()
            )
            return Evidence(e.seq, t, f"hyper-parameters changed: {changes}", data=p)
        return Evidence(e.seq, t, _summary(t, p), data=p)


def _summary(t: str, p: dict[str, Any]) -> str:
    if t == "GateEvaluated":
        verdict = "passed" if p["passed"] else "FAILED"
        return f"gate {p['gate']} {verdict}: {p['metric']} = {_num(p['value'])} (needs {p['comparator']} {_num(p['threshold'])})"
    if t == "PolicyDecided":
        return f"policy {p['policy']} decided {p['action']}: {p['trigger_metric']} = {_num(p['value'])}"
    if t == "RolledBack":
        return f"rolled back from step {p['from_step']} to step {p['to_step']} (checkpoint {p['checkpoint'][:12]})"
    if t == "StateChanged":
        why = f": {p['reason']}" if p.get("reason") else ""
        return f"state {p['source']} -> {p['dest']} ({p['trigger']}){why}"
    if t == "RunFailed":
        return f"run failed: {p['reason']}"
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
            f"step {p['step']}: verifier {p['verifier']} passed {p['n_passed']} of {p['n_total']}"
        )
    small = {k: v for k, v in p.items() if not isinstance(v, list | dict)}
    return f"{t} {json.dumps(small)[:160]}"


def _consequences(idx: LogIndex, origin: Entry) -> list[Evidence]:
    """What the run did next: consequence events in the origin's append and the next few."""
    batches, found = [origin.recorded_at], []
    for e in idx.log:
        if e.seq <= origin.seq:
            continue
        if e.recorded_at != batches[-1]:
            if len(batches) > _LATER_BATCHES or e.type in ("PolicyDecided", "GateEvaluated"):
                break
            batches.append(e.recorded_at)
        if e.type in CONSEQUENCES:
            found.append(idx.render(e))
            if e.type in ("RunRewound", "RunFailed", "RunCompleted"):
                break
    return found


def _item(idx: LogIndex, e: Entry) -> Item:
    p = e.payload
    evidence = [idx.render(idx.by_seq[s]) for s in p.get("evidence_seqs", []) if s in idx.by_seq]
    then = _consequences(idx, e)
    step = idx.steps.get(e.seq, 0)
    if e.type == "GateEvaluated":
        kind, name, passed = "gate", p["gate"], p["passed"]
        metric, value, threshold, comparator = (
            p["metric"],
            p["value"],
            p["threshold"],
            p["comparator"],
        )
        headline = f"gate {name} ({p['stage']}) {'passed' if passed else 'FAILED'}: {metric} = {_num(value)}, needs {comparator} {_num(threshold)}"
        detail = p.get("detail", "")
    elif e.type == "PolicyDecided":
        kind, name, passed = "policy", f"{p['policy']}:{p['action']}", None
        metric, value, threshold, comparator = p["trigger_metric"], p["value"], p["threshold"], None
        headline = f"policy {p['policy']} decided {p['action']} at step {step}: {metric} = {_num(value)} (threshold {_num(threshold)})"
        params = ", ".join(f"{k}={v}" for k, v in p.get("parameters", {}).items())
        detail = "; ".join(
            x for x in (p.get("reason", ""), params and f"parameters: {params}") if x
        )
    else:
        kind = "rollback" if e.type == "RolledBack" else "failure"
        name, passed, metric, value, threshold, comparator = e.type, None, None, None, None, None
        headline = idx.render(e).summary
        detail = p.get("reason", "")
    return Item(
        e.seq, kind, name, step, passed, metric, value, threshold, comparator, headline,
        detail, _story(evidence, then), evidence, then, idx.rewinds.abandoned_by(e.seq),
    )  # fmt: skip


def _story(evidence: list[Evidence], then: list[Evidence]) -> str:
    parts = []
    for ev in evidence:
        if ev.type == "VerifierCalibrated" and ev.data["accepted_wrong"]:
            answers = ", ".join(repr(w["response"]) for w in ev.data["accepted_wrong"][:3])
            parts.append(f"verifier {ev.data['verifier']} accepted wrong answers {answers}")
        if ev.type == "EvalRecorded":
            drops = [
                r for r in ev.data["benchmarks"] if r["change"] is not None and r["change"] < 0
            ]
            parts += [
                f"{r['benchmark']} dropped {_num(r['baseline'])} -> {_num(r['value'])} ({r['change']:+.1%}) at step {ev.data['step']}"
                for r in drops
            ]
    parts += [ev.summary for ev in then if ev.type in ("RolledBack", "HyperparametersChanged")]
    parts += [ev.summary for ev in then if ev.type in ("RunFailed", "RunPaused")][:1]
    return "; ".join(parts)


def explain(
    events: Iterable[StoredEvent], gate: str | None = None, seq: int | None = None
) -> Explanation:
    """Explain `gate` (every evaluation of it), the event at `seq`, or, with neither, every failed
    gate, every policy decision and every failure no gate explains."""
    if gate is not None and seq is not None:
        raise OrchestratorError("pass --gate or --seq, not both")
    stored = list(events)
    if not stored:
        raise OrchestratorError("the run has no events")
    log = entries(stored)
    idx = LogIndex(log)
    run_id = stored[0].run_id
    gates = [e for e in log if e.type == "GateEvaluated"]
    if gate is not None:
        chosen = [e for e in gates if e.payload["gate"] == gate]
        if not chosen:
            known = ", ".join(sorted({e.payload["gate"] for e in gates})) or "none yet"
            raise OrchestratorError(f"no gate {gate!r} was evaluated in this run (gates: {known})")
    elif seq is not None:
        chosen = [_target(idx, seq)]
    else:
        failed_gates = {e.seq for e in gates if not e.payload["passed"]}
        chosen = [
            e
            for e in log
            if e.seq in failed_gates
            or e.type == "PolicyDecided"
            or (
                e.type == "RunFailed" and not failed_gates & set(e.payload.get("evidence_seqs", []))
            )
        ]
    return Explanation(run_id, [_item(idx, e) for e in chosen], idx.rewinds.as_tuples())


def _target(idx: LogIndex, seq: int) -> Entry:
    entry = idx.by_seq.get(seq)
    if entry is None:
        raise OrchestratorError(f"no seq {seq} in this run (it has seqs 1..{idx.log[-1].seq})")
    if entry.type in ("RolledBack", "HyperparametersChanged"):
        # An action is explained by the decision that asked for it, when there is one.
        decision = idx.before(seq, "PolicyDecided")
        return (
            decision
            if decision is not None and entry.recorded_at >= decision.recorded_at
            else entry
        )
    if entry.type not in EXPLAINABLE:
        raise OrchestratorError(
            f"seq {seq} is a {entry.type}; `rlvr why --seq` explains {', '.join(EXPLAINABLE)} events"
        )
    return entry


def print_explanation(explanation: Explanation, console: Console) -> None:
    if not explanation.items:
        console.print(
            f"run {plain(explanation.run_id)}: no failed gate, policy decision or failure to explain"
        )
        return
    for first, last, rewind in explanation.abandoned:
        console.print(
            f"[yellow]seqs {first}..{last} were abandoned by the rewind at seq {rewind}[/]"
        )
    for item in explanation.items:
        colour = "green" if item.passed else "red" if item.passed is False else "cyan"
        label = f"[bold {colour}]seq {item.seq}[/] {plain(item.headline)}"
        if item.abandoned_by is not None:
            label += f" [yellow](abandoned: rewound at seq {item.abandoned_by})[/]"
        tree = Tree(label)
        if item.detail:
            tree.add(plain(item.detail))
        if item.story:
            tree.add(f"[bold]in short:[/] {plain(item.story)}")
        for title, group in (("evidence", item.evidence), ("then", item.then)):
            branch = tree.add(f"[bold]{title}[/]")
            if not group:
                branch.add("nothing recorded" if title == "evidence" else "nothing yet")
            for ev in group:
                node = branch.add(f"seq {ev.seq} [dim]{plain(ev.type)}[/]: {plain(ev.summary)}")
                for line in ev.details[:20]:
                    node.add(plain(line))
                if len(ev.details) > 20:
                    node.add(f"... {len(ev.details) - 20} more (see --json)")
        console.print(tree)
