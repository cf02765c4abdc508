"""Verifying a run's history whole, for `EventLog` (a mixin under `store.log_reads`): `verify`,
and the walk from genesis a read falls back to on a break, so that every reader names the first
bad seq as `verify` does (on that failure path only: a read that finds nothing wrong walks only
what it reads). Which side of a broken link is named: `store.verification.blame_link`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError

from store import lineage
from store.errors import IntegrityError
from store.rows import StoredEvent
from store.verification import (
    ChainBroken,
    VerifyReport,
    check_end,
    verify_rows,
    vouched,
)


class Verifying:
    """Needs `EventLog`'s engine, key, `_prefix`, `_link_sql` and the reads of `ReadsAndChecks`
    (`require`, `_stream`, `_walk_own`, `_junction`, `_hash_at`, `named_not_utf8`)."""

    def _first_bad(self, found: ChainBroken) -> ChainBroken:
        """The break a read's walk `found`, or the history's first bad seq before it, as `verify`
        names it (the walk may have started past an earlier one: a read's span). The whole
        history is walked here, on this failure path only."""
        report = self._walk_history(found.run_id)
        if report.first_bad_seq is not None and report.first_bad_seq < found.seq:
            return ChainBroken(found.run_id, report.first_bad_seq, report.reason)
        return found

    def _walk_history(self, run_id: str, payloads: bool = False) -> VerifyReport:
        """The whole history walked from genesis (`verify`'s walk, without its end checks);
        `payloads`: each stored payload checked canonical too (`verify`'s)."""
        with self.engine.connect() as conn:  # the claims before the rows' end (see check_end)
            record = self._prefix.get(conn, run_id)
        heads = self.key.heads(run_id) if self.key is not None else None
        vouches = lambda row: vouched(row, heads, record)  # noqa: E731
        rows = self._stream(run_id, 1, None, None, 5000)
        return verify_rows(run_id, rows, vouches=vouches, payloads=payloads)

    def _changed(self, run_id: str, row: StoredEvent) -> bool:
        """Whether `row`'s own hash is not the one recorded after it: the next row of `run_id`'s
        history does not chain from it, or (the last row) no keyed head or verified prefix names
        it with its hash. Asked only where a link is broken (`blame_link`)."""
        owner = lineage.owner_of(self.segments(run_id), row.seq + 1)
        with self.engine.connect() as conn:
            after = conn.exec_driver_sql(self._link_sql, (owner, row.seq + 1)).first()
            if after is not None:
                return after[0] != row.hash
            record = self._prefix.get(conn, row.run_id)
        heads = self.key.heads(row.run_id) if self.key is not None else None
        return not vouched(row, heads, record)

    def _first_break(
        self,
        conn: sa.Connection,
        run_id: str,
        start: tuple[int, str],
        vouches: Any,
        found: ChainBroken,
    ) -> ChainBroken:
        """The first bad seq of the run's own rows from `start` (its segment's beginning), when
        it comes before the break `found`: an edit behind the verified prefix, or rows deleted
        and renumbered, are named where they are, not where the log's end stopped matching."""
        try:
            self._walk_own(conn, run_id, start, vouches)
        except ChainBroken as e:
            if e.seq < found.seq:
                return e
        return found

    def _broken_pointer(self, run_id: str) -> ChainBroken | None:
        """The first branch pointer of the run's lineage (`run_parents`, a side table no key
        signs) that its rows do not bear out: its seq is not a seq (< 1: at seq 0), its parent
        has no row there, or the branch's first own row does not chain from that row. A pointer added to a
        standalone run, moved, or naming a run that does not exist fails here; a pointer that
        passes is as trustworthy as the chain (and the keyed head) that covers that link."""
        with self.engine.connect() as conn:
            for span in lineage.segments(conn, run_id):
                parent = lineage.parent_of(conn, span.run_id)
                if parent is None:
                    continue
                if type(parent.seq) is not int or parent.seq < 1:
                    return ChainBroken(
                        span.run_id,
                        0,  # not a seq of the history: `verify` refuses the history whole
                        f"names run {parent.run_id} at seq {parent.seq!r}, which is not a seq a "
                        "branch can start after",
                    )
                try:
                    self._junction(conn, span.run_id, parent)
                except ChainBroken as e:
                    return e
        return None

    def verify(self, run_id: str) -> VerifyReport:
        """Walk the whole chain from genesis (not only past the verified prefix), then the
        verified prefix's and the keyed head's claims about where the log ends. Text SQLite
        cannot decode (the last row's hash) is a `ChainBroken` naming its seq."""
        try:
            return self._verify(run_id)
        except DBAPIError as e:
            raise self.named_not_utf8(run_id, e) from e

    def _verify(self, run_id: str) -> VerifyReport:
        with self.engine.connect() as conn:  # the claims before the rows' end (see check_end)
            record = self._prefix.get(conn, run_id)
        heads = self.key.heads(run_id) if self.key is not None else None
        last = self.require(run_id)
        pointer = self._broken_pointer(run_id)
        if pointer is not None and pointer.seq == 0:  # no seq to name: the history has no shape
            raise IntegrityError(
                f"run {run_id}: its history cannot be verified: the branch pointer of run "
                f"{pointer.run_id} (run_parents) {pointer.reason}"
            )
        report = self._walk_history(run_id, payloads=True)
        if report.ok and pointer is not None:
            why = f"the branch pointer (run_parents) is not borne out by its rows: {pointer.reason}"
            return replace(report, first_bad_seq=pointer.seq, reason=why)
        if not report.ok:
            with self.engine.connect() as conn:
                owner = lineage.owner_of(lineage.segments(conn, run_id), report.first_bad_seq)
            if owner != run_id:
                shared = f" (in run {owner}'s rows, which this branch's history shares)"
                report = replace(report, reason=report.reason + shared)
            return report
        try:
            with self.engine.connect() as conn:
                hash_at = lambda s: self._hash_at(conn, run_id, s)  # noqa: E731
                check_end(run_id, last, record, hash_at, self.key, heads)
        except ChainBroken as e:
            return replace(report, first_bad_seq=e.seq, reason=e.reason)
        return report
