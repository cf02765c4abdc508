"""The blob store as a disk sees it: temp files never outlive their writer, a full disk is an error
with a reason (not a traceback), blobs are streamed and verified, trees are path-checked."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from store.blobs import BlobStore, BlobWriteError
from store.errors import IntegrityError


def _temp_files(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob(".tmp-*"))


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 1 MiB tmpfs (root only): a disk that really fills."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root; the disk-full path is not exercised")
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def fill_up(disk: Path, leave: int = 0) -> None:
    """Fill `disk` until a write fails, then free `leave` bytes."""
    with open(disk / "filler", "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass
    if leave:
        with open(disk / "filler", "r+b") as f:
            f.truncate(max(os.path.getsize(disk / "filler") - leave, 0))


def test_a_full_disk_raises_a_blob_write_error_and_leaves_no_temp_file(
    small_disk: Path, tmp_path: Path
) -> None:
    blobs = BlobStore(small_disk / "blobs")
    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(2 << 20))
    with pytest.raises(BlobWriteError) as caught:
        blobs.put_file(big)
    assert caught.value.disk_full and "the disk is full" in str(caught.value)
    with pytest.raises(BlobWriteError):
        blobs.put_bytes(os.urandom(2 << 20))
    assert _temp_files(blobs.root) == []
    assert blobs.all_blobs() == []


def test_a_crashed_writers_temp_file_is_removed_when_a_store_opens(tmp_path: Path) -> None:
    root = tmp_path / "blobs"
    root.mkdir()
    # A writer that died mid-blob: a finished child process's pid, on this host.
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    host = socket.gethostname()
    dead = root / f".tmp-{host}-{child.stdout.strip()}-1"
    live = root / f".tmp-{host}-{os.getpid()}-2"  # a writer still at work: left alone
    dead.write_bytes(b"half a blob")
    live.write_bytes(b"being written")
    store = BlobStore(root)
    assert store.removed_temp_files == [dead.name]
    assert _temp_files(root) == [live.name]


def test_a_failed_write_removes_its_temp_file(tmp_path: Path, monkeypatch) -> None:
    blobs = BlobStore(tmp_path / "blobs")

    def chunks():
        yield b"first"
        raise OSError(28, "No space left on device")

    with pytest.raises(BlobWriteError, match="the disk is full"):
        blobs._write(chunks())
    assert _temp_files(blobs.root) == []


def test_get_tree_streams_verifies_and_removes_a_corrupt_file(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.bin").write_bytes(os.urandom(3 << 20))  # several chunks
    (src / "sub" / "b.txt").write_text("b")
    digest = blobs.put_tree(src)
    out = blobs.get_tree(digest, tmp_path / "out")
    assert (out / "a.bin").read_bytes() == (src / "a.bin").read_bytes()
    blobs.check_tree(digest)
    bad = blobs.manifest(digest)["a.bin"]
    path = blobs._path(bad)
    path.chmod(0o644)
    path.write_bytes(b"rotten")
    with pytest.raises(IntegrityError, match="corrupt"):
        blobs.get_tree(digest, tmp_path / "again")
    assert not (tmp_path / "again" / "a.bin").exists()
    with pytest.raises(IntegrityError):
        blobs.check_tree(digest)


def test_a_linked_tree_shares_the_blobs_bytes(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    src = tmp_path / "model"
    src.mkdir()
    (src / "model.safetensors").write_bytes(os.urandom(4096))
    digest = blobs.put_tree(src)
    out = blobs.get_tree(digest, tmp_path / "linked", link=True)
    blob = blobs._path(blobs.manifest(digest)["model.safetensors"])
    assert os.path.samefile(out / "model.safetensors", blob)


def test_a_manifest_naming_a_path_outside_its_tree_is_refused(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    inner = blobs.put_bytes(b"x")
    evil = blobs.put_bytes(json.dumps({"files": {"../escape": inner}}).encode())
    with pytest.raises(IntegrityError, match="outside"):
        blobs.get_tree(evil, tmp_path / "dest")
    assert not (tmp_path / "escape").exists()


def test_a_tree_written_in_a_temp_dir_is_moved_into_the_store_not_copied(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    with blobs.temp_dir() as folder:
        assert folder.parent == blobs.root and folder.name.startswith(".tmp-")
        (folder / "model.safetensors").write_bytes(os.urandom(4096))
        inode = (folder / "model.safetensors").stat().st_ino
        digest = blobs.put_tree(folder)
        assert not (folder / "model.safetensors").exists()  # renamed, not copied
    assert blobs._path(blobs.manifest(digest)["model.safetensors"]).stat().st_ino == inode
    blobs.check_tree(digest)
    assert _temp_files(blobs.root) == []


def test_a_crashed_writers_temp_dir_is_removed_when_a_store_opens(tmp_path: Path) -> None:
    root = tmp_path / "blobs"
    left = root / f".tmp-{socket.gethostname()}-{_dead_pid()}-3" / "sub"
    left.mkdir(parents=True)
    (left / "x").write_bytes(b"half a checkpoint")
    BlobStore(root)
    assert _temp_files(root) == []


def _dead_pid() -> str:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    return child.stdout.strip()


def test_blobs_are_streamed_never_held_whole_in_memory(tmp_path: Path) -> None:
    import tracemalloc

    blobs = BlobStore(tmp_path / "blobs")
    src = tmp_path / "src"
    src.mkdir()
    with open(src / "optimizer.safetensors", "wb") as f:
        for _ in range(32):
            f.write(os.urandom(1 << 20))
    tracemalloc.start()
    try:
        digest = blobs.put_tree(src)
        blobs.get_tree(digest, tmp_path / "out")
        blobs.check_tree(digest)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"peak {peak / 2**20:.1f} MiB for a 32 MiB blob"


@pytest.mark.parametrize(
    "files",
    [["model.safetensors"], {"model.safetensors": 5}, {"a": "not-a-digest"}, "x", {"a": None}],
)
def test_a_crafted_manifest_of_the_wrong_shape_is_refused_naming_the_blob(
    tmp_path: Path, files: object
) -> None:
    """Red team round 10 (s29): a real, content-addressed blob `{"files": [...]}` named by a
    checkpoint gave the CLI's catch-all (AttributeError: 'list' object has no attribute 'items')."""
    store = BlobStore(tmp_path / "blobs")
    digest = store.put_bytes(json.dumps({"files": files}).encode())
    with pytest.raises(IntegrityError, match=f"blob {digest} is not a tree manifest"):
        store.manifest(digest)


def _tree_with_symlinked_weights(tmp_path: Path) -> tuple[BlobStore, str, str, Path]:
    """A stored tree whose weights blob is replaced by a symlink to a same-content file outside
    the store (red team round 22, log22-017): the hash check through the link passes."""
    blobs = BlobStore(tmp_path / "blobs")
    src = tmp_path / "model"
    src.mkdir()
    (src / "config.json").write_text("{}")
    (src / "model.safetensors").write_bytes(b"genuine weights " * 64)
    tree = blobs.put_tree(src)
    weights = blobs.manifest(tree)["model.safetensors"]
    outside = tmp_path / "outside.bin"
    blob = blobs.root / weights[:2] / weights
    outside.write_bytes(blob.read_bytes())
    blob.unlink()
    blob.symlink_to(outside)
    return blobs, tree, weights, outside


@pytest.mark.parametrize("link", [True, False])
def test_a_blob_replaced_by_a_symlink_is_refused_naming_it_and_never_linked(
    tmp_path: Path, link: bool
) -> None:
    blobs, tree, weights, outside = _tree_with_symlinked_weights(tmp_path)
    base = tmp_path / "run" / "base"
    with pytest.raises(IntegrityError, match=f"blob {weights} .*symbolic link"):
        blobs.get_tree(tree, base, link=link)
    for read in (blobs.path, blobs.get_bytes, blobs.check_tree):
        with pytest.raises(IntegrityError, match="symbolic link"):
            read(tree if read == blobs.check_tree else weights)
    outside.write_bytes(b"FORGED weights " * 64)  # nothing handed out follows it
    weights_file = base / "model.safetensors"
    assert not weights_file.is_symlink() and not weights_file.exists()


def test_a_hard_linked_tree_is_the_blobs_themselves_and_a_link_at_the_target_is_replaced(
    tmp_path: Path,
) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    src = tmp_path / "model"
    src.mkdir()
    (src / "model.safetensors").write_bytes(b"genuine weights " * 64)
    tree = blobs.put_tree(src)
    weights = blobs.manifest(tree)["model.safetensors"]
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"someone else's file")
    for link in (True, False):
        base = tmp_path / f"base-{link}"
        base.mkdir()
        (base / "model.safetensors").symlink_to(outside)
        blobs.get_tree(tree, base, link=link)
        got = base / "model.safetensors"
        assert not got.is_symlink() and got.read_bytes() == b"genuine weights " * 64
        assert got.samefile(blobs.path(weights)) == link
    assert outside.read_bytes() == b"someone else's file"
