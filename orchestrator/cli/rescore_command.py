"""`rlvr rescore RUN [key=value ...] [--from SEQ] [--max-judge-calls N]`: re-verify a run's logged
rollouts with today's verifier (or the given settings), print per step the verdicts that flip
each way and the rewards that change, the first step whose rewards differ, the last retained
checkpoint before it and the `rlvr branch` command that retrains from there. Recorded in the
run's log as an audit record (`RunRescored`) by the rule for runs another process may drive."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from orchestrator.cli.options import RunArgument, StoreOption, err, open_run, out, readable_state
from orchestrator.errors import UsageError
from orchestrator.terminal import plain


def rescore(
    run_id: RunArgument,
    overrides: Annotated[
        list[str] | None,
        typer.Argument(help="key=value verifier settings to rescore with (default: the run's)."),
    ] = None,
    from_seq: Annotated[
        int | None, typer.Option("--from", help="Only the steps logged at or after this seq.")
    ] = None,
    max_judge_calls: Annotated[
        int | None,
        typer.Option("--max-judge-calls", help="A judge verifier: the most calls it may make."),
    ] = None,
    store: StoreOption = None,
) -> None:
    """Re-verify a run's logged rollouts and say where its rewards first differ."""
    from orchestrator.driver.outside_writes import append_or_queue
    from orchestrator.rescore.rescore import judge_calls, judged, rescore_config, rescore_run
    from store.blobs import BlobStore

    overrides = overrides or []
    log, run_id = open_run(store, run_id)
    last = log.require(run_id)
    if from_seq is not None and not 1 <= from_seq <= last:  # checked before any event model sees it
        raise UsageError(f"--from {from_seq}: run {run_id} has seqs 1..{last}")
    state = readable_state(log, run_id)
    config = rescore_config(state, overrides)
    blobs = BlobStore(Path(config.log_path) / "blobs")
    if judged(config):
        calls = judge_calls(log, state, config, blobs, from_seq)
        err.print(f"rescoring with the judge makes {calls:,} judge calls")
        if max_judge_calls is None or calls > max_judge_calls:
            raise UsageError(
                f"{calls:,} judge calls: pass --max-judge-calls N (N >= {calls}) to make them"
            )
    result = rescore_run(log, state, config, blobs, from_seq, on_step=_print_step)
    record = _record(result, log, state, overrides, from_seq, store)
    _print_summary(result, record, run_id)
    written = append_or_queue(log, run_id, [record], by="rescore")
    err.print(plain(written.said(run_id)))


def _print_step(step) -> None:
    if step.note:
        out.print(plain(f"step {step.step} (seq {step.seq}): not rescored: {step.note}"))
    elif step.changed or step.to_pass or step.to_fail:
        share = step.changed / max(step.rollouts, 1)
        out.print(
            f"step {step.step} (seq {step.seq}): {step.rollouts} rollouts, "
            f"{step.to_pass} fail->pass, {step.to_fail} pass->fail, "
            f"{step.changed} rewards changed ({share:.1%})"
        )


def _record(result, log, state, overrides, from_seq, store):
    from orchestrator.rescore.rescore import branch_command, checkpoint_before
    from store.events import RunRescored

    first = result.first
    checkpoint = checkpoint_before(log, state, first.seq) if first is not None else None
    command = (
        branch_command(state.run_id, checkpoint["cut"], overrides, store)
        if checkpoint is not None
        else None
    )
    changed = [s.to_json() for s in result.steps if s.changed or s.to_pass or s.to_fail]
    return RunRescored(
        verifier=result.verifier, overrides=list(overrides), from_seq=from_seq,
        steps=len(result.steps), rollouts=result.total("rollouts"),
        to_pass=result.total("to_pass"), to_fail=result.total("to_fail"),
        changed=result.total("changed"),
        changed_since_first=result.total("changed", first) if first else 0,
        rollouts_since_first=result.total("rollouts", first) if first else 0,
        first_step=first.step if first else None, first_seq=first.seq if first else None,
        checkpoint=checkpoint, branch_command=command, changed_steps=changed[:1000],
    )  # fmt: skip


def _print_summary(result, record, run_id: str) -> None:
    from orchestrator.rescore.words import summary_lines

    unchanged = sum(1 for s in result.steps if not (s.changed or s.to_pass or s.to_fail))
    out.print(f"{unchanged} of {len(result.steps)} steps unchanged")
    for line in summary_lines(record.model_dump(), run_id):
        out.print(plain(line), soft_wrap=True)
