"""The optional keyed chain: an HMAC'd head per batch, kept outside the store.

Set `RLVR_CHAIN_KEY_FILE` to a file holding a secret (at least 16 bytes). Each append then signs
`(run_id, seq, hash)` of its batch's last row with HMAC-SHA256 and writes it to a head file in
`<key file>.heads/`, next to the key and outside the store. Because each row's hash covers every
row before it, a valid head at seq N vouches for rows 1..N. A read then also requires:

- the log reaches the head's seq (a deleted tail is caught),
- the row at the head's seq has the head's hash (rows rewritten with a recomputed chain are caught),
- no rows after the head (rows forged past it are caught), except the one batch whose head was
  written as `pending` just before its commit (a crash between commit and signing).

A run with no row whose head file holds a pending head alone is a first append that never
committed: no run, not a run deleted whole (deleting every row of a run in the instant between
its first commit and its first signed head reads the same as that crash).

Heads only move forward. Someone who can write the store but not read the key can no longer
produce a log that verifies; someone who holds the key can. The heads folder is guarded like the
key: whoever can write it can put an older genuine head back and cut the log back to it, which no
reader can tell from the newest head (round 22, log 001). So only its owner may write it, and a heads
folder or head file that a user other than the key's owner (or this process's, or root) owns, or
that its group or others can write, is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from store.errors import IntegrityError, StoreError
from store.text_files import read_regular_bytes, write_replacing
from store.verification import ChainBroken

_log = logging.getLogger("rlvr.store")
KEY_ENV = "RLVR_CHAIN_KEY_FILE"
MIN_KEY_BYTES = 16
_MAX_KEY_FILE_BYTES = 1 << 20  # a key or a head file; anything larger is not one


def same_mac(given: object, expected: str) -> bool:
    """Whether a stored MAC equals the expected one; a MAC that is not ASCII text (forged: a
    number, a list, `é` x 64) is a mismatch, never a `TypeError` from `compare_digest` that no
    reader could name the seq of (red team round 15)."""
    return isinstance(given, str) and given.isascii() and hmac.compare_digest(given, expected)


@dataclass(frozen=True)
class Head:
    run_id: str
    seq: int
    hash: str
    mac: str | None  # None: an unkeyed head (an export made without a key)
    ends_mac: str | None = None  # an export's: the key's MAC over its batch_end marks

    def to_json(self) -> dict:
        data = {"run_id": self.run_id, "seq": self.seq, "hash": self.hash, "mac": self.mac}
        if self.ends_mac is not None:
            data["ends_mac"] = self.ends_mac
        return data


class ChainKey:
    def __init__(self, path: Path) -> None:
        try:
            self.secret = read_regular_bytes(path, _MAX_KEY_FILE_BYTES).strip()
        except OSError as e:
            raise StoreError(f"{KEY_ENV}={path}: cannot read the chain key: {e}") from e
        if len(self.secret) < MIN_KEY_BYTES:
            raise StoreError(
                f"{KEY_ENV}={path}: the chain key is {len(self.secret)} bytes "
                f"(needs at least {MIN_KEY_BYTES})"
            )
        self.path = path
        self.heads_dir = path.with_name(path.name + ".heads")
        # Who may own the heads: the key's owner, this process, root (a key provisioned by root).
        self._owners = {os.stat(path).st_uid, os.geteuid(), 0}

    def check_unchanged(self) -> None:
        """`StoreError` unless the key file still holds the secret this process signs with: a
        key rotated or removed under a live driver let it sign on with the old one, and the run
        "completed" with heads no key its operator holds can check (red team round 28, log 011).
        Checked before each signature: a small file, read once an append."""
        try:
            now = read_regular_bytes(self.path, _MAX_KEY_FILE_BYTES).strip()
        except OSError as e:
            raise StoreError(
                f"{KEY_ENV}={self.path}: cannot read the chain key any more ({e.strerror or e}): "
                "nothing more is signed; restore the key file, then resume the run"
            ) from e
        if not hmac.compare_digest(now, self.secret):
            raise StoreError(
                f"{KEY_ENV}={self.path}: the chain key file changed while this process was "
                "signing with it: nothing more is signed with either key; put the key the run "
                "started with back, then resume the run"
            )

    @classmethod
    def from_env(cls) -> ChainKey | None:
        path = os.environ.get(KEY_ENV)
        return cls(Path(path)) if path else None

    def mac(self, run_id: str, seq: int, hash_: str) -> str:
        message = f"{run_id}\n{seq}\n{hash_}".encode()
        return hmac.new(self.secret, message, hashlib.sha256).hexdigest()

    def snapshot_mac(
        self, run_id: str, seq: int, event_hash: str, fold_key: str, state: str
    ) -> str:
        """The MAC of a `RunState` snapshot (store/snapshots.py): the run, the seq and event hash
        it folds up to, the fold version that made it, and its state text. A key of its own,
        derived from the secret, so a snapshot's MAC can never pass for a head's."""
        key = hmac.new(self.secret, b"rlvr snapshot", hashlib.sha256).digest()
        message = f"{run_id}\n{seq}\n{event_hash}\n{fold_key}\n{state}".encode()
        return hmac.new(key, message, hashlib.sha256).hexdigest()

    def side_mac(self, purpose: str, *fields: object) -> str:
        """The MAC of a side-table row the store trusts with a key (`purpose`: "request", "batch",
        "export batch ends"; a branch pointer needs none: `lineage.check_junction`): a key of
        its own per purpose, derived from the secret, over the JSON list of `fields`
        (unambiguous whatever they hold), so no row's MAC passes for another's."""
        key = hmac.new(self.secret, b"rlvr " + purpose.encode(), hashlib.sha256).digest()
        message = json.dumps([purpose, *fields], separators=(",", ":")).encode()
        return hmac.new(key, message, hashlib.sha256).hexdigest()

    def side_authentic(self, mac: object, purpose: str, *fields: object) -> bool:
        try:
            expected = self.side_mac(purpose, *fields)
        except (TypeError, ValueError):  # a BLOB's bytes, text not UTF-8: no writer signs those
            return False  # (round 26, log 003: a TypeError out of `status`)
        return same_mac(mac, expected)

    def ends_mac(self, head: Head, ends: list[int]) -> str:
        """The MAC an export's head carries over its batch_end marks (outside the row hashes):
        an import with the key takes only marks that a key holder exported."""
        return self.side_mac("export batch ends", head.run_id, head.seq, head.hash, sorted(ends))

    def signed(self, run_id: str, seq: int, hash_: str) -> Head:
        return Head(run_id, seq, hash_, self.mac(run_id, seq, hash_))

    def _covers(self, run_id: str, last_seq: int, hash_at: Callable[[int], str | None]) -> bool:
        """Whether the heads as they are now vouch for `last_seq` (signed at or past it, or it
        is the pending batch)."""
        head, pending = self.heads(run_id)
        if head is not None and head.seq >= last_seq and hash_at(head.seq) == head.hash:
            return True
        return _pending_is_last(pending, last_seq, hash_at)

    def authentic(self, head: Head) -> bool:
        return same_mac(head.mac, self.mac(head.run_id, head.seq, head.hash))

    # --- the head files ----------------------------------------------------------------------

    def _path(self, run_id: str) -> Path:
        # Run ids may hold characters a file name must not: name the file by a digest.
        return self.heads_dir / (hashlib.sha256(run_id.encode()).hexdigest()[:32] + ".json")

    def heads(self, run_id: str) -> tuple[Head | None, Head | None]:
        """The run's signed head and its pending one (the batch being committed), each checked."""
        path = self._path(run_id)
        try:
            self.check_guarded(self.heads_dir)
            self.check_guarded(path)
            data = json.loads(read_regular_bytes(path, _MAX_KEY_FILE_BYTES))
            parts = [_head_of(run_id, data, name) for name in ("head", "pending")]
        except FileNotFoundError:
            return None, None
        except (OSError, ValueError, RecursionError) as e:
            # RecursionError: deeply nested JSON, which the decoder recurses into.
            why = "nested too deeply" if isinstance(e, RecursionError) else str(e)
            raise IntegrityError(f"run {run_id}: keyed head {path} is unreadable: {why}") from e
        found = []
        for head in parts:
            if head is not None and not self.authentic(head):
                raise IntegrityError(
                    f"run {run_id}: keyed head {path} does not match the key (edited, or signed "
                    "with another key)"
                )
            found.append(head)
        return found[0], found[1]

    def signed_runs(self) -> dict[str, int]:
        """Every run with a signed head here, and the seq its head (or pending batch) is at: the
        runs some store written with this key file holds. A file with a pending head alone is a
        first batch that may never have committed (a crash in a run's first append, round 25,
        log 023), and unreadable files are left out (reading that run names them)."""
        runs: dict[str, int] = {}
        with contextlib.suppress(FileNotFoundError):
            self.check_guarded(self.heads_dir)
        for path in sorted(self.heads_dir.glob("*.json")) if self.heads_dir.is_dir() else []:
            try:
                data = json.loads(read_regular_bytes(path, _MAX_KEY_FILE_BYTES))
                if not isinstance(data, dict) or not data.get("head"):  # `[1]`, `null` (round 21)
                    continue
                parts = [data.get("head"), data.get("pending")]
                seq = max(part["seq"] for part in parts if part)
                run_id = next(part["run_id"] for part in parts if part)
            except (OSError, ValueError, KeyError, TypeError, StopIteration, RecursionError):
                continue
            if isinstance(run_id, str) and _is_seq(seq) and self._path(run_id) == path:
                runs[run_id] = seq
        return runs

    def sign(self, run_id: str, seq: int, hash_: str, *, pending: bool = False) -> None:
        """Record `seq`/`hash_` as the run's head (or as the batch about to commit)."""
        self.check_unchanged()
        head, _ = self.heads(run_id)
        if head is not None and seq < head.seq:
            raise IntegrityError(
                f"run {run_id}: the keyed head is at seq {head.seq}; refusing to move it back "
                f"to {seq}"
            )
        new = self.signed(run_id, seq, hash_)
        if pending:
            self._write(run_id, head, new)
        else:
            self._write(run_id, new, None)

    def adopt(self, head: Head, *, pending: bool = False) -> None:
        """Keep an imported run's authentic head (`pending`: as the batch about to commit, so an
        import killed before its commit leaves no run, not one "deleted whole": round 28)."""
        self.check_unchanged()
        if not self.authentic(head):
            raise IntegrityError(f"run {head.run_id}: the export's head does not match the key")
        current, _ = self.heads(head.run_id)
        if current is not None and current.seq > head.seq:
            raise IntegrityError(
                f"run {head.run_id}: {self.heads_dir} already holds its head at seq {current.seq}, "
                f"past this export's {head.seq} (heads are per key file: give each store its own "
                "copy of the key at another path)"
            )
        self._write(head.run_id, current if pending else head, head if pending else None)

    def _write(self, run_id: str, head: Head | None, pending: Head | None) -> None:
        data = {
            "head": head.to_json() if head else None,
            "pending": pending.to_json() if pending else None,
        }
        if not self.heads_dir.exists():
            self.heads_dir.mkdir(mode=0o755, parents=True, exist_ok=True)
            # Whatever the umask (002 makes folders group-writable): written by its owner only,
            # read by any user who also reads the key, as before
            self.heads_dir.chmod(0o755)
        self.check_guarded(self.heads_dir)
        write_replacing(self._path(run_id), json.dumps(data))

    def check_guarded(self, path: Path) -> None:
        """`IntegrityError` unless `path` (the heads folder or a head file) is writable only by
        its owner, one of the key's owner, this process's user or root; `FileNotFoundError` when
        it is missing."""
        st = os.lstat(path)
        if st.st_uid not in self._owners:
            who = f"user {st.st_uid}, not the chain key's owner"
        elif st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            who = "its group or others"
        else:
            return
        raise IntegrityError(
            f"{path} can be written by {who}: whoever can write the keyed heads can put an older "
            f"head back and cut a run's log back to it, so they are refused (chmod go-w {path}; "
            "the heads are guarded like the key)"
        )

    # --- checking a log against its head -------------------------------------------------------

    def check(
        self,
        run_id: str,
        last_seq: int,
        hash_at: Callable[[int], str | None],
        heads: tuple[Head | None, Head | None] | None = None,
    ) -> None:
        """Raise `ChainBroken` naming the first seq the keyed head does not vouch for; return when
        the log is exactly what was signed. `heads`, read before `last_seq` was (a writer only
        moves them forward), keeps a concurrent append from looking like deleted rows."""
        head, pending = heads if heads is not None else self.heads(run_id)
        if head is None and pending is None:
            if last_seq:
                raise ChainBroken(
                    run_id, 1, f"no keyed head in {self.heads_dir} (written without the key?)"
                )
            return None
        signed_seq = head.seq if head else 0
        if head is not None:
            if last_seq < head.seq:
                raise ChainBroken(
                    run_id,
                    last_seq + 1,
                    f"the log ends at seq {last_seq} but the keyed head is at seq {head.seq} "
                    "(rows deleted)",
                )
            if hash_at(head.seq) != head.hash:
                raise ChainBroken(
                    run_id,
                    head.seq,
                    "does not match the keyed head (rows rewritten with a recomputed chain?)",
                )
        if last_seq > signed_seq:
            if _pending_is_last(pending, last_seq, hash_at):
                return  # the batch committed; the process stopped before promoting its head
            if heads is not None and self._covers(run_id, last_seq, hash_at):
                return  # a writer appended and signed after the heads were read
            raise ChainBroken(
                run_id,
                signed_seq + 1,
                f"seqs {signed_seq + 1}..{last_seq} are not covered by the keyed head "
                "(appended without the key?)",
            )


def _is_seq(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _head_of(run_id: str, data: object, name: str) -> Head | None:
    """Part `name` ("head" or "pending") of a head file, its fields checked for type (a seq
    written as text would still pass the MAC, which covers its decimal form); ValueError if not."""
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    part = data.get(name)
    if not part:
        return None
    if not isinstance(part, dict):
        raise ValueError(f"{name}: not a JSON object")
    seq, hash_, mac = part.get("seq"), part.get("hash"), part.get("mac")
    if not _is_seq(seq) or not isinstance(hash_, str) or not isinstance(mac, str):
        raise ValueError(f"{name}: seq must be a whole number, hash and mac strings")
    return Head(run_id, seq, hash_, mac)


def _pending_is_last(
    pending: Head | None, last_seq: int, hash_at: Callable[[int], str | None]
) -> bool:
    """The pending head names the log's last row as it is (its batch committed, unpromoted)."""
    return pending is not None and pending.seq == last_seq and hash_at(last_seq) == pending.hash


def check_export_head(
    run_id: str, last_seq: int, last_hash: str, head: Head | None, key: ChainKey | None
) -> None:
    """An import's rows must end where the export's head line says (a cut export does not); with a
    key, the head must be signed by it."""
    if head is None:
        raise StoreError(
            f"import refused: the export of run {run_id} has no head line after seq {last_seq} "
            "(cut short, or exported before heads existed)"
        )
    if (head.run_id, head.seq, head.hash) != (run_id, last_seq, last_hash):
        raise StoreError(
            f"import refused: the export's head is seq {head.seq} of {head.run_id} but its rows "
            f"end at seq {last_seq} of {run_id} (cut short or spliced)"
        )
    if key is not None and head.mac is None:
        raise StoreError(
            f"import refused: the export of run {run_id} has no keyed head and {KEY_ENV} is set "
            "(unset it to import the run unkeyed)"
        )
    if key is not None and not key.authentic(head):
        raise StoreError(f"import refused: the export head of run {run_id} does not match the key")


def signed_marks(ends: Sequence[int], head: Head | None, key: ChainKey | None) -> Sequence[int]:
    """An import's batch_end marks, with a key only as the export's head signed them: marks
    a head does not cover (an export made before marks were signed) are dropped, with a warning
    (fewer cut points, never a forged one); marks that do not match its MAC are refused."""
    if key is None or not ends or head is None:
        return ends
    if head.ends_mac is None:
        _log.warning("import of %s: batch_end marks not signed by the export; dropped", head.run_id)
        return ()
    if not same_mac(head.ends_mac, key.ends_mac(head, list(ends))):
        raise StoreError(
            f"import refused: the export's batch_end marks of run {head.run_id} are not the ones "
            "its key holder exported (the file was edited)"
        )
    return ends
