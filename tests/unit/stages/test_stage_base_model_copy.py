"""The run directory's copy of the base model (`RunServices.base_model_path`) is checked against
its stored tree before a later driver (a resume, a branch sharing the run directory) trains from
it: still hard links to the blobs costs no read; anything else is re-made from the blob store,
with one warning line (red team round 22, log22-019)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from stages import services as services_module
from stages.services import RunServices
from store import materialised
from store.blobs import BlobStore

GENUINE = b"genuine weights " * 64


class Recorder:
    def __init__(self) -> None:
        self.warnings: list[tuple[str, dict]] = []

    def warning(self, event: str, **fields: object) -> None:
        self.warnings.append((event, fields))


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    src = tmp_path / "model"
    src.mkdir()
    (src / "config.json").write_text('{"model_type": "tiny"}')
    (src / "model.safetensors").write_bytes(GENUINE)
    blobs = BlobStore(tmp_path / "blobs")
    tree = blobs.put_tree(src)
    log = Recorder()
    monkeypatch.setattr(services_module, "log_", log, raising=False)

    def driver() -> Path:  # a fresh driver's services, as a resume builds them
        services = RunServices.for_run(RunConfig(log_path=str(tmp_path)), tmp_path / "run", blobs)
        return services.base_model_path(tree)

    first = driver()
    return driver, first, blobs, tree, log


def _is_the_blob(blobs: BlobStore, tree: str, path: Path) -> bool:
    blob = blobs.root / blobs.manifest(tree)["model.safetensors"][:2]
    blob = blob / blobs.manifest(tree)["model.safetensors"]
    return not path.is_symlink() and path.samefile(blob)


def test_an_untouched_hard_linked_copy_is_reused_without_reading_a_byte(run, monkeypatch):
    driver, first, blobs, tree, log = run

    def no_hashing(path: Path) -> str:
        raise AssertionError(f"hashed {path}: a hard link needs no read")

    monkeypatch.setattr(materialised, "_sha256_not_following", no_hashing)
    assert driver() == first and not log.warnings


def test_a_replaced_weights_file_is_made_again_from_the_blob_with_one_warning(run):
    driver, first, blobs, tree, log = run
    weights = first / "model.safetensors"
    weights.unlink()
    weights.write_bytes(b"FORGED weights " * 64)
    again = driver()
    assert (again / "model.safetensors").read_bytes() == GENUINE
    assert _is_the_blob(blobs, tree, again / "model.safetensors")
    assert len(log.warnings) == 1 and "model.safetensors" in log.warnings[0][1]["reason"]


def test_a_symlink_in_the_copy_is_never_followed(run, tmp_path):
    driver, first, blobs, tree, log = run
    outside = tmp_path / "outside.bin"
    outside.write_bytes(GENUINE)  # the same bytes, for now
    weights = first / "model.safetensors"
    weights.unlink()
    weights.symlink_to(outside)
    again = driver()
    outside.write_bytes(b"FORGED weights " * 64)
    assert _is_the_blob(blobs, tree, again / "model.safetensors")
    assert (again / "model.safetensors").read_bytes() == GENUINE and len(log.warnings) == 1


def test_a_copy_folder_that_is_a_symlink_is_replaced_not_written_through(run, tmp_path):
    driver, first, blobs, tree, log = run
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(first, elsewhere)
    shutil.rmtree(first)
    first.symlink_to(elsewhere)
    again = driver()
    assert not again.is_symlink() and _is_the_blob(blobs, tree, again / "model.safetensors")
    assert len(log.warnings) == 1 and (elsewhere / "model.safetensors").exists()


def test_an_extra_weights_file_in_the_copy_is_removed(run):
    driver, first, blobs, tree, log = run
    (first / "model-00002-of-00002.safetensors").write_bytes(b"FORGED shard")
    again = driver()
    assert sorted(os.listdir(again)) == ["config.json", "model.safetensors"]
    assert len(log.warnings) == 1


def test_a_copy_whose_link_was_cut_but_holds_the_same_bytes_is_kept(run):
    driver, first, blobs, tree, log = run
    weights = first / "model.safetensors"
    weights.unlink()
    weights.write_bytes(GENUINE)  # a copy (as across file systems): hashed, and it matches
    again = driver()
    assert not log.warnings and not _is_the_blob(blobs, tree, again / "model.safetensors")
    assert (again / "model.safetensors").read_bytes() == GENUINE
