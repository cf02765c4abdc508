"""Upcasters: turn a stored payload of an old `schema_version` into the current shape on read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from store.errors import StoreError
from store.events import EVENT_TYPES, Event

Payload = dict[str, Any]

# (type name, stored version) -> function producing the payload of version + 1
UPCASTERS: dict[tuple[str, int], Callable[[Payload], Payload]] = {}


def upcaster(type_name: str, from_version: int):
    def register(fn: Callable[[Payload], Payload]) -> Callable[[Payload], Payload]:
        UPCASTERS[(type_name, from_version)] = fn
        return fn

    return register


@upcaster("GateEvaluated", 1)
def _gate_evaluated_v1_to_v2(payload: Payload) -> Payload:
    upgraded = {k: v for k, v in payload.items() if k != "evidence"}
    upgraded["evidence_seqs"] = list(payload.get("evidence", []))
    upgraded.setdefault("detail", "")
    return upgraded


# v1 logs named two tunables otherwise: the KL coefficient `kl_coef`, and the scheduled learning
# rate `learning_rate`, the base rate's name (store/settings.py holds the one vocabulary).
_V1_METRIC_NAMES = {"kl_coef": "kl_penalty_coef", "learning_rate": "learning_rate_scheduled"}


@upcaster("MetricsRecorded", 1)
def _metrics_recorded_v1_to_v2(payload: Payload) -> Payload:
    renamed = {}
    for name, value in payload["metrics"].items():
        if name.startswith("nonfinite_") and name[len("nonfinite_") :] in _V1_METRIC_NAMES:
            name = "nonfinite_" + _V1_METRIC_NAMES[name[len("nonfinite_") :]]
        renamed[_V1_METRIC_NAMES.get(name, name)] = value
    return {**payload, "metrics": renamed}


# The trainer's own adaptive KL controller is gone: the KL policy owns the coefficient, each change
# an event. A v1 run that used it resumes with the coefficient its last checkpoint holds, fixed
# until a policy changes it.
_REMOVED_GRPO_KEYS = ("kl_controller", "kl_target", "kl_adapt_rate")


@upcaster("RunStarted", 1)
def _run_started_v1_to_v2(payload: Payload) -> Payload:
    config = dict(payload["config"])
    if isinstance(config.get("grpo"), dict):
        config["grpo"] = {k: v for k, v in config["grpo"].items() if k not in _REMOVED_GRPO_KEYS}
    return {**payload, "config": config}


# Before v3 RunStarted did not carry the tunable settings' start values: they are read from the
# config layout of those runs (the GRPO config, as it then was).
_V2_TUNABLE_KEYS = {
    "learning_rate": ("grpo", "learning_rate"),
    "kl_penalty_coef": ("grpo", "kl_penalty_coef"),
    "temperature": ("grpo", "sampling", "temperature"),
    "entropy_coef": ("grpo", "entropy_coef"),
    "group_size": ("grpo", "group_size"),
    "micro_batches": ("grpo", "micro_batches"),
}


@upcaster("RunStarted", 2)
def _run_started_v2_to_v3(payload: Payload) -> Payload:
    start: Payload = {}
    for name, path in _V2_TUNABLE_KEYS.items():
        value: Any = payload["config"]
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            start[name] = value
    return {**payload, "hyperparameters": start}


# Before v3 the one gate that judged checkpoints was the evaluation stage's retention gate: a fact
# about stored history, kept here so old logs fold to the same last good checkpoint.
_V2_CHECKPOINT_GATES = frozenset({"capability_retention"})


@upcaster("GateEvaluated", 2)
def _gate_evaluated_v2_to_v3(payload: Payload) -> Payload:
    return {**payload, "judges_checkpoint": payload["gate"] in _V2_CHECKPOINT_GATES}


# Before v2 a step's verdicts named their verifier only (its `name`: the kind); what else
# produced them (version, settings, code) was not recorded and stays unknown.
@upcaster("VerdictsRecorded", 1)
def _verdicts_recorded_v1_to_v2(payload: Payload) -> Payload:
    return {**payload, "verifier": {"kind": payload["verifier"]}}


# Before v2 every rollout batch was sampled on-policy: by the weights of its own step.
@upcaster("RolloutsSampled", 1)
def _rollouts_sampled_v1_to_v2(payload: Payload) -> Payload:
    return {**payload, "policy_version": payload["step"]}


def upcast(type_name: str, schema_version: int, payload: Payload) -> Payload:
    """The payload in the current version's shape (unchanged when already current)."""
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        raise StoreError(f"unknown event type {type_name!r}")
    version = schema_version
    while version < cls.schema_version:
        step = UPCASTERS.get((type_name, version))
        if step is None:
            raise StoreError(f"no upcaster for {type_name} v{version} -> v{version + 1}")
        try:
            payload = step(payload)
        except (KeyError, TypeError, AttributeError, IndexError) as e:
            # an old row of the wrong shape (`"metrics": [1, 2]`): refused as a payload that does
            # not fit (a TypeError: the readers' `payload_mismatch`, the import's file:line), not
            # an AttributeError out of the upcaster (red team round 26, log 013)
            raise TypeError(
                f"{type_name} v{version}: a payload its upcaster to v{version + 1} cannot read "
                f"({e})"
            ) from e
        version += 1
    if version > cls.schema_version:
        raise StoreError(
            f"{type_name} v{schema_version} is newer than this code knows (v{cls.schema_version})"
        )
    return payload


def decode(type_name: str, schema_version: int, payload: Payload, seq: int | None = None) -> Event:
    """Build the current event class from a stored payload, upcasting old versions first.
    Strict, as JSON (as `events import` checks rows): a chain-consistent payload with a number
    stored as text ("verify_rate": "0.99") is refused, not coerced while readers that take the
    stored fields (`StoredEvent.checked_fields`) get the text and trip over it."""
    current = upcast(type_name, schema_version, payload)
    context = {"seq": seq} if seq is not None else None  # the stored row's (CitesEvidence)
    return EVENT_TYPES[type_name].model_validate_json(
        orjson.dumps(current), strict=True, context=context
    )
