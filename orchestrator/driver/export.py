"""`rlvr export-model`: a run's checkpoint as a model folder `mlx_lm.load` opens.

A checkpoint in the blob store is a folder with the trainer's own files besides the model's
(`optimizer.safetensors`, `reference.safetensors`, `state.json`): the export leaves those out and
takes every other file of the run's base model (config with its EOS id, tokenizer files with the
EOS token and chat template, generation config): without EOS, generation never stops.

- A full fine-tune: the checkpoint's `model.safetensors` with the base model's other files.
- LoRA: `model/` (the base model) and `adapters/` (`adapters.safetensors`, `adapter_config.json`),
  so `mlx_lm.load(DIR/model, adapter_path=DIR/adapters)`; `fuse`: one folder with the adapters
  fused into the weights (as `mlx_lm.fuse` does), `mlx_lm.load(DIR)`.

The folder is built beside DIR and renamed into place once it loads and generates: a failed
export leaves nothing half-written. Which checkpoint (`best`: the one stage 7 kept, which
`RunCompleted` names; `final`: the latest one, the weights after the last step; or a step's),
its digest and the layout are recorded in the run's log by the outside-write rule.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from orchestrator.errors import OrchestratorError, UsageError
from store.blobs import BlobStore
from store.errors import StoreError
from store.projections import RunState

# The trainer's files in a checkpoint folder: not part of the model.
TRAINER_FILES = ("optimizer.safetensors", "reference.safetensors", "state.json")
_WEIGHT_SUFFIXES = (".safetensors", ".safetensors.index.json", ".npz", ".gguf")
_PROMPT = "1+2="  # a probe: the export must load and generate, not answer well


@dataclass(frozen=True)
class Chosen:
    digest: str
    step: int
    which: str  # "best", "final" or "step N"


def choose(state: RunState, which: str) -> Chosen:
    """The checkpoint `which` names in the run's kept history; UsageError naming the choices."""
    steps = sorted({c.step for c in state.checkpoints})
    choices = f"checkpoints kept at steps {', '.join(map(str, steps)) or 'none'}"
    if which == "best":
        if state.state != "completed":
            raise UsageError(
                f"run {state.run_id} is {state.state}: stage 7 has not chosen its best checkpoint "
                f"yet; pass --checkpoint final or a step ({choices})"
            )
        digest = state.last_eval.get("checkpoint") or ""
        if not digest:
            raise UsageError(
                f"run {state.run_id}: stage 7 recorded no checkpoint (an older log); pass "
                f"--checkpoint final or a step ({choices})"
            )
        step = next((c.step for c in state.checkpoints if c.digest == digest), None)
        if step is None:
            step = int(state.last_eval.get("step", state.step))
        return Chosen(digest, step, "best")
    if which == "final":
        latest = state.latest_checkpoint
        if latest is None:
            raise UsageError(f"run {state.run_id} has saved no checkpoint yet")
        return Chosen(latest.digest, latest.step, "final")
    if not which.isdigit():
        raise UsageError(f"--checkpoint {which!r}: expected best, final or a step number")
    step = int(which)
    if step == 0 and state.baseline_checkpoint:
        return Chosen(state.baseline_checkpoint, 0, "step 0")  # the model RL started from
    found = [c for c in state.checkpoints if c.step == step]
    if not found:
        raise UsageError(
            f"--checkpoint {step}: run {state.run_id} has no checkpoint of that step ({choices})"
        )
    return Chosen(found[-1].digest, step, f"step {step}")


def _is_weights(name: str) -> bool:
    return name.endswith(_WEIGHT_SUFFIXES) or name.startswith("adapter")


def _copy_tree(
    blobs: BlobStore, digest: str, to: Path, keep: Callable[[str], bool] = lambda _: True
) -> None:
    """Copy the files of a stored tree that `keep` accepts to `to`, each verified while copied
    (copies, never hard links into the blob store: an export is the user's to edit). Only
    those files are read: a checkpoint whose optimizer state retention pruned exports all
    the same."""
    for rel, file_digest in blobs.manifest(digest).items():
        if rel in TRAINER_FILES or not keep(rel):
            continue
        target = to / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        blobs.copy_to(file_digest, target)


def check_out(out: Path) -> None:
    """An export goes to a new (or empty) folder: it never mixes with or replaces files."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"--out {out}: exists and is not empty; name a new folder")


def build(
    blobs: BlobStore,
    state: RunState,
    chosen: Chosen,
    out: Path,
    fuse: bool,
    on_start: Callable[[], None] = lambda: None,
) -> tuple[str, Probe]:
    """Write the export to `out` (which must not exist or be empty): its layout, and what it
    generated when loaded back. `on_start` is called once the checks have passed, before the
    copying (a progress line printed before them came with the refusal: round 23, log 029)."""
    check_out(out)
    base = state.baseline_checkpoint
    if base is None:
        raise OrchestratorError(f"run {state.run_id} recorded no base model")
    try:
        lora = "adapters.safetensors" in blobs.manifest(chosen.digest)
    except StoreError as e:
        raise OrchestratorError(f"checkpoint {chosen.digest} is unreadable: {e}") from e
    on_start()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.name}.") as work:
        staged = Path(work) / "export"
        try:
            layout = _stage(blobs, base, chosen.digest, staged, lora=lora, fuse=fuse)
        except StoreError as e:
            raise OrchestratorError(f"cannot read the checkpoint's files: {e}") from e
        probe = check_loads(staged, layout)
        if out.exists():
            out.rmdir()
        staged.rename(out)
    return layout, probe


def _stage(blobs: BlobStore, base: str, digest: str, to: Path, *, lora: bool, fuse: bool) -> str:
    if not lora:
        # The base model's files (generation config and the like), then the checkpoint's.
        _copy_tree(blobs, base, to, keep=lambda rel: not _is_weights(rel))
        _copy_tree(blobs, digest, to)
        return "full"
    adapters = lambda rel: rel.startswith("adapter")  # noqa: E731
    if not fuse:
        _copy_tree(blobs, base, to / "model")
        _copy_tree(blobs, digest, to / "adapters", keep=adapters)
        return "lora"
    from mlx.utils import tree_unflatten
    from mlx_lm.utils import load, save_config, save_model

    parts = to.parent / "parts"
    _copy_tree(blobs, base, parts / "model")
    _copy_tree(blobs, digest, parts / "adapters", keep=adapters)
    model, _, config = load(
        str(parts / "model"), adapter_path=str(parts / "adapters"), return_config=True
    )
    fused = [(name, m.fuse()) for name, m in model.named_modules() if hasattr(m, "fuse")]
    if fused:
        model.update_modules(tree_unflatten(fused))  # as `mlx_lm.fuse` does
    _copy_tree(blobs, base, to, keep=lambda rel: not _is_weights(rel) and rel != "config.json")
    save_model(to, model, donate_model=False)
    save_config(config, config_path=to / "config.json")
    return "lora-fused"


@dataclass(frozen=True)
class Probe:
    prompt: str
    text: str
    stopped_at_eos: bool


def check_loads(folder: Path, layout: str) -> Probe:
    """Load the export as a user would (`mlx_lm.load`, through its chat template when it has
    one) and generate a few tokens; an error if it cannot, or if its tokenizer names no EOS
    (generation would never stop)."""
    from mlx_lm import load, stream_generate

    model_path, adapters = (
        (folder / "model", folder / "adapters") if layout == "lora" else (folder, None)
    )
    try:
        model, tokenizer = load(str(model_path), adapter_path=str(adapters) if adapters else None)
        if not tokenizer.eos_token_ids:
            raise ValueError("its tokenizer names no EOS token: generation would never stop")
        prompt = _PROMPT
        if getattr(tokenizer, "chat_template", None):
            prompt = tokenizer.apply_chat_template(
                [{"role": "user", "content": _PROMPT}], add_generation_prompt=True
            )
        pieces, reason = [], None
        for response in stream_generate(model, tokenizer, prompt, max_tokens=16):
            pieces.append(response.text)
            reason = response.finish_reason
    except Exception as e:  # mlx_lm raises assorted errors for unloadable folders
        raise OrchestratorError(f"the exported model does not load and generate: {e}") from e
    return Probe(_PROMPT, "".join(pieces), reason == "stop")
