"""Checkpoints in the content-addressed blob store.

A checkpoint folder holds, besides `state.json` (step, seed scheme, configs):
- LoRA: `adapters.safetensors` + `adapter_config.json` (so `mlx_lm.generate --model BASE
  --adapter-path DIR` works); full fine-tune: `model.safetensors` + `config.json` + tokenizer files
  (so `mlx_lm.load(DIR)` works).
- `optimizer.safetensors`: the AdamW state (moments and step count).
- `reference.safetensors`: the reference policy's values of the trainable parameters (the blob
  store keeps one copy however many checkpoints share it).
There is no RNG state to carry: every random draw of step s derives from (seed, s, attempt). Nor
the settings in force (learning rate, KL coefficient, ...): those are a fold of the run's log
(store/settings.py). Checkpoints of format 1 carried them (and a `meta` with the policies'
overrides); they still load, those fields unread.
The folder is written to a temp dir on the blob store's disk, then `put_tree` hashes each file and
renames it into place; restore loads the arrays straight from their (verified) blobs.
"""

from __future__ import annotations

import contextlib
import copy
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import mlx.core as mx
import mlx.optimizers as optim
from mlx.utils import tree_flatten, tree_unflatten

from stages.training.config import GRPOConfig, ModelConfig
from stages.training.errors import CheckpointWriteError, TrainingError
from stages.training.model import load_model, make_trainable, save_model_dir, save_weights
from stages.training.types import PolicyVersions, TrainerState
from store.blobs import BlobStore
from store.errors import StoreError

FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)  # 1: with the settings in force, which restore no longer reads
OPTIMIZER_FILE = "optimizer.safetensors"  # the AdamW state: retention may drop it


def save_model_to_blobs(model: Any, base_path: Path | str, blobs: BlobStore) -> str:
    """Store a full HF-layout model folder (e.g. the SFT'd embedded model); return its digest.
    `CheckpointWriteError` when it cannot be written."""
    with _writing("the model folder"), blobs.temp_dir() as folder:
        save_model_dir(model, base_path, folder)
        return blobs.put_tree(folder)


@contextlib.contextmanager
def _writing(what: str) -> Iterator[None]:
    """Any failure to write `what` as one `CheckpointWriteError`: mlx reports a full disk as a
    `RuntimeError`, the temp folder as an `OSError`, the blob store as a `BlobWriteError`."""
    try:
        yield
    except (RuntimeError, OSError, StoreError) as e:
        raise CheckpointWriteError(f"{what} could not be written: {e}") from e


def materialise(
    blobs: BlobStore, digest: str, destination: Path | str, *, link: bool = False
) -> Path:
    """Write a stored tree (model folder or checkpoint) to `destination` (`link`: hard links to
    the blobs, for read-only use)."""
    try:
        return blobs.get_tree(digest, destination, link=link)
    except (StoreError, OSError, KeyError, ValueError) as e:
        raise TrainingError(f"cannot read tree {digest} from the blob store: {e}") from e


def save_checkpoint(
    state: TrainerState,
    blobs: BlobStore,
    config: GRPOConfig,
    model_config: ModelConfig,
    base_model_path: Path | str,
    admit: Callable[[Path], None] | None = None,
) -> str:
    """Write the checkpoint of `state` into `blobs`; return its manifest digest. `config` is the
    run's (its settings' start values, not those in force). `admit` sees the written folder
    before anything reaches the blob store, and may refuse it by raising (its exception passes
    through unless it is one `_writing` translates). `CheckpointWriteError` when the checkpoint
    cannot be written."""
    trainable = dict(tree_flatten(state.model.trainable_parameters()))
    reference = dict(tree_flatten(state.reference.parameters()))
    adapter = None
    if model_config.lora_rank > 0:
        from stages.training.model import lora_settings

        adapter = lora_settings(model_config, state.model)
    record = {
        "format_version": FORMAT_VERSION,
        "step": state.step,
        "rng": {
            "seed": config.seed,
            "next_step": state.step,
            "scheme": "sha256(seed, step, attempt)",
        },
        "fine_tune": "lora" if adapter else "full",
        "adapter_config": adapter,
        "grpo_config": config.model_dump(mode="json"),
        "model_config": model_config.model_dump(mode="json"),
    }
    # Written on the blob store's disk, whose files `put_tree` then renames into place.
    with _writing(f"the checkpoint of step {state.step}"), blobs.temp_dir() as folder:
        if adapter:
            save_weights(state.model, folder, adapter)
        else:
            save_model_dir(state.model, base_model_path, folder)
        # Sorted keys: a restored optimizer lists its state in another order, and the same
        # content must give the same bytes (checkpoints are compared by digest).
        mx.save_safetensors(
            str(folder / "optimizer.safetensors"), dict(sorted(tree_flatten(state.optimizer.state)))
        )
        mx.save_safetensors(
            str(folder / "reference.safetensors"), {k: reference[k] for k in sorted(trainable)}
        )
        if state.versions is not None:
            record["policy_versions"] = _save_versions(state.versions, state.step, folder)
        (folder / "state.json").write_text(json.dumps(record, indent=2, sort_keys=True))
        if admit is not None:
            admit(folder)
        return blobs.put_tree(folder)


def read_checkpoint_state(blobs: BlobStore, digest: str) -> dict[str, Any]:
    """The `state.json` record of a checkpoint, reading that one small blob (no weights)."""
    try:
        return json.loads(blobs.get_bytes(blobs.manifest(digest)["state.json"]))
    except (StoreError, KeyError, ValueError) as e:
        raise TrainingError(f"cannot read checkpoint {digest} (its state.json): {e}") from e


def restore_checkpoint(
    blobs: BlobStore, digest: str, base_model_path: Path | str, *, optimizer: bool = True
) -> tuple[TrainerState, GRPOConfig, ModelConfig]:
    """Rebuild (state, GRPO config, model config) so that the next step equals the one an
    uninterrupted run would take. `base_model_path` is the model the run started RL from.
    The arrays load straight from their blobs (each verified first): no unpacked copy on disk.
    `optimizer=False`: the checkpoint's optimizer state is not read (retention may have deleted
    it): the trainer gets a fresh AdamW state, as a new run's."""
    record = read_checkpoint_state(blobs, digest)
    if record.get("format_version") not in READABLE_FORMATS:
        raise TrainingError(
            f"checkpoint {digest} has format_version {record.get('format_version')!r}, "
            f"expected one of {', '.join(map(str, READABLE_FORMATS))}"
        )
    weights = "adapters.safetensors" if record["fine_tune"] == "lora" else "model.safetensors"
    try:
        manifest = blobs.manifest(digest)
        arrays = {
            name: mx.load(str(blobs.path(manifest[name])), format="safetensors")
            for name in (weights, "reference.safetensors", "optimizer.safetensors")
            if optimizer or name != "optimizer.safetensors"
        }
    except (StoreError, KeyError, OSError, ValueError, RuntimeError) as e:
        raise TrainingError(f"cannot read checkpoint {digest} from the blob store: {e}") from e
    config = GRPOConfig.model_validate(_current_grpo(record["grpo_config"]))
    model_config = ModelConfig.model_validate(record["model_config"])
    model, tokenizer = load_model(base_model_path)
    make_trainable(model, model_config)
    reference = copy.deepcopy(model)
    reference.load_weights(list(arrays["reference.safetensors"].items()), strict=False)
    model.load_weights(list(arrays[weights].items()), strict=False)
    reference.freeze()
    reference.eval()
    adamw = optim.AdamW(learning_rate=config.learning_rate, weight_decay=config.weight_decay)
    if "optimizer.safetensors" in arrays:
        adamw.state = tree_unflatten(list(arrays["optimizer.safetensors"].items()))
    mx.eval(model.parameters(), reference.parameters(), adamw.state)
    state = TrainerState(
        model=model, tokenizer=tokenizer, reference=reference, optimizer=adamw,
        step=int(record["step"]), versions=_restored_versions(record, manifest, blobs),
    )  # fmt: skip
    return state, config, model_config


def _version_file(step: int) -> str:
    return f"policy_version_{step}.safetensors"


def _save_versions(versions: PolicyVersions, step: int, folder: Path) -> dict[str, Any]:
    """Asynchronous rollouts: the older weight versions the next steps still sample with (the
    current one is the checkpoint's own weights)."""
    kept = sorted(v for v in versions.files if v < step)
    for v in kept:
        shutil.copyfile(versions.files[v], folder / _version_file(v))
    return {"reset": versions.reset, "steps": kept}


def _restored_versions(
    record: dict[str, Any], manifest: dict[str, str], blobs: BlobStore
) -> PolicyVersions | None:
    """The checkpoint's weight versions, read in place from their (verified) blobs."""
    kept = record.get("policy_versions")
    if kept is None:
        return None
    try:
        files = {}
        for v in kept["steps"]:
            files[int(v)] = str(blobs.path(manifest[_version_file(v)]))
    except (StoreError, KeyError, OSError) as e:
        raise TrainingError(f"checkpoint's policy versions are unreadable: {e}") from e
    return PolicyVersions(reset=int(kept["reset"]), files=files)


# The trainer's own adaptive KL controller, gone (the KL policy owns the coefficient): older
# checkpoints still carry its settings.
_REMOVED_GRPO_KEYS = ("kl_controller", "kl_target", "kl_adapt_rate")


def _current_grpo(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in _REMOVED_GRPO_KEYS}
