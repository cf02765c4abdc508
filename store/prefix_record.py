"""The `verified_prefix` side table's reader and writer: how far each run's chain has been walked
(seq and hash), so a read walks only what came after. Split from `store.verification`."""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from store.backends import not_utf8

_log = logging.getLogger("rlvr.store")
# The only hash the code records: a garbled one (a number, upper case, '') is ignored like a
# garbled seq, never compared with the row it names, which it would blame (round 23, log 001).
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class PrefixRecord:
    """Reads and advances `verified_prefix` rows; `mark` is the driver's parameter placeholder."""

    def __init__(self, mark: str) -> None:
        self._get_sql = f"SELECT seq, hash FROM verified_prefix WHERE run_id = {mark}"
        # Monotonic: a record only ever moves forward (a slower reader cannot move it back).
        self._advance_sql = (
            "INSERT INTO verified_prefix (run_id, seq, hash, verified_at) "
            f"VALUES ({mark}, {mark}, {mark}, {mark}) ON CONFLICT (run_id) DO UPDATE SET "
            "seq = excluded.seq, hash = excluded.hash, verified_at = excluded.verified_at "
            "WHERE verified_prefix.seq < excluded.seq"
        )
        # The writer's step: its batch chains from a row that was verified (or from genesis).
        self._extend_sql = (
            f"UPDATE verified_prefix SET seq = {mark}, hash = {mark}, verified_at = {mark} "
            f"WHERE run_id = {mark} AND seq = {mark} AND hash = {mark}"
        )

    def get(self, conn: sa.Connection, run_id: str) -> tuple[int, str] | None:
        """The run's verified end (seq, hash), or None when there is none or the row is not one
        (a seq that is not an integer, a hash that is not text: edited): the walk then starts from
        genesis, which is only slower."""
        try:
            row = conn.exec_driver_sql(self._get_sql, (run_id,)).first()
        except sa_exc.DBAPIError as e:
            if not not_utf8(e):
                raise
            row = (None, "(not UTF-8 text)")  # a hash edited to bytes SQLite cannot decode
        if row is None:
            return None
        seq, hash_ = row[0], row[1]
        if (
            isinstance(seq, int)
            and not isinstance(seq, bool)
            and seq >= 0
            and isinstance(hash_, str)
            and _SHA256_HEX.fullmatch(hash_) is not None
        ):
            return seq, hash_
        # At info: the walk from seq 1 is the safe reading, and a refusal that follows is the
        # command's one line (round 22, log 029); RLVR_LOG_LEVEL=INFO shows it.
        _log.info(
            "run %s: verified_prefix row ignored (seq %r, hash %r): walking the chain from seq 1",
            run_id, seq, hash_,
        )  # fmt: skip
        return None

    def advance(self, conn: sa.Connection, run_id: str, seq: int, hash_: str) -> None:
        conn.exec_driver_sql(self._advance_sql, (run_id, seq, hash_, _now()))

    def extend(
        self, conn: sa.Connection, run_id: str, from_: tuple[int, str], to: tuple[int, str]
    ) -> None:
        """Within an append: move the record from the batch's parent row to its last row, when the
        parent was the verified end (a new run starts its record here)."""
        if from_[0] == 0:
            self.advance(conn, run_id, *to)
            return
        conn.exec_driver_sql(self._extend_sql, (*to, _now(), run_id, *from_))
