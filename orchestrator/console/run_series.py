"""The run page's charts as columns: one point a logged step (its seq, step and the figures the
charts draw), the held-out evals, the thresholds each chart draws, and the markers on the step
axis (checkpoints, policy decisions, rollbacks, rewinds, injected faults, branches, failures)."""

from __future__ import annotations

from typing import Any

from store.settings import BY_NAME

# Chart series read from each step's MetricsRecorded: page key -> the metric's name in the log.
STEP_SERIES = {
    "reward": "reward_mean",
    "verify_rate": "verify_rate",
    "kl": "kl",
    "entropy": "entropy",
    "response_len": "response_len",
}
# The settings in force, per step: the value the step logged it ran with, else the recorded one.
SETTING_SERIES = ("learning_rate", "kl_penalty_coef", "temperature")
# The metrics whose gate or policy thresholds each chart draws.
THRESHOLD_METRICS = {
    "reward": ("reward", "reward_mean"),
    "verify_rate": ("verify_rate", "heldout_verify_rate"),
    "kl": ("kl",),
    "entropy": ("entropy", "entropy_ratio"),
    "response_len": ("response_len",),
    "capability": ("capability_retention",),
}
SERIES_TYPES = (
    "RunStarted", "MetricsRecorded", "EvalRecorded", "BaselineRecorded", "GateEvaluated",
    "PolicyDecided", "HyperparametersChanged", "RolledBack", "RunBranched", "RunRewound",
    "RunFailed", "CheckpointSaved", "FaultInjected",
)  # fmt: skip


def _fault_label(p: dict[str, Any]) -> str:
    params = ", ".join(f"{k}={v}" for k, v in sorted(p.get("parameters", {}).items()))
    return f"fault {p['kind']}" + (f" ({params})" if params else "")


def _marker(seq: int, step: int, t: str, p: dict[str, Any]) -> dict[str, Any] | None:
    if t == "PolicyDecided":
        kind, label = "decision", f"{p['policy']}: {p['action']}"
    elif t == "RolledBack":
        kind, label = "rollback", f"rollback {p['from_step']}->{p['to_step']}"
        step = int(p["from_step"])
    elif t == "CheckpointSaved":
        kind, label, step = "checkpoint", f"checkpoint {p['checkpoint'][:12]}", int(p["step"])
    elif t == "RunRewound":
        kind, label = "rewind", f"rewound to seq {p['to_seq']}"
    elif t == "FaultInjected":
        kind, label, step = "fault", _fault_label(p), int(p["step"])
    elif t == "RunBranched":
        kind, label = "branch", f"branched from {p['parent_run_id']}@{p['parent_seq']}"
    elif t == "RunFailed":
        kind, label = "failure", "run failed"
    else:
        return None
    return {"seq": seq, "step": step, "kind": kind, "label": label,
            "explained": t in ("PolicyDecided", "RolledBack", "RunFailed")}  # fmt: skip


class SeriesBuilder:
    """Gathers the page's series from rows in seq order, starting at step `step` with the
    settings `settings` in force (an increment starts where the page left off)."""

    def __init__(self, step: int, settings: dict[str, Any]) -> None:
        self.step = step
        self.settings = dict(settings)
        self.points: dict[str, list[Any]] = {"seq": [], "step": []}
        for key in (*STEP_SERIES, *SETTING_SERIES):
            self.points[key] = []
        self.evals: dict[str, Any] = {"seq": [], "step": [], "verify_rate": [], "capability": []}
        self.baseline: dict[str, Any] | None = None
        self.thresholds: list[dict[str, Any]] = []
        self.markers: list[dict[str, Any]] = []
        self.rewinds: list[tuple[int, int]] = []
        self._seen: set[tuple[str, str, float]] = set()

    def take(self, seq: int, t: str, p: dict[str, Any]) -> None:
        if t == "MetricsRecorded":
            self._step_point(seq, p)
        elif t == "RunStarted":
            self.settings.update(p.get("hyperparameters", {}))
        elif t == "HyperparametersChanged":
            self.settings.update(p["changes"])
        elif t == "EvalRecorded":
            self.step = max(self.step, int(p["step"]))
            for key, value in (
                ("seq", seq),
                ("step", p["step"]),
                ("verify_rate", p["verify_rate"]),
                ("capability", p["capability"]),
            ):
                self.evals[key].append(value)  # fmt: skip
        elif t == "BaselineRecorded":
            self.baseline = {"seq": seq, "verify_rate": p["verify_rate"],
                             "capability": p["capability"]}  # fmt: skip
            self._threshold(seq, "verify_rate", "baseline", p["verify_rate"])
        elif t == "GateEvaluated":
            self._threshold(seq, p["metric"], f"gate {p['gate']}", p["threshold"])
        elif t == "PolicyDecided":
            self._threshold(seq, p["trigger_metric"], f"policy {p['policy']}", p["threshold"])
        if t == "RunRewound":
            self.rewinds.append((seq, int(p["to_seq"])))
        if t == "RolledBack":
            self.step = max(self.step, int(p["from_step"]))
        marker = _marker(seq, self.step, t, p)
        if marker is not None:
            self.markers.append(marker)

    def _step_point(self, seq: int, p: dict[str, Any]) -> None:
        metrics, step = p["metrics"], int(p["step"])
        self.step = max(self.step, step)
        self.points["seq"].append(seq)
        self.points["step"].append(step)
        for key, name in STEP_SERIES.items():
            self.points[key].append(metrics.get(name))
        for name in SETTING_SERIES:
            logged = metrics.get(BY_NAME[name].metric)
            value = logged if logged is not None else self.settings.get(name)
            self.points[name].append(value if isinstance(value, int | float) else None)

    def _threshold(self, seq: int, metric: str, label: str, value: float | None) -> None:
        if value is None:
            return
        if (metric, label, value) not in self._seen:
            self._seen.add((metric, label, value))
            self.thresholds.append({"metric": metric, "label": label, "value": value, "seq": seq})
