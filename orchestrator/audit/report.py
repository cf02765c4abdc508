"""`rlvr report RUN [--out DIR]`: a self-contained HTML page plus PNG plots, built from the log alone.

Opening `index.html` needs no server and no network: CSS is inline and the plots are PNG files
beside it, referenced by relative path. Every plot marks policy decisions, rollbacks, branches and
rewinds; gate thresholds are drawn as horizontal lines. Points from abandoned spans are grey.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.audit.why_evidence import LogIndex, entries
from store.blobs import BlobStore
from store.log import EventLog, StoredEvent
from store.projections import RunState, project
from store.rollouts import decode as decode_rollouts
from store.settings import BY_NAME

if TYPE_CHECKING:  # matplotlib takes about a second to import: only `rlvr report` loads it
    from matplotlib.axes import Axes

PLOTS = {
    "verify_rate": "Verify rate",
    "reward": "Reward",
    "kl": "KL to the reference policy",
    "entropy": "Token entropy",
    "hyperparameters": "Learning rate and KL coefficient",
    "capability": "Capability benchmarks",
}
_MARKER_STYLE = {
    "decision": ("tab:orange", ":"),
    "rollback": ("tab:red", "-"),
    "branch": ("tab:purple", "--"),
    "rewind": ("tab:gray", "-."),
    "failure": ("black", "-"),
}
_COLOURS = ["tab:blue", "tab:green", "tab:brown", "tab:pink", "tab:olive", "tab:cyan"]


@dataclass(frozen=True)
class Marker:
    step: int
    kind: str
    label: str
    seq: int


class _Data:
    """Everything the report draws, gathered in one pass over the log."""

    def __init__(self, idx: LogIndex) -> None:
        self.idx = idx
        self.series: dict[str, list[tuple[int, float, bool]]] = {}
        self.evals: list[tuple[int, float, dict[str, float], bool]] = []
        self.baseline: dict[str, Any] | None = None
        self.markers: list[Marker] = []
        self.thresholds: dict[str, set[tuple[str, float]]] = {}
        self.hyper_steps: list[tuple[int, dict[str, Any]]] = []
        for e in idx.log:
            self._take(e, idx.rewinds.abandoned_by(e.seq) is not None)

    def _threshold(self, metric: str, label: str, value: float | None) -> None:
        if value is not None:
            self.thresholds.setdefault(metric, set()).add((label, value))

    def _take(self, e: Any, abandoned: bool) -> None:
        p, step = e.payload, self.idx.steps[e.seq]
        if e.type == "RunStarted":
            self.hyper_steps.append((0, dict(p["hyperparameters"])))
        elif e.type == "MetricsRecorded":
            for name, value in p["metrics"].items():
                if value is not None:
                    self.series.setdefault(name, []).append((p["step"], value, abandoned))
        elif e.type == "EvalRecorded":
            self.evals.append((p["step"], p["verify_rate"], p["capability"], abandoned))
        elif e.type == "BaselineRecorded" and not abandoned:
            self.baseline = p
            self._threshold("verify_rate", "baseline", p["verify_rate"])
        elif e.type == "GateEvaluated":
            self._threshold(p["metric"], f"gate {p['gate']}", p["threshold"])
        elif e.type == "PolicyDecided":
            self._threshold(p["trigger_metric"], f"policy {p['policy']}", p["threshold"])
            self.markers.append(Marker(step, "decision", f"{p['policy']}: {p['action']}", e.seq))
        elif e.type == "HyperparametersChanged":
            self.hyper_steps.append((step, p["changes"]))
        elif e.type == "RolledBack":
            label = f"rollback {p['from_step']}->{p['to_step']}"
            self.markers.append(Marker(p["from_step"], "rollback", label, e.seq))
        elif e.type == "RunBranched":
            label = f"branched from {p['parent_run_id']}@{p['parent_seq']}"
            self.markers.append(Marker(step, "branch", label, e.seq))
        elif e.type == "RunRewound":
            self.markers.append(Marker(step, "rewind", f"rewound to seq {p['to_seq']}", e.seq))
        elif e.type == "RunFailed":
            self.markers.append(Marker(step, "failure", "run failed", e.seq))

    def hyperparameter(self, name: str) -> list[tuple[int, float, bool]]:
        """The tunable's step metric when the steps logged it (the learning rate as scheduled),
        else the step function of its recorded values."""
        if self.series.get(BY_NAME[name].metric):
            return self.series[BY_NAME[name].metric]
        values, out = {}, []
        for step, changes in self.hyper_steps:
            values.update(changes)
            if isinstance(values.get(name), int | float):
                out.append((step, float(values[name]), False))
        return out


def _line(
    ax: Axes, points: list[tuple[int, float, bool]], label: str, colour: str, steps: bool = False
) -> bool:
    kept = _thinned([(s, v) for s, v, gone in points if not gone])
    gone = _thinned([(s, v) for s, v, g in points if g])
    if kept:
        style = (
            {"drawstyle": "steps-post"} if steps else {"marker": "." if len(kept) < 40 else None}
        )
        ax.plot(*zip(*kept, strict=True), label=label, color=colour, **style)
    if gone:
        ax.plot(*zip(*gone, strict=True), "x", color="lightgray", label=f"{label} (abandoned)")
    return bool(points)


# A plot 800 px wide shows no more: longer series are cut into buckets, each drawn as its lowest
# and highest point (a spike survives), so drawing a 10,000-step run costs what 1,000 steps do.
MAX_POINTS = 1000


def _thinned(points: list[tuple[int, float]]) -> list[tuple[int, float]]:
    if len(points) <= MAX_POINTS:
        return points
    size = -(-len(points) // (MAX_POINTS // 2))
    out: list[tuple[int, float]] = []
    for start in range(0, len(points), size):
        bucket = points[start : start + size]
        low = min(bucket, key=lambda p: p[1])
        high = max(bucket, key=lambda p: p[1])
        out += sorted({low, high})
    return out


def _decorate(ax: Axes, data: _Data, metrics: tuple[str, ...], has_data: bool, name: str) -> None:
    by_value: dict[float, list[str]] = {}
    for label, value in sorted({t for m in metrics for t in data.thresholds.get(m, set())}):
        by_value.setdefault(value, []).append(label)
    for value, labels in by_value.items():
        ax.axhline(value, color="tab:red", linestyle="--", alpha=0.7, linewidth=1)
        text = f"{', '.join(labels)}: {value:g}"
        ax.annotate(text, (0.01, value), xycoords=("axes fraction", "data"), fontsize=7,
                    color="tab:red", va="bottom")  # fmt: skip
    seen: set[str] = set()
    at_step: dict[int, int] = {}
    for marker in data.markers:
        colour, style = _MARKER_STYLE[marker.kind]
        label = None if marker.kind in seen else marker.kind
        ax.axvline(marker.step, color=colour, linestyle=style, linewidth=1.2, label=label)
        # Markers at one step stack their labels instead of printing over each other.
        height = 0.98 - 0.3 * at_step.get(marker.step, 0)
        at_step[marker.step] = at_step.get(marker.step, 0) + 1
        ax.annotate(marker.label, (marker.step, height), xycoords=("data", "axes fraction"),
                    rotation=90, fontsize=6, va="top", ha="right", color=colour)  # fmt: skip
        seen.add(marker.kind)
    if not has_data:
        ax.text(0.5, 0.5, f"no {name} recorded in this run", ha="center", va="center",
                transform=ax.transAxes, color="gray")  # fmt: skip
    ax.set_xlabel("step")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="best")


def _plot(data: _Data, name: str, path: Path) -> None:
    from matplotlib.figure import Figure

    # Fixed margins, not a layout engine: constrained layout measured every text box before the
    # draw, most of a 10,000-step report's time. Room for tick labels, the title and, on the
    # hyper-parameter plot, the right-hand axis and its label.
    fig = Figure(figsize=(8, 3.4), dpi=100)
    fig.subplots_adjust(left=0.09, right=0.90 if name == "hyperparameters" else 0.98,
                        bottom=0.14, top=0.91)  # fmt: skip
    ax = fig.add_subplot()
    # A fixed title height: placing it automatically measures every tick label of every axis.
    ax.set_title(PLOTS[name], fontsize=10, y=1.0)
    metrics: tuple[str, ...] = (name,)
    if name == "verify_rate":
        has = _line(ax, data.series.get("verify_rate", []), "train verify rate", "tab:blue")
        held = [(s, v, gone) for s, v, _cap, gone in data.evals]
        has = _line(ax, held, "held-out verify rate", "tab:green") or has
        metrics = ("verify_rate", "heldout_verify_rate")
    elif name == "reward":
        has = _line(ax, data.series.get("reward_mean", []), "reward mean", "tab:blue")
        metrics = ("reward", "reward_mean")
    elif name == "kl":
        has = _line(ax, data.series.get("kl", []), "KL", "tab:blue")
    elif name == "entropy":
        has = _line(ax, data.series.get("entropy", []), "entropy", "tab:blue")
        metrics = ("entropy", "entropy_ratio")
    elif name == "hyperparameters":
        has = _line(ax, data.hyperparameter("learning_rate"), "learning rate", "tab:blue", True)
        ax.set_yscale("log") if has else None
        right = ax.twinx()
        kl_penalty_coef = data.hyperparameter("kl_penalty_coef")
        if _line(right, kl_penalty_coef, "KL coefficient", "tab:green", True):
            right.set_ylabel("KL coefficient")
            right.legend(fontsize=7, loc="lower right")
        has = has or bool(kl_penalty_coef)
        metrics = ("learning_rate_scheduled", "kl_penalty_coef")
    else:
        has = _capability(ax, data)
        metrics = ()
    _decorate(ax, data, metrics, has, PLOTS[name].lower())
    # zlib's fastest level: these are flat-colour line plots, the files stay small.
    fig.savefig(path, pil_kwargs={"compress_level": 1})


def _capability(ax: Axes, data: _Data) -> bool:
    base = data.baseline["capability"] if data.baseline else {}
    names = sorted(set(base) | {n for _s, _v, cap, _g in data.evals for n in cap})
    retention = min(
        (v for label, v in data.thresholds.get("capability_retention", set())), default=None
    )
    for i, bench in enumerate(names):
        colour = _COLOURS[i % len(_COLOURS)]
        points = [(0, base[bench], False)] if bench in base else []
        points += [(s, cap[bench], g) for s, _v, cap, g in data.evals if bench in cap]
        _line(ax, points, bench, colour)
        if retention is not None and bench in base:
            ax.axhline(
                base[bench] * retention, color=colour, linestyle="--", linewidth=1, alpha=0.7
            )
            ax.annotate(
                f"{bench} x {retention:g}",
                (0.01, base[bench] * retention),
                xycoords=("axes fraction", "data"),
                fontsize=7,
                color=colour,
                va="top",
            )
    return bool(names)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;width:100%}td,th{border:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f4f4f4}.pass{color:#176b1e;font-weight:600}.fail{color:#b00020;font-weight:600}
.gone{color:#999;text-decoration:line-through}.plots{display:grid;grid-template-columns:1fr;gap:1em}
figure{margin:0}img{max-width:100%;height:auto;border:1px solid #eee}pre{white-space:pre-wrap;margin:0;font-size:.95em}
.facts td:first-child{width:14em;font-weight:600}
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _table(headers: list[str], rows: list[list[str]], empty: str) -> str:
    if not rows:
        return f"<p>{_e(empty)}</p>"
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


# What the report reads of a long run: the rows its plots and tables use. The rollout rows (one a
# step, with every reward) are left out; `sample_rows` picks the two whose text it shows.
REPORT_TYPES = (
    "RunStarted", "MetricsRecorded", "EvalRecorded", "BaselineRecorded", "GateEvaluated",
    "PolicyDecided", "HyperparametersChanged", "RolledBack", "RunBranched", "RunRewound",
    "RunFailed", "RunCompleted",
)  # fmt: skip


def sample_rows(log: EventLog, run_id: str) -> list[StoredEvent]:
    """The first and the last `RolloutsSampled` that kept text, each with its `VerdictsRecorded`
    (same step, same append), read as a stream: two rows kept, whatever the run's length."""
    first = last = None
    for row in log.read(run_id, types=["RolloutsSampled"]):
        payload = row.fields()
        if payload.get("samples") or payload.get("blob"):
            first = first or row
            last = row
    out: list[StoredEvent] = []
    for row in dict.fromkeys(r for r in (first, last) if r is not None):
        step = row.fields()["step"]
        out.append(row)
        out += [
            v
            for v in log.read(run_id, from_seq=row.seq + 1, to_seq=row.seq + 4,
                              types=["VerdictsRecorded"])
            if v.fields()["step"] == step
        ][:1]  # fmt: skip
    return out


def _rollout_text(
    e: Any, verdicts: dict[int, dict], blobs: BlobStore | None
) -> tuple[list[dict], list[dict]] | str:
    """A step's sampled groups and their verdicts: inline in older logs, else from the blob the
    rows name; a sentence when that blob is not in this store."""
    if e.payload.get("samples"):
        return e.payload["samples"], verdicts.get(e.payload["step"], {}).get("verdicts", [])
    digest = e.payload["blob"]
    if blobs is None or not blobs.exists(digest):
        return f"the rollout text is in blob {digest[:16]}, which is not in this store"
    body = decode_rollouts(blobs.get_bytes(digest))
    return body["samples"], body["verdicts"]


def _samples(idx: LogIndex, blobs: BlobStore | None = None, limit: int = 8) -> list[list[str]]:
    """Sample rollouts of the first and last sampled steps, each completion beside its verdict.

    `samples` holds groups (a prompt and its `completions`); `verdicts` holds the same rollouts
    flat, group by group, so group g's completion j is verdict g*n + j.
    """
    sampled = [
        e for e in idx.log
        if e.type == "RolloutsSampled" and (e.payload["samples"] or e.payload.get("blob"))
    ]  # fmt: skip
    verdicts = {e.payload["step"]: e.payload for e in idx.log if e.type == "VerdictsRecorded"}
    rows = []
    for e in sampled[:1] + sampled[-1:] if len(sampled) > 1 else sampled:
        step, n = e.payload["step"], e.payload["group_size"]
        text = _rollout_text(e, verdicts, blobs)
        if isinstance(text, str):
            rows.append([_e(step), "", _e(text), "", ""])
            continue
        groups, judged = text
        shown = 0
        for g, group in enumerate(groups):
            for j, completion in enumerate(group.get("completions", [])):
                if shown == limit // 2:
                    break
                shown += 1
                at = g * n + j
                verdict = judged[at] if at < len(judged) else {}
                passed = verdict.get("passed")
                mark = (
                    ""
                    if passed is None
                    else f'<span class="{"pass" if passed else "fail"}">{"pass" if passed else "fail"}</span> '
                )
                extra = {k: v for k, v in verdict.items() if k not in ("passed", "task_id")}
                rows.append([
                    _e(step), f"<pre>{_e(group.get('prompt', ''))}</pre>",
                    f"<pre>{_e(completion)}</pre>", _e(group.get("task_id", "")),
                    mark + _e(json.dumps(extra) if extra else ""),
                ])  # fmt: skip
    return rows


def build_report(
    events: Iterable[StoredEvent],
    out_dir: Path,
    *,
    state: RunState | None = None,
    blobs: BlobStore | None = None,
) -> Path:
    """Write `index.html` and one PNG per plot into `out_dir`; return the HTML's path. `events`
    may be some types only (`REPORT_TYPES` plus `sample_rows`) when `state` is given."""
    if state is None:
        events = list(events)
        state = project(events)
    idx = LogIndex(entries(events))
    if not idx.log:
        raise ValueError("build_report needs at least one event")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    data = _Data(idx)
    for name in PLOTS:
        _plot(data, name, out_dir / f"{name}.png")
    facts = [
        ("run", state.run_id), ("state", state.state), ("step", state.step),
        ("events", state.last_seq), ("config hash", state.config_hash[:16]),
        ("parent", f"{state.parent[0]} @ seq {state.parent[1]}" if state.parent else "none"),
        ("rollbacks", state.rollbacks), ("failure", state.failure_reason or "none"),
        ("last good checkpoint", state.last_good_checkpoint.digest[:16] if state.last_good_checkpoint else "none"),
        ("abandoned spans", ", ".join(f"seqs {a}..{b} (rewound at {r})" for a, b, r in idx.rewinds.as_tuples()) or "none"),
    ]  # fmt: skip
    gate_rows = []
    for e in idx.log:
        if e.type != "GateEvaluated":
            continue
        p, gone = e.payload, idx.rewinds.abandoned_by(e.seq) is not None
        verdict = f'<span class="{"pass" if p["passed"] else "fail"}">{"pass" if p["passed"] else "FAIL"}</span>'
        gate_rows.append([
            _e(e.seq) + (' <span class="gone">abandoned</span>' if gone else ""), _e(p["stage"]),
            _e(p["gate"]), _e(p["metric"]), _e(p["value"]), _e(f"{p['comparator']} {p['threshold']}"),
            verdict, _e(p.get("detail", "")),
        ])  # fmt: skip
    timeline_types = (
        "PolicyDecided",
        "RolledBack",
        "HyperparametersChanged",
        "RunBranched",
        "RunRewound",
        "RunFailed",
        "RunCompleted",
    )
    timeline = [
        [_e(e.seq), _e(idx.steps[e.seq]), _e(e.type), _e(idx.render(e).summary)]
        for e in idx.log
        if e.type in timeline_types
    ]
    figures = "".join(
        f'<figure><img src="{name}.png" alt="{_e(title)}" width="800" height="340"><figcaption>{_e(title)}</figcaption></figure>'
        for name, title in PLOTS.items()
    )
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>rlvr report: {_e(state.run_id)}</title><style>{_CSS}</style></head>
<body><h1>RLVR run {_e(state.run_id)}</h1>
<table class="facts">{"".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in facts)}</table>
<h2>Metrics</h2><div class="plots">{figures}</div>
<h2>Gates</h2>{_table(["seq", "stage", "gate", "metric", "value", "needs", "verdict", "detail"], gate_rows, "no gate was evaluated")}
<h2>Decisions, rollbacks and branches</h2>{_table(["seq", "step", "event", "what"], timeline, "no policy acted in this run")}
<h2>Sample rollouts</h2>{_table(["step", "prompt", "response", "task", "verdict"], _samples(idx, blobs), "no rollouts were recorded")}
<p><small>Built from the event log by <code>rlvr report</code>; explain any gate with <code>rlvr why {_e(state.run_id)}</code>.</small></p>
</body></html>
"""
    path = out_dir / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
