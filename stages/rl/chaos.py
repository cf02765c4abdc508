"""Faults injected on purpose (`[[chaos.faults]]`), each once: the log remembers what was done.

`verdict_corruption` is a scorer bug from its step on: each step's verdicts are corrupted after
the verifier checked them (`corrupt`). Its silent form appends nothing and says nothing, so the
only way to find where it began is to re-verify the logged rollouts (`rlvr rescore`)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import structlog

from stages.config import InjectedFault
from stages.rl.session import RLSession
from stages.verifiers.types import Verdict
from store.events import Event, FaultInjected, HyperparametersChanged

log_ = structlog.get_logger("rlvr.rl")


def inject(session: RLSession) -> None:
    """Inject the faults configured for the coming step that the log does not hold yet."""
    trainer, ctx = session.trainer, session.ctx
    assert trainer is not None
    due = [f for f in session.config.chaos.faults if f.step == trainer.step and not f.silent]
    if not due:
        return
    done = {(r.event.kind, r.event.step) for r in ctx.read(1) if r.type == "FaultInjected"}
    for fault in due:
        if (fault.kind, fault.step) in done:
            continue
        params = fault.model_dump(exclude={"kind", "step"})
        events: list[Event] = [FaultInjected(kind=fault.kind, step=fault.step, parameters=params)]
        if fault.kind in ("learning_rate", "temperature"):
            events.append(
                HyperparametersChanged(
                    changes={fault.kind: fault.value},
                    reason=f"chaos: {fault.kind} set to {fault.value}",
                )
            )
        elif fault.kind == "capability_poison":
            poison(session, params)
        log_.warning("fault injected", kind=fault.kind, step=fault.step)
        ctx.emit(events)  # a knob's new value is in force from the log's fold on


def poison(session: RLSession, params: dict[str, Any]) -> None:
    """SFT the capability skills on corrupted labels (copied instead of reversed)."""
    from stages.training.config import SFTConfig
    from stages.training.sft import epoch_batches, sft

    trainer, seed = session.trainer, session.config.seed
    assert trainer is not None
    skills = [t for tasks in session.services.tasks.capability_train.values() for t in tasks]
    if not skills:
        return
    corrupted = [(t.prompt, t.answer[::-1] if t.answer else "") for t in skills]
    config = SFTConfig(
        steps=int(params["steps"]), batch_size=32, learning_rate=float(params["learning_rate"]),
        lr_schedule="constant", warmup_steps=0, seed=seed,
    )  # fmt: skip
    sft(trainer.model, trainer.tokenizer, epoch_batches(corrupted, 32, seed), config)


def corrupt(
    faults: Sequence[InjectedFault], seed: int, step: int, task_ids: Sequence[str],
    texts: Sequence[str], verdicts: Sequence[Verdict],
) -> list[Verdict]:  # fmt: skip
    """`verdicts` (of responses `texts` to tasks `task_ids`) as step `step` records them under
    the `verdict_corruption` faults in force then (those whose step is at or before it). An
    excluded verdict (a judge error) carries no reward to corrupt."""
    active = [f for f in faults if f.kind == "verdict_corruption" and f.step <= step]
    out = list(verdicts)
    for fault in active:
        for i, (task_id, text) in enumerate(zip(task_ids, texts, strict=True)):
            if not out[i].excluded and _drawn(fault.share, seed, step, task_id, text):
                out[i] = _corrupted(out[i], fault.mode)
    return out


def _drawn(share: float, seed: int, step: int, task_id: str, text: str) -> bool:
    """Whether this rollout is among the `share` corrupted: a hash, the same on every rank and
    on a resume."""
    if share >= 1.0:
        return True
    key = f"{seed}\x00{step}\x00{task_id}\x00{text}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") < share * 2**64


def _corrupted(verdict: Verdict, mode: str) -> Verdict:
    if mode == "zero":
        return verdict.model_copy(update={"passed": False, "reward": 0.0})
    flipped = not verdict.passed
    update: dict[str, Any] = {"passed": flipped, "reward": 1.0 - float(verdict.reward)}
    if flipped:
        update["status"] = "ok"  # a passed verdict is a checked one
    return verdict.model_copy(update=update)
