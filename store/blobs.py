"""Content-addressed blob store: files named by their sha256, written to a temp name then renamed.

Checkpoints are directories (weights, optimizer state, metadata); `put_tree` stores each file as a
blob plus a JSON manifest blob, and the manifest's hash is the checkpoint's address.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from store.crashpoints import crashpoint
from store.errors import IntegrityError, StoreError

_CHUNK = 1 << 20


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class BlobStore:
    """Blobs under `root/ab/abcdef...`; a blob is never rewritten once present."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, digest: str) -> Path:
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise StoreError(f"not a sha256 hex digest: {digest!r}")
        return self.root / digest[:2] / digest

    def exists(self, digest: str) -> bool:
        return self._path(digest).exists()

    def _commit(self, tmp: Path, digest: str) -> str:
        final = self._path(digest)
        final.parent.mkdir(parents=True, exist_ok=True)
        if final.exists():
            tmp.unlink()
        else:
            # rename is atomic on POSIX: readers see the whole blob or none of it.
            os.replace(tmp, final)
        return digest

    def _tempfile(self) -> tuple[int, Path]:
        fd, name = tempfile.mkstemp(dir=self.root, prefix=".tmp-")
        return fd, Path(name)

    def put_bytes(self, data: bytes) -> str:
        digest = sha256_bytes(data)
        if self.exists(digest):
            return digest
        fd, tmp = self._tempfile()
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        return self._commit(tmp, digest)

    def put_file(self, path: Path | str) -> str:
        fd, tmp = self._tempfile()
        digest = hashlib.sha256()
        with open(path, "rb") as src, os.fdopen(fd, "wb") as dst:
            while chunk := src.read(_CHUNK):
                digest.update(chunk)
                dst.write(chunk)
            dst.flush()
            os.fsync(dst.fileno())
        return self._commit(tmp, digest.hexdigest())

    def path(self, digest: str) -> Path:
        """The blob's file, after checking its content still hashes to its name."""
        path = self._path(digest)
        if not path.exists():
            raise StoreError(f"blob {digest} is missing from {self.root}")
        if sha256_file(path) != digest:
            raise IntegrityError(
                f"blob {digest} is corrupt: its content no longer matches its hash"
            )
        return path

    def get_bytes(self, digest: str) -> bytes:
        data = self._path(digest).read_bytes() if self._path(digest).exists() else None
        if data is None:
            raise StoreError(f"blob {digest} is missing from {self.root}")
        if sha256_bytes(data) != digest:
            raise IntegrityError(
                f"blob {digest} is corrupt: its content no longer matches its hash"
            )
        return data

    def put_tree(self, directory: Path | str) -> str:
        """Store every file under `directory`; return the hash of the manifest {relpath: sha256}."""
        directory = Path(directory)
        manifest = {}
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                manifest[str(path.relative_to(directory))] = self.put_file(path)
                crashpoint("checkpoint")  # some files stored, the manifest not yet
        return self.put_bytes(json.dumps({"files": manifest}, sort_keys=True).encode())

    def get_tree(self, digest: str, destination: Path | str) -> Path:
        """Materialise a stored tree into `destination` (verified file by file)."""
        destination = Path(destination)
        manifest = json.loads(self.get_bytes(digest))["files"]
        for rel, file_digest in manifest.items():
            target = destination / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self.get_bytes(file_digest))
        return destination
