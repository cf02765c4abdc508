"""Whether a folder still holds a stored tree as `BlobStore.get_tree` wrote it: the check a run
makes before it reuses its copy of the base model (a resume, a branch sharing the run directory).

Cheap where the copy is hard links (each file the same inode as its blob: nothing read, however
many GB); only a file whose link was cut (replaced, or copied across file systems) and whose size
matches is hashed. Nothing in the folder is followed: a symbolic link anywhere is a difference."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path

from store.blobs import BlobStore

_CHUNK = 1 << 20


def tree_difference(blobs: BlobStore, digest: str, folder: Path) -> str | None:
    """None when `folder` holds exactly the files of tree `digest`, each with its blob's bytes;
    else what differs, as a phrase for a log line."""
    if folder.is_symlink():
        return f"{folder} is a symbolic link"
    if not folder.is_dir():
        return f"{folder} is missing"
    manifest = blobs.manifest(digest)
    found = _entries(folder)
    if found != set(manifest):
        unexpected, missing = sorted(found - set(manifest)), sorted(set(manifest) - found)
        return f"its files are not the tree's (unexpected {unexpected[:3]}, missing {missing[:3]})"
    for rel, blob in sorted(manifest.items()):
        if not _is_blob(blobs, blob, folder / rel):
            return f"{rel} is not the tree's file (blob {blob})"
    return None


def _entries(folder: Path) -> set[str]:
    """Every file and link under `folder` (relative paths); links to folders are not entered."""
    found = set()
    for parent, folders, files in os.walk(folder):  # followlinks=False
        links = [name for name in folders if os.path.islink(os.path.join(parent, name))]
        found.update(str(Path(parent, name).relative_to(folder)) for name in files + links)
    return found


def _is_blob(blobs: BlobStore, blob: str, path: Path) -> bool:
    """`path` is a regular file that is the blob itself (a hard link) or has its bytes."""
    mine, theirs = os.lstat(path), blobs.file_stat(blob)
    if not stat.S_ISREG(mine.st_mode) or theirs is None:
        return False
    if (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino):
        return True
    return mine.st_size == theirs.st_size and _sha256_not_following(path) == blob


def _sha256_not_following(path: Path) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOENT, errno.ENXIO):
            return None
        raise
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        os.set_blocking(fd, True)
        digest = hashlib.sha256()
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
