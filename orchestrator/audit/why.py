"""`rlvr why RUN [--gate NAME | --seq N] [--full]`: explain gates, policy decisions and rollbacks
from the log.

`explain` is a pure function of a run's stored events. For each gate or decision it gives:
- the evidence the rule read: the window of step values it judged (the KL of the last 5 steps and
  their mean) with its threshold, and the other events it cites (an eval against the baseline,
  the wrong answers a verifier accepted); `--full` shows every metric of those steps;
- the setting behind the threshold (`gates.max_kl`, `policies.kl.limit`) and, for a gate, the
  `rlvr branch` command that would judge it again under another value;
- the causes the log names: faults injected on purpose since the rule last acted;
- "in short": this decision's own consequences (its rollback, its change of hyper-parameters, the
  pause or failure it asked for), never a later decision's.
Spans abandoned by a `RunRewound` stay visible, marked with the seq of the rewind.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import takewhile
from typing import Any

from orchestrator.audit.why_evidence import (
    Entry,
    Evidence,
    Explanation,
    Item,
    LogIndex,
    Window,
    entries,
    num,
    window_metric,
    window_of,
)
from orchestrator.audit.why_print import print_explanation
from orchestrator.errors import OrchestratorError
from policies.settings import GATE_SETTINGS, decision_keys
from store.events import EVENT_TYPES
from store.log import StoredEvent

__all__ = [
    "WHY_TYPES",
    "Explanation",
    "Item",
    "LogIndex",
    "entries",
    "explain",
    "print_explanation",
]

EXPLAINABLE = (
    "GateEvaluated",
    "PolicyDecided",
    "RolledBack",
    "HyperparametersChanged",
    "RunFailed",
)
# Every type but the per-step rollout rows (their step is also on the MetricsRecorded appended
# with them, and no gate or policy cites them): what `why` reads of a long run.
WHY_TYPES = tuple(t for t in EVENT_TYPES if t not in ("RolloutsSampled", "VerdictsRecorded"))
_MEAN_RULES = {("gate", "kl"), ("policy", "kl")}  # rules that judge a mean of their window


def _lookup(config: dict[str, Any], key: str) -> Any:
    node: Any = config
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _settings(idx: LogIndex, seq: int, keys: list[str]) -> list[dict[str, Any]]:
    config = idx.config_at(seq)
    return [{"key": key, "value": _lookup(config, key)} for key in keys]


def _cut_before(idx: LogIndex, seq: int) -> int:
    """The end of the batch before the one `seq` was appended in: a branch cut there judges the
    same evidence again under other settings."""
    return idx.batch_start(seq) - 1


def _item(idx: LogIndex, e: Entry, run_id: str) -> Item:
    p = e.payload
    evidence_seqs = [s for s in p.get("evidence_seqs", []) if s in idx.by_seq]
    step = idx.steps.get(e.seq, 0)
    settings, branch_command, since = None, None, 0
    if e.type == "GateEvaluated":
        kind, name, passed = "gate", p["gate"], p["passed"]
        metric, value, threshold, comparator = (
            p["metric"],
            p["value"],
            p["threshold"],
            p["comparator"],
        )
        headline = f"gate {name} ({p['stage']}) {'passed' if passed else 'FAILED'}: {metric} = {num(value)}, needs {comparator} {num(threshold)}"
        detail = p.get("detail", "")
        key, others = GATE_SETTINGS.get(name, (None, ()))
        if key is not None:
            settings = _settings(idx, e.seq, [key, *others])
            branch_command = f"rlvr branch {run_id} --at {_cut_before(idx, e.seq)} {key}=VALUE"
        started = idx.before(e.seq, "StageStarted")
        since = started.seq if started else 0
        rule_metric = "kl" if name == "kl" else None
    elif e.type == "PolicyDecided":
        kind, name, passed = "policy", f"{p['policy']}:{p['action']}", None
        metric, value, threshold, comparator = p["trigger_metric"], p["value"], p["threshold"], None
        headline = f"policy {p['policy']} decided {p['action']} at step {step}: {metric} = {num(value)} (threshold {num(threshold)})"
        params = ", ".join(f"{k}={v}" for k, v in p.get("parameters", {}).items())
        detail = "; ".join(
            x for x in (p.get("reason", ""), params and f"parameters: {params}") if x
        )
        keys = decision_keys(p["policy"], metric, p.get("parameters", {}).get("budget"))
        settings = _settings(idx, e.seq, keys) if keys else None
        since = _previous_decision(idx, e)
        rule_metric = window_metric(kind, metric)
    else:
        kind = "rollback" if e.type == "RolledBack" else "failure"
        name, passed, metric, value, threshold, comparator = e.type, None, None, None, None, None
        headline = idx.render(e).summary
        detail = p.get("reason", "")
        rule_metric = None
    rule = None if rule_metric is None else (kind, p["gate"] if kind == "gate" else p["policy"])
    window, evidence, window_rows = _evidence(idx, evidence_seqs, rule, rule_metric)
    since = max(since, _evidence_floor(idx, evidence_seqs, window))
    causes = idx.faults_between(since, e.seq) if kind in ("gate", "policy") else []
    then = idx.consequences(e)
    return Item(
        e.seq, kind, name, step, passed, metric, value, threshold, comparator, headline,
        detail, _story(evidence, then, causes, window, comparator, threshold),
        [*window_rows, *evidence] if window is not None else evidence, then,
        idx.rewinds.abandoned_by(e.seq), window, causes, settings, branch_command,
    )  # fmt: skip


def _evidence(
    idx: LogIndex, evidence_seqs: list[int], rule: tuple[str, str] | None, rule_metric: str | None
) -> tuple[Window | None, list[Evidence], list[Evidence]]:
    """The window of step values `rule` judged (None for a row no rule judged over steps), the
    cited rows outside it, and the window's own rows."""
    window = None
    if rule is not None and rule_metric is not None:
        how = "mean" if rule in _MEAN_RULES else "each"
        window = window_of(idx, evidence_seqs, rule_metric, how)
    in_window = [
        window is not None and idx.by_seq[s].type == "MetricsRecorded" for s in evidence_seqs
    ]
    evidence = [idx.render(idx.by_seq[s]) for s, inside in zip(evidence_seqs, in_window, strict=True)
                if not inside]  # fmt: skip
    window_rows = [idx.render(idx.by_seq[s]) for s, inside in zip(evidence_seqs, in_window, strict=True)
                   if inside]  # fmt: skip
    return window, evidence, window_rows


def _evidence_floor(idx: LogIndex, evidence_seqs: list[int], window: Window | None) -> int:
    """Where what the rule read began to be shaped: the step before its window, or the eval
    before the eval it read. A fault before that did not move what it judged."""
    cited = [idx.by_seq[s] for s in evidence_seqs]
    rows = [e for e in cited if e.type == "MetricsRecorded"] if window is not None else []
    evals = [e for e in cited if e.type == "EvalRecorded"]
    first = min(rows or evals, key=lambda e: e.seq, default=None)
    if first is None:
        return 0
    before = idx.before(first.seq, first.type)
    return before.seq if before is not None else 0


def _previous_decision(idx: LogIndex, e: Entry) -> int:
    """The seq of this policy's previous decision (0: none): faults since then are its causes."""
    policy = e.payload["policy"]
    earlier = [
        x.seq for x in idx.log
        if x.seq < e.seq and x.type == "PolicyDecided" and x.payload["policy"] == policy
        and x.recorded_at != e.recorded_at
    ]  # fmt: skip
    return earlier[-1] if earlier else 0


def _story(
    evidence: list[Evidence],
    then: list[Evidence],
    causes: list[Evidence],
    window: Window | None,
    comparator: str | None,
    threshold: float | None,
) -> str:
    parts = []
    if window is not None:
        parts.append(window.short(comparator, threshold))
    for ev in evidence:
        if ev.type == "VerifierCalibrated" and ev.data["accepted_wrong"]:
            answers = ", ".join(repr(w["response"]) for w in ev.data["accepted_wrong"][:3])
            parts.append(f"verifier {ev.data['verifier']} accepted wrong answers {answers}")
        if ev.type == "EvalRecorded":
            drops = [
                r for r in ev.data["benchmarks"] if r["change"] is not None and r["change"] < 0
            ]
            parts += [
                f"{r['benchmark']} dropped {num(r['baseline'])} -> {num(r['value'])} ({r['change']:+.1%}) at step {ev.data['step']}"
                for r in drops
            ]
    parts += [f"caused by: {ev.summary}" for ev in causes]
    parts += [ev.summary for ev in then if ev.type in ("RolledBack", "HyperparametersChanged")]
    parts += [ev.summary for ev in then if ev.type in ("RunFailed", "RunPaused")][:1]
    return "; ".join(parts)


def explain(
    events: Iterable[StoredEvent],
    gate: str | None = None,
    seq: int | None = None,
    last_seq: int | None = None,
) -> Explanation:
    """Explain `gate` (every evaluation of it), the event at `seq`, or, with neither, every failed
    gate, every policy decision and every failure no gate explains. `last_seq`: the run's last
    seq (rows `why` does not read, a step's rollouts, still exist)."""
    if gate is not None and seq is not None:
        raise OrchestratorError("pass --gate or --seq, not both")
    stored = list(events)
    if not stored:
        raise OrchestratorError("the run has no events")
    log = entries(stored)
    idx = LogIndex(log)
    run_id = stored[-1].run_id
    gates = [e for e in log if e.type == "GateEvaluated"]
    if gate is not None:
        chosen = [e for e in gates if e.payload["gate"] == gate]
        if not chosen:
            known = ", ".join(sorted({e.payload["gate"] for e in gates})) or "none yet"
            raise OrchestratorError(f"no gate {gate!r} was evaluated in this run (gates: {known})")
    elif seq is not None:
        chosen = _targets(idx, seq, last_seq or log[-1].seq)
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
    return Explanation(run_id, [_item(idx, e, run_id) for e in chosen], idx.rewinds.as_tuples())


def _targets(idx: LogIndex, seq: int, last_seq: int) -> list[Entry]:
    entry = idx.by_seq.get(seq)
    if entry is None:
        if 1 <= seq <= last_seq:
            raise OrchestratorError(
                f"seq {seq} holds a step's rollouts or verdicts (RolloutsSampled, "
                "VerdictsRecorded): `rlvr events RUN` lists them; `rlvr why --seq` explains "
                f"{', '.join(EXPLAINABLE)} events and the decisions on a step's metrics"
            )
        raise OrchestratorError(f"no seq {seq} in this run (it has seqs 1..{last_seq})")
    if entry.type in ("RolledBack", "HyperparametersChanged"):
        # An action is explained by the decision that asked for it, when there is one.
        decision = idx.before(seq, "PolicyDecided")
        return [
            decision
            if decision is not None and entry.recorded_at >= decision.recorded_at
            else entry
        ]
    if entry.type in ("MetricsRecorded", "EvalRecorded", "StepFailed"):
        # A step's figures: the decisions taken on them, when there were some.
        batch = takewhile(lambda e: e.recorded_at == entry.recorded_at, idx.after(seq))
        decided = [
            e for e in batch
            if e.type == "PolicyDecided" and e.payload.get("evidence_seqs", [None])[0] == seq
        ]  # fmt: skip
        if decided:
            return decided
    if entry.type not in EXPLAINABLE:
        raise OrchestratorError(
            f"seq {seq} is a {entry.type}; `rlvr why --seq` explains {', '.join(EXPLAINABLE)} "
            "events and the decisions on a step's metrics"
        )
    return [entry]


def explain_each(
    events: Iterable[StoredEvent], seqs: Iterable[int], last_seq: int | None = None
) -> dict[int, Explanation]:
    """`explain(events, seq=s)` for each of `seqs`, indexing the log once (the run page of
    `rlvr report` explains every gate and decision); a seq `why --seq` does not explain is left
    out."""
    stored = list(events)
    if not stored:
        return {}
    idx = LogIndex(entries(stored))
    run_id = stored[-1].run_id
    out = {}
    for seq in seqs:
        try:
            chosen = _targets(idx, seq, last_seq or idx.log[-1].seq)
        except OrchestratorError:
            continue
        items = [_item(idx, e, run_id) for e in chosen]
        out[seq] = Explanation(run_id, items, idx.rewinds.as_tuples())
    return out
