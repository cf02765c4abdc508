"""Content-addressed blob store: files named by their sha256, written to a temp name then renamed.

Checkpoints are directories (weights, optimizer state, metadata); `put_tree` stores each file as a
blob plus a JSON manifest blob, and the manifest's hash is the checkpoint's address.

Blobs are streamed both ways in 1 MiB chunks (hashed while written, verified while read): a
multi-GB optimizer state is never held in memory. A write that fails (a full disk) removes its temp
file and raises `BlobWriteError`; temp files left by a crashed process are removed when a store is
opened (those of a live process on this host, and recent ones from other hosts, are left alone).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import socket
import stat
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from store.blob_cleaning import TMP_PREFIX, BlobCleaning
from store.crashpoints import crashpoint
from store.errors import IntegrityError, StoreError
from store.text_files import MAX_FILE_BYTES, open_regular, read_regular_bytes

_DIGEST = re.compile(r"[0-9a-f]{64}")  # a blob's name: its sha256, hex

_CHUNK = 1 << 20
# The blob store's name (a random id, made when first asked for): what the event store records
# for each run that writes here (store/blob_users.py). Never delete it: the runs recorded under
# the old name would no longer be read by this store's GC.
_ID_FILE = "blob-store-id"
_MAX_ID_BYTES = 4096  # a uuid and a newline; a larger file is not an id


class BlobWriteError(StoreError):
    """A blob could not be written (disk full, quota, permissions): a runtime condition."""

    def __init__(self, message: str, errno_: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno_

    @property
    def disk_full(self) -> bool:
        return self.errno in (errno.ENOSPC, errno.EDQUOT)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open_regular(path) as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class BlobStore(BlobCleaning):
    """Blobs under `root/ab/abcdef...`; a blob is never rewritten once present."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.removed_temp_files = self.remove_stale_temp_files()

    @property
    def identity(self) -> str:
        """This store's id (`_ID_FILE`), made on first ask. Written aside and hard-linked into
        place, so that of two processes making it at once, both read the one that won."""
        path = self.root / _ID_FILE
        try:
            if not path.exists():
                aside = self.root / self._temp_name()
                try:
                    aside.write_text(uuid.uuid4().hex + "\n")
                    with contextlib.suppress(FileExistsError):
                        os.link(aside, path)
                finally:
                    aside.unlink(missing_ok=True)
        except OSError as e:
            raise self._write_error(e) from e
        try:
            return read_regular_bytes(path, _MAX_ID_BYTES).decode("ascii", "replace").strip()
        except OSError as e:  # a FIFO or a device put there: refused, never a read that blocks
            raise StoreError(f"{path}: cannot read: {e.strerror or e}") from e

    def _path(self, digest: str) -> Path:
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise StoreError(f"not a sha256 hex digest: {digest!r}")
        return self.root / digest[:2] / digest

    def exists(self, digest: str) -> bool:
        return self._path(digest).exists()

    def file_stat(self, digest: str) -> os.stat_result | None:
        """The blob file's own status (a link is not followed); None when absent."""
        try:
            return os.lstat(self._path(digest))
        except FileNotFoundError:
            return None

    def size(self, digest: str) -> int:
        """Bytes on disk of one blob (0 when absent)."""
        try:
            return self._path(digest).stat().st_size
        except FileNotFoundError:
            return 0

    # --- writing -------------------------------------------------------------------------------

    @staticmethod
    def _temp_name() -> str:
        # The writer's host and pid are in the name, so a later store can tell a crashed
        # writer's leftovers from a live writer's file.
        return f"{TMP_PREFIX}{socket.gethostname()}-{os.getpid()}-{time.time_ns()}"

    def _tempfile(self) -> tuple[int, Path]:
        path = self.root / self._temp_name()
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), path
        except OSError as e:
            raise self._write_error(e) from e

    def _write_error(self, e: OSError) -> BlobWriteError:
        what = "the disk is full" if e.errno in (errno.ENOSPC, errno.EDQUOT) else e.strerror
        return BlobWriteError(f"cannot write a blob under {self.root}: {what}", e.errno)

    def _write(self, chunks: Iterable[bytes]) -> str:
        """Stream `chunks` to a temp file, hashing as they go; then rename it to its digest. On
        any failure the temp file is removed."""
        fd, tmp = self._tempfile()
        digest = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as f:
                for chunk in chunks:
                    digest.update(chunk)
                    f.write(chunk)
                f.flush()
                os.fsync(f.fileno())
            return self._commit(tmp, digest.hexdigest())
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise self._write_error(e) from e
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def _commit(self, tmp: Path, digest: str) -> str:
        final = self._path(digest)
        final.parent.mkdir(parents=True, exist_ok=True)
        if self._touch(final):
            tmp.unlink()
        else:
            # rename is atomic on POSIX: readers see the whole blob or none of it.
            os.replace(tmp, final)
            self._touch(final)
        return digest

    @staticmethod
    def _touch(path: Path) -> bool:
        """Mark a blob (re)written now; False when it is absent. The orphan sweep spares blobs
        younger than its grace period, so one a step wrote but has not yet named in the log is
        never deleted, even when the same bytes lay there unreferenced before."""
        try:
            os.utime(path)
        except FileNotFoundError:
            return False
        except OSError:
            pass  # a blob we may not touch: it exists, its age counts from its first write
        return True

    def put_bytes(self, data: bytes) -> str:
        digest = sha256_bytes(data)
        if self._touch(self._path(digest)):
            return digest
        return self._write([data])

    def put_file(self, path: Path | str) -> str:
        def chunks() -> Iterable[bytes]:
            with open_regular(path) as src:
                while chunk := src.read(_CHUNK):
                    yield chunk

        return self._write(chunks())

    def put_tree(self, directory: Path | str) -> str:
        """Store every file under `directory`; return the hash of the manifest {relpath: sha256}.
        A directory from `temp_dir` gives its files up: each is hashed and renamed into place
        (no second copy written); any other directory is copied."""
        directory = Path(directory)
        move = directory.parent == self.root and directory.name.startswith(TMP_PREFIX)
        manifest = {}
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                if move:
                    digest = sha256_file(path)
                    manifest[str(path.relative_to(directory))] = self._commit(path, digest)
                else:
                    manifest[str(path.relative_to(directory))] = self.put_file(path)
                crashpoint("checkpoint")  # some files stored, the manifest not yet
        return self.put_bytes(json.dumps({"files": manifest}, sort_keys=True).encode())

    @contextmanager
    def temp_dir(self) -> Iterator[Path]:
        """A scratch directory on the blob store's own disk (a checkpoint being written): removed
        afterwards, or by the next store opened after a crash; `put_tree` moves its files."""
        path = self.root / self._temp_name()
        try:
            path.mkdir()
        except OSError as e:
            raise self._write_error(e) from e
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)

    # --- reading -------------------------------------------------------------------------------

    def path(self, digest: str) -> Path:
        """The blob's file, after checking its content still hashes to its name."""
        with self._open_blob(digest) as f:
            self._check_hash(digest, f)
        return self._path(digest)

    @contextmanager
    def _open_blob(self, digest: str) -> Iterator[BinaryIO]:
        """The blob open for reading: a regular file, opened without following a link (a blob
        replaced by a symlink to a same-content file outside the store would pass the hash
        check, then hand out that outside file): a link is refused as a corrupt blob is."""
        path = self._path(digest)
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            raise StoreError(f"blob {digest} is missing from {self.root}") from None
        except OSError as e:
            if e.errno != errno.ELOOP:
                raise
            raise IntegrityError(
                f"blob {digest} is corrupt: {path} is a symbolic link, not a regular file"
            ) from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise IntegrityError(f"blob {digest} is corrupt: {path} is not a regular file")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as f:
            yield f

    @staticmethod
    def _check_hash(digest: str, f: BinaryIO) -> None:
        digest_now = hashlib.sha256()
        while chunk := f.read(_CHUNK):
            digest_now.update(chunk)
        if digest_now.hexdigest() != digest:
            raise IntegrityError(
                f"blob {digest} is corrupt: its content no longer matches its hash"
            )

    def get_bytes(self, digest: str) -> bytes:
        """A small blob (a manifest, a record) whole, verified."""
        chunks, size = [], 0
        with self._open_blob(digest) as f:
            while chunk := f.read(_CHUNK):
                size += len(chunk)
                if size > MAX_FILE_BYTES:
                    raise StoreError(f"blob {digest} is larger than {MAX_FILE_BYTES:,} bytes")
                chunks.append(chunk)
        data = b"".join(chunks)
        if sha256_bytes(data) != digest:
            raise IntegrityError(
                f"blob {digest} is corrupt: its content no longer matches its hash"
            )
        return data

    def copy_to(self, digest: str, target: Path) -> None:
        """Stream one blob to `target` (a link there is replaced, never written through),
        hashing while copying (one read); a corrupt blob leaves no target behind."""
        digest_now = hashlib.sha256()
        target.unlink(missing_ok=True)
        with self._open_blob(digest) as src, open(target, "xb") as dst:
            while chunk := src.read(_CHUNK):
                digest_now.update(chunk)
                dst.write(chunk)
        if digest_now.hexdigest() != digest:
            target.unlink(missing_ok=True)
            raise IntegrityError(
                f"blob {digest} is corrupt: its content no longer matches its hash"
            )

    def link_to(self, digest: str, target: Path) -> None:
        """Hard-link the verified blob at `target` (replacing what is there). The link is checked
        to be the very file that was hashed, so a blob swapped meanwhile is never linked."""
        target.unlink(missing_ok=True)
        with self._open_blob(digest) as f:
            self._check_hash(digest, f)
            os.link(self._path(digest), target, follow_symlinks=False)
            hashed, linked = os.fstat(f.fileno()), os.lstat(target)
        if (hashed.st_dev, hashed.st_ino) != (linked.st_dev, linked.st_ino):
            target.unlink()
            raise IntegrityError(f"blob {digest} changed while it was being linked to {target}")

    def manifest(self, digest: str) -> dict[str, str]:
        """A stored tree's {relative path: blob digest}; paths are checked to stay inside it."""
        try:
            files = json.loads(self.get_bytes(digest))["files"]
        except (ValueError, KeyError, TypeError) as e:
            raise IntegrityError(f"blob {digest} is not a tree manifest: {e}") from e
        if not isinstance(files, dict) or not all(
            isinstance(rel, str) and isinstance(blob, str) and _DIGEST.fullmatch(blob)
            for rel, blob in files.items()
        ):  # a crafted blob: its readers take `files` as {path: digest}
            raise IntegrityError(
                f"blob {digest} is not a tree manifest: 'files' is not a mapping of paths to "
                f"blob digests ({type(files).__name__})"
            )
        for rel in files:
            parts = Path(rel).parts
            if Path(rel).is_absolute() or ".." in parts or not parts:
                raise IntegrityError(f"tree {digest} names a path outside itself: {rel!r}")
        return files

    def tree_blobs(self, digest: str) -> set[str]:
        """The manifest's digest and every file blob it names."""
        return {digest, *self.manifest(digest).values()}

    def get_tree(self, digest: str, destination: Path | str, *, link: bool = False) -> Path:
        """Materialise a stored tree into `destination`, streaming and verifying file by file.
        `link`: hard-link each (verified) blob instead of copying it, where the file system
        allows, so a long-lived read-only copy (the base model) costs no second copy on disk;
        such files must never be written to."""
        destination = Path(destination)
        for rel, file_digest in self.manifest(digest).items():
            target = destination / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if link:
                try:
                    self.link_to(file_digest, target)
                    continue
                except OSError as e:
                    if e.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
                        raise
            self.copy_to(file_digest, target)
        return destination

    def check_tree(self, digest: str) -> None:
        """Raise `IntegrityError` / `StoreError` unless every blob of the tree is present and
        intact (reads each once, in chunks)."""
        for file_digest in self.manifest(digest).values():
            self.path(file_digest)
