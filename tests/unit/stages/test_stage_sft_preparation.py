"""Stage 1 hands RL the SFT'd model, not the freshly built one it started from."""

from __future__ import annotations

from pathlib import Path

import mlx.core as mx
from mlx.utils import tree_flatten

from orchestrator.config import load_config
from orchestrator.driver.commands import start_run, transition
from orchestrator.driver.runner import Driver
from stages.sft_preparation import SFTPreparation
from stages.training.model import load_model
from store.blobs import BlobStore
from store.log import EventLog

ROOT = Path(__file__).resolve().parents[3]


def _weights(path: Path) -> dict[str, mx.array]:
    model, _ = load_model(path)
    return dict(tree_flatten(model.parameters()))


def test_the_base_model_rl_starts_from_is_the_sft_model(tmp_path: Path) -> None:
    config = load_config(
        ROOT / "configs" / "quickstart.toml",
        [
            f"log_path={tmp_path}",
            "sft.steps=20",
            "data.max_heldout=20",
            "data.capability_heldout=10",
        ],
    )
    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, config)
    transition(log, run_id, "start")
    driver = Driver(
        log, run_id, config, {}, run_dir=tmp_path / run_id, blobs=BlobStore(tmp_path / "blobs")
    )
    ctx = driver.context()
    SFTPreparation().run(ctx)

    sft_weights = _weights(ctx.services.base_model_path(ctx.state().baseline_checkpoint))
    initial = _weights(tmp_path / run_id / "base")
    assert any(not mx.array_equal(sft_weights[k], initial[k]) for k in initial)
    # A fresh driver (a resume) resolves the same model from the log and the blob store.
    fresh = Driver(
        log, run_id, config, {}, run_dir=tmp_path / run_id, blobs=BlobStore(tmp_path / "blobs")
    )
    again = _weights(fresh.services.base_model_path(fresh.state.baseline_checkpoint))
    assert all(mx.array_equal(again[k], sft_weights[k]) for k in sft_weights)
    assert driver.state.stage_results["SFTCompleted"]["steps"] == 20
