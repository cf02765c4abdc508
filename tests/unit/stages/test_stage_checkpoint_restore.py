"""A checkpoint that cannot be read is a runtime condition: a rollback to it pauses the run with
the reason instead of escaping as a traceback."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from stages.rl.checkpoints import restore
from stages.types import StageInterrupted
from store.blobs import BlobStore
from store.projections import RunState


def test_a_rollback_to_an_unreadable_checkpoint_pauses_with_the_reason(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "state.json").write_text('{"format_version": 1, "fine_tune": "full", "step": 3}')
    digest = blobs.put_tree(folder)
    state_blob = blobs._path(blobs.manifest(digest)["state.json"])
    state_blob.write_text("rotten")
    ctx = SimpleNamespace(blobs=blobs, state=lambda: RunState(baseline_checkpoint="b" * 64))
    session = SimpleNamespace(ctx=ctx, base_model_path=lambda: tmp_path / "base")
    with pytest.raises(StageInterrupted, match=f"rollback target {digest} is unreadable.*corrupt"):
        restore(session, digest, keep=SimpleNamespace())
