"""`rlvr export-model RUN --out DIR [--checkpoint best|final|STEP] [--fuse]`: the trained model as
a folder `mlx_lm.load` opens (orchestrator/driver/export.py), recorded in the run's log."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from orchestrator.cli.options import RunArgument, StoreOption, err, open_run, out, readable_state
from orchestrator.terminal import plain, visible


def export_model(
    run_id: RunArgument,
    to: Annotated[Path, typer.Option("--out", help="The folder to write (new or empty).")],
    checkpoint: Annotated[
        str,
        typer.Option(
            "--checkpoint",
            help="best: the checkpoint stage 7 kept (the run's result); final: the latest one "
            "(the weights after the last step); or a step number (0: the model RL started from).",
        ),
    ] = "best",
    fuse: Annotated[
        bool, typer.Option("--fuse", help="LoRA: fuse the adapters into the weights.")
    ] = False,
    store: StoreOption = None,
) -> None:
    """Write a run's trained model as a folder `mlx_lm.load` opens, checked by loading it back.

    \f
    No optimizer or trainer state; the tokenizer with its EOS token and chat template; recorded
    in the run's log (orchestrator/driver/outside_writes.py)."""
    from orchestrator.driver.export import build, check_out, choose
    from orchestrator.driver.outside_writes import append_or_queue
    from store.blobs import BlobStore
    from store.events import ModelExported

    check_out(to)
    log, run_id = open_run(store, run_id)
    state = readable_state(log, run_id)
    chosen = choose(state, checkpoint)
    blobs = BlobStore(Path(state.config.get("log_path", "runs")) / "blobs")
    starting = plain(
        f"exporting run {run_id}'s {chosen.which} checkpoint (step {chosen.step}, "
        f"{chosen.digest[:12]}) to {to}"
    )
    layout, probe = build(blobs, state, chosen, to, fuse, on_start=lambda: err.print(starting))
    written = append_or_queue(
        log, run_id,
        [ModelExported(checkpoint=chosen.digest, step=chosen.step, which=chosen.which,
                       out=str(to), layout=layout)],  # fmt: skip
        by="export-model",
    )  # fmt: skip
    stop = "stopped at EOS" if probe.stopped_at_eos else "hit the 16-token limit"
    err.print(
        plain(
            f"loaded it back and generated from {probe.prompt!r}: {visible(probe.text)!r} ({stop})"
        )
    )
    err.print(plain(written.said(run_id)))
    if layout == "lora":
        out.print(
            plain(f"mlx_lm.load({str(to / 'model')!r}, adapter_path={str(to / 'adapters')!r})")
        )
    else:
        out.print(plain(f"mlx_lm.load({str(to)!r})"))
