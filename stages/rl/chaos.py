"""Faults injected on purpose (`[[chaos.faults]]`), each once: the log remembers what was done."""

from __future__ import annotations

from typing import Any

import structlog

from stages.rl.session import RLSession
from store.events import Event, FaultInjected, HyperparametersChanged

log_ = structlog.get_logger("rlvr.rl")


def inject(session: RLSession) -> None:
    """Inject the faults configured for the coming step that the log does not hold yet."""
    trainer, ctx = session.trainer, session.ctx
    assert trainer is not None
    due = [f for f in session.config.chaos.faults if f.step == trainer.step]
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
        else:
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
