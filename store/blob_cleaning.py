"""Cleaning a blob store: listing its blobs, removing those a GC found unreferenced, and temp
files whose writer is gone. Mixed into `store.blobs.BlobStore` (its root, paths and temp names)."""

from __future__ import annotations

import os
import shutil
import socket
import time
from collections.abc import Iterable
from pathlib import Path

TMP_PREFIX = ".tmp-"
# A temp file from another host is stale once untouched this long (we cannot ask whether its
# writer is alive; a live writer touches it at every chunk).
_FOREIGN_TMP_STALE_S = 24 * 3600


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class BlobCleaning:
    """The cleaning half of `BlobStore`, which gives it `root`, `_path` and `_temp_name`."""

    root: Path

    def all_blobs(self) -> list[str]:
        """Every blob's digest (temp files and directories being written are not blobs)."""
        return [
            p.name
            for sub in self.root.iterdir()
            if len(sub.name) == 2 and sub.is_dir() and not sub.name.startswith(".")
            for p in sub.iterdir()
            if len(p.name) == 64 and p.name.startswith(sub.name)
        ]

    def age_s(self, digest: str) -> float | None:
        """Seconds since the blob was last (re)written; None when absent."""
        try:
            return time.time() - self._path(digest).stat().st_mtime
        except FileNotFoundError:
            return None

    def remove_if_unwritten_for(self, digest: str, seconds: float) -> int | None:
        """Delete a blob unless it was (re)written in the last `seconds`: the bytes freed, or
        None when it stays (or was absent).
        It is first renamed away, then its age read: a writer that touched it before the rename
        shows in that age (it is put back), one after the rename finds it gone and writes it
        again. So a blob an in-flight step has just written is never lost."""
        path = self._path(digest)
        aside = self.root / self._temp_name()  # a crash leaves a temp file the next store removes
        try:
            os.replace(path, aside)
        except FileNotFoundError:
            return None
        stat = aside.stat()
        if time.time() - stat.st_mtime < seconds:
            os.replace(aside, path)  # same bytes as any copy a writer renamed there meanwhile
            return None
        aside.unlink()
        return stat.st_size

    def remove(self, digests: Iterable[str]) -> int:
        """Delete blobs; return the bytes freed. Only a GC that knows them unreferenced calls this."""
        freed = 0
        for digest in digests:
            path = self._path(digest)
            try:
                size = path.stat().st_size
                path.unlink()
                freed += size
            except FileNotFoundError:
                continue
        return freed

    def remove_stale_temp_files(self) -> list[str]:
        """Delete temp files and directories whose writer is gone: a dead pid on this host, or untouched for a
        day from another host. Returns their names."""
        host, removed = socket.gethostname(), []
        for path in self.root.glob(f"{TMP_PREFIX}*"):
            parts = path.name[len(TMP_PREFIX) :].rsplit("-", 2)  # host (may hold "-"), pid, time
            try:
                if len(parts) == 3 and parts[0] == host and parts[1].isdigit():
                    stale = not _pid_alive(int(parts[1]))
                else:  # another host, or the old unnamed form
                    stale = time.time() - path.stat().st_mtime > _FOREIGN_TMP_STALE_S
                if stale:
                    if path.is_dir():
                        shutil.rmtree(path)
                    else:
                        path.unlink()
                    removed.append(path.name)
            except FileNotFoundError:
                continue
        return removed
