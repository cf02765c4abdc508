"""Checkpoint retention: the last K stay, and so do the last good, the best whose benchmarks held,
and every checkpoint a rollback may still pick; a pruned checkpoint is never a rollback target."""

from __future__ import annotations

from types import SimpleNamespace

from policies.retention import CheckpointsConfig, plan, retained, staying_after_next
from policies.signals import rollback_target
from store.events import EvalRecorded, GateEvaluated
from store.projections import RunState, project
from tests.unit.policies.conftest import STEPWISE, ckpt


def config(
    keep_last: int | None, policies=STEPWISE, keep_optimizer_last: int | None = None
) -> SimpleNamespace:
    return SimpleNamespace(
        policies=policies,
        checkpoints=CheckpointsConfig(keep_last=keep_last, keep_optimizer_last=keep_optimizer_last),
    )


# Rollback policies that act on the very step that goes bad: a rollback from a later step goes
# back at most to the newest checkpoint before the current step.
PROMPT = STEPWISE.model_copy(
    update={
        "kl": STEPWISE.kl.model_copy(update={"rollback_after_steps": 1}),
        "entropy": STEPWISE.entropy.model_copy(update={"consecutive_steps": 1}),
    }
)


def test_the_last_k_stay_and_those_a_rollback_may_still_go_back_to(run) -> None:
    for step in range(1, 7):
        run.metrics(step)
        run.checkpoint(step)
    # KL and entropy roll back after 3 bad steps (defaults), to before the first of them: from
    # step 6 on, no rollback reaches further back than the newest checkpoint before step 4.
    pruned = plan(run.state, config(2))
    assert pruned is not None and "keep_last = 2" in pruned.reason
    assert [p["step"] for p in pruned.pruned] == [1, 2]
    both = ["rollback target", "KL rollback target"]
    assert [(k["step"], k["why"]) for k in pruned.kept] == [
        (3, both), (4, both), (5, ["one of the last 2", *both]), (6, ["one of the last 2", *both]),
    ]  # fmt: skip
    # Policies that act on the first bad step: only the last 2 (the older one is also the
    # newest checkpoint before the current step).
    assert [p["step"] for p in plan(run.state, config(2, PROMPT)).pruned] == [1, 2, 3, 4]
    assert plan(run.state, config(None)) is None


def test_the_last_good_and_the_best_intact_checkpoint_stay(run) -> None:
    for step, (rate, reverse) in enumerate([(0.6, 1.0), (0.9, 1.0), (0.95, 0.5), (0.7, 1.0)], 1):
        run.metrics(step)
        run.checkpoint(step)
        run.append(
            EvalRecorded(step=step, verify_rate=rate, capability={"reverse": reverse, "copy": 1.0},
                         checkpoint=ckpt(step))
        )  # fmt: skip
        if step == 1:
            run.append(GateEvaluated(gate="kl", stage="rlvr_optimization", metric="kl", value=0.02,
                                     threshold=0.1, comparator="<=", passed=True,
                                     judges_checkpoint=True))  # fmt: skip
    for step in range(5, 8):
        run.metrics(step)
        run.checkpoint(step)
    why = retained(run.state, config(2, PROMPT), 2)
    assert "last good (rollback target)" in why[ckpt(1)]
    # Step 3 read 0.95 but lost half the reversal benchmark: step 2 is the best that kept it.
    assert "best held-out verify rate" in why[ckpt(2)]
    assert ckpt(3) not in why
    # Step 4 is the newest whose benchmarks held: where a capability rollback would go.
    assert why[ckpt(4)] == ["capability rollback target"]
    assert [p["step"] for p in plan(run.state, config(2, PROMPT)).pruned] == [3, 5]


def test_a_kl_rollback_target_older_than_the_last_k_stays(run) -> None:
    # KL runs high from step 4 on: a KL rollback after 3 high steps goes back before step 4, to
    # the newest checkpoint whose next step's KL was healthy: step 2's (step 3's led to step 4).
    for step in range(1, 7):
        run.metrics(step, kl=0.5 if step >= 4 else 0.02)
        run.checkpoint(step)
    why = retained(run.state, config(2), 2)
    assert why[ckpt(2)] == ["KL rollback target"]
    pruned = plan(run.state, config(2))
    assert [p["step"] for p in pruned.pruned] == [1]
    run.append(pruned)
    target = rollback_target(
        run.state, 4, 0.1, require_passed=False,
        healthy=lambda r: r.metrics_after.get("kl") is None or r.metrics_after["kl"] <= 0.1,
    )  # fmt: skip
    assert target.digest == ckpt(2)


def test_a_pruned_checkpoint_is_never_a_rollback_target(run) -> None:
    for step in range(1, 5):
        run.metrics(step)
        run.checkpoint(step)
    pruned = plan(run.state, config(1, PROMPT))
    run.append(pruned)
    gone = {p["checkpoint"] for p in pruned.pruned}
    assert gone and all(c.digest not in gone for c in run.state.lineage)
    assert [c.step for c in run.state.checkpoints] == [3, 4]
    # Steps 1 and 2 are gone: a rollback to before step 3 goes to the base model.
    assert rollback_target(run.state, 3, 0.1, require_passed=False).step == 0


def test_the_incoming_checkpoint_takes_one_of_the_last_k_places(run) -> None:
    for step in range(1, 4):
        run.metrics(step)
        run.checkpoint(step)
    # Step 3 keeps its last-2 place beside the incoming one; step 2 stays as a rollback target
    # for a rollback from step 3 (counted until the next pruning lets it go).
    assert [c.step for c in staying_after_next(run.state, config(2, PROMPT))] == [2, 3]
    assert [c.step for c in staying_after_next(run.state, config(1, PROMPT))] == [2, 3]
    assert [c.step for c in staying_after_next(run.state, config(None))] == [1, 2, 3]


def test_only_the_newest_checkpoints_keep_their_optimizer_state(run) -> None:
    for step in range(1, 5):
        run.metrics(step)
        run.checkpoint(step)
    pruned = plan(run.state, config(None, keep_optimizer_last=2))
    assert pruned is not None and pruned.pruned == []  # every checkpoint's weights stay
    assert [d["step"] for d in pruned.optimizer_dropped] == [1, 2]
    assert "keep_optimizer_last = 2" in pruned.optimizer_reason
    run.append(pruned)
    assert [(c.step, c.optimizer) for c in run.state.checkpoints] == [
        (1, False), (2, False), (3, True), (4, True),
    ]  # fmt: skip
    assert [c.optimizer for c in run.state.lineage] == [False, False, True, True]
    assert plan(run.state, config(None, keep_optimizer_last=2)) is None  # said once
    assert plan(run.state, config(None)) is None  # None: every one keeps it


def test_keep_last_and_keep_optimizer_last_prune_in_one_event(run) -> None:
    for step in range(1, 6):
        run.metrics(step)
        run.checkpoint(step)
    pruned = plan(run.state, config(3, PROMPT, keep_optimizer_last=1))
    assert [p["step"] for p in pruned.pruned] == [1, 2]
    assert [d["step"] for d in pruned.optimizer_dropped] == [3, 4]  # of those that stay


def test_a_rollback_to_a_checkpoint_without_optimizer_state_says_fresh_adamw(run) -> None:
    from policies.consequences import consequences
    from policies.types import Decision

    for step in range(1, 5):
        run.metrics(step)
        run.checkpoint(step)
    run.append(plan(run.state, config(None, keep_optimizer_last=2)))

    def rollback_to(step: int):
        decision = Decision(
            policy="kl", action="rollback", reason="KL over its limit", trigger_metric="kl",
            value=0.5, threshold=0.1,
            parameters={"to_step": step, "checkpoint": ckpt(step), "from_step": 4},
        )  # fmt: skip
        return consequences(run.state, decision)[0]

    old, recent = rollback_to(1), rollback_to(3)
    assert old.fresh_optimizer and "fresh AdamW state" in old.reason
    assert not recent.fresh_optimizer and recent.reason == "KL over its limit"


def test_a_checkpoint_a_logged_rollback_restored_keeps_its_weights_and_optimizer_state(
    run,
) -> None:
    from store.events import RolledBack

    for step in range(1, 5):
        run.metrics(step)
        run.checkpoint(step)
    # A resume or branch cut after this rollback replays it: it needs step 1's state as it was.
    run.append(RolledBack(from_step=4, to_step=1, checkpoint=ckpt(1), reason="test"))
    for step in range(5, 8):
        run.metrics(step)
        run.checkpoint(step)
    pruned = plan(run.state, config(1, PROMPT, keep_optimizer_last=1))
    assert ckpt(1) not in {p["checkpoint"] for p in pruned.pruned}
    assert ckpt(1) not in {d["checkpoint"] for d in pruned.optimizer_dropped}
    assert (
        "restored by a logged rollback"
        in next(k for k in pruned.kept if k["checkpoint"] == ckpt(1))["why"][0]
    )


def test_checkpoints_a_rewind_abandoned_are_pruned_with_why(run) -> None:
    from store.events import RunRewound

    for step in range(1, 3):
        run.metrics(step)
        run.checkpoint(step)
    cut = run.state.last_seq
    for step in range(3, 5):
        run.metrics(step)
        run.checkpoint(step)
    run.append(RunRewound(to_seq=cut, reason="resume --from"))
    run.state = project(run.stored)  # the fold of a rewind re-folds the prefix
    assert [c.step for c in run.state.checkpoints] == [1, 2]
    assert [c.step for c in run.state.abandoned_checkpoints] == [3, 4]
    replayed = RunState(**{f: getattr(run.state, f) for f in RunState.__slots__})
    # A resume that replays step 3 as it was saves the same checkpoint again: it is live again.
    run.metrics(3)
    run.checkpoint(3)
    assert [c.step for c in run.state.abandoned_checkpoints] == [4]
    assert [p["step"] for p in plan(run.state, config(5, PROMPT)).pruned] == [4]
    run.state = replayed  # the resume trained other weights instead
    pruned = plan(run.state, config(5, PROMPT))
    assert [(p["step"], "abandoned" in p.get("why", "")) for p in pruned.pruned] == [
        (3, True), (4, True),
    ]  # fmt: skip
    assert plan(run.state, config(None)) is None  # keep_last unset: every checkpoint stays
    run.append(pruned)
    assert run.state.abandoned_checkpoints == ()
    # The replay saves step 3's checkpoint again (same bytes, same digest): it is live again.
    run.metrics(3)
    run.checkpoint(3)
    assert ckpt(3) in {c.digest for c in run.state.checkpoints}
