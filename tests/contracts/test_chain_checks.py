"""Every read checks the chain it reads, incrementally; a keyed head catches what an unkeyed chain
cannot. Run against every backend (SQLite file, PostgreSQL)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sqlalchemy as sa

import store.log_reads
from store.events import MetricsRecorded
from store.exports import export_lines, import_file
from store.keyed import KEY_ENV, ChainKey
from store.log import EventLog
from store.verification import ChainBroken, walk_from
from tests.tampering import (
    delete_row,
    edit_payload,
    forge_chain,
    own_hash_edit,
    synthetic_run,
    truncate,
    write_key,
)


@pytest.fixture
def keyed_log(store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    log = EventLog(store_url)
    yield log
    log.close()


def test_every_read_refuses_an_edited_row_naming_its_seq(event_log: EventLog, run_id: str) -> None:
    synthetic_run(event_log, run_id, 5)
    assert len(list(event_log.read(run_id))) == 7  # the whole chain is now the verified prefix
    edit_payload(event_log, run_id, 4, {"step": 2, "metrics": {"kl": 0.0}})
    for read in (
        lambda: list(event_log.read(run_id)),
        lambda: list(event_log.read(run_id, types=["MetricsRecorded"])),
        lambda: list(event_log.read(run_id, to_seq=4)),
    ):
        with pytest.raises(ChainBroken, match="broken at seq 4: content does not match") as e:
            read()
        assert e.value.seq == 4
    assert list(event_log.read(run_id, to_seq=3))  # rows before the edit still read


def test_a_read_walks_only_the_rows_past_the_verified_prefix(
    event_log: EventLog, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    synthetic_run(event_log, run_id, 3)
    with event_log.engine.begin() as conn:  # as an imported or old run: nothing verified yet
        conn.execute(sa.text("DELETE FROM verified_prefix WHERE run_id = :r"), {"r": run_id})
    walked: list[list[int]] = []

    def counting_walk(run_id: str, start: tuple[int, str], rows, vouches) -> tuple[int, str]:
        rows = list(rows)
        walked.append([r.seq for r in rows])
        return walk_from(run_id, start, rows, vouches)

    monkeypatch.setattr(store.log_reads, "walk_from", counting_walk)
    list(event_log.read(run_id, types=["RunStarted"]))
    list(event_log.read(run_id, types=["RunStarted"]))
    event_log.append(run_id, [MetricsRecorded(step=4, metrics={})], expected_seq=5)
    list(event_log.read(run_id))  # the writer moved the prefix with its batch: nothing to walk
    fourth = next(event_log.read(run_id, from_seq=4)).hash
    with event_log.engine.begin() as conn:  # a batch from a writer that did not move the prefix
        conn.execute(
            sa.text("UPDATE verified_prefix SET seq = 4, hash = :h WHERE run_id = :r"),
            {"h": fourth, "r": run_id},
        )
    list(event_log.read(run_id, types=["RunStarted"]))
    assert walked == [[1, 2, 3, 4, 5], [5, 6]]


def test_a_deleted_tail_is_caught_while_the_verified_prefix_remembers_it(
    event_log: EventLog, run_id: str
) -> None:
    synthetic_run(event_log, run_id, 4)
    truncate(event_log, run_id, keep=4, cover_tracks=False)
    with pytest.raises(
        ChainBroken, match="broken at seq 5: the log ends at seq 4 but was verified"
    ):
        list(event_log.read(run_id))
    assert event_log.verify(run_id).first_bad_seq == 5


def test_without_a_key_a_recomputed_chain_verifies(event_log: EventLog, run_id: str) -> None:
    """What the README says the unkeyed chain cannot do: stop someone who can write the store."""
    synthetic_run(event_log, run_id, 4)
    forge_chain(event_log, run_id, 4, {"metrics": {"kl": 0.0}})
    assert event_log.verify(run_id).ok
    assert next(event_log.read(run_id, from_seq=4)).event.metrics == {"kl": 0.0}


def test_a_keyed_head_catches_a_forged_row_with_a_recomputed_chain(
    keyed_log: EventLog, run_id: str
) -> None:
    synthetic_run(keyed_log, run_id, 4)
    assert keyed_log.verify(run_id).ok
    forge_chain(keyed_log, run_id, 3, {"metrics": {"kl": 0.0}})
    with pytest.raises(ChainBroken, match="broken at seq 6: does not match the keyed head"):
        list(keyed_log.read(run_id))
    assert keyed_log.verify(run_id).first_bad_seq == 6


def test_a_keyed_head_catches_a_truncated_tail_even_with_tracks_covered(
    keyed_log: EventLog, run_id: str
) -> None:
    synthetic_run(keyed_log, run_id, 4)
    truncate(keyed_log, run_id, keep=3, cover_tracks=True)
    with pytest.raises(ChainBroken, match="broken at seq 4: the log ends at seq 3 but the keyed"):
        list(keyed_log.read(run_id))


def test_a_keyed_head_catches_rows_appended_without_the_key(
    keyed_log: EventLog, run_id: str, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    synthetic_run(keyed_log, run_id, 2)
    monkeypatch.delenv(KEY_ENV)
    unkeyed = EventLog(store_url)
    unkeyed.append(run_id, [MetricsRecorded(step=3, metrics={})], expected_seq=4)
    with pytest.raises(ChainBroken, match="seqs 5..5 are not covered by the keyed head"):
        list(keyed_log.read(run_id))
    unkeyed.close()


def test_a_batch_committed_before_its_head_was_promoted_still_reads(
    keyed_log: EventLog, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash between the commit and the head write leaves the pending head: the batch counts."""
    synthetic_run(keyed_log, run_id, 2)
    sign = ChainKey.sign

    def only_pending(self, run_id, seq, hash_, *, pending=False):
        if pending:
            sign(self, run_id, seq, hash_, pending=True)

    monkeypatch.setattr(ChainKey, "sign", only_pending)
    keyed_log.append(run_id, [MetricsRecorded(step=3, metrics={})], expected_seq=4)
    assert [r.seq for r in keyed_log.read(run_id, from_seq=4)] == [4, 5]


def test_an_export_cut_at_a_line_boundary_does_not_import(
    event_log: EventLog, run_id: str, tmp_path: Path
) -> None:
    synthetic_run(event_log, run_id, 3)
    lines = list(export_lines(event_log, run_id))
    other = EventLog(tmp_path / "other.db")
    for cut in (lines[:-1], lines[:-2], [*lines[:-3], lines[-1]]):
        path = tmp_path / "cut.jsonl"
        path.write_text("".join(cut))
        with pytest.raises(Exception, match="import refused"):
            import_file(other, path)
    assert other.runs() == []
    path.write_text("".join(lines))
    assert import_file(other, path) == 5
    assert other.verify(run_id).ok


def test_a_keyed_export_imports_with_its_head_and_a_forged_head_does_not(
    keyed_log: EventLog, run_id: str, tmp_path: Path
) -> None:
    synthetic_run(keyed_log, run_id, 2)
    path = tmp_path / "run.jsonl"
    path.write_text("".join(export_lines(keyed_log, run_id)))
    forged = tmp_path / "forged.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    forged.write_text("".join(lines[:-1]) + lines[-1].replace('"mac": "', '"mac": "0'))
    other = EventLog(tmp_path / "other.db")  # shares the key
    with pytest.raises(Exception, match="import refused: the export head of .* does not match"):
        import_file(other, forged)
    assert import_file(other, path) == 4
    assert [r.seq for r in other.read(run_id)] == [1, 2, 3, 4]


def test_with_a_key_a_run_written_without_it_is_refused(
    event_log: EventLog, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synthetic_run(event_log, run_id, 1)
    monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    keyed = EventLog(event_log.url)
    with pytest.raises(ChainBroken, match="broken at seq 1: no keyed head in .*without the key"):
        list(keyed.read(run_id))
    keyed.close()


def test_an_import_never_moves_a_keyed_head_back(
    keyed_log: EventLog, run_id: str, tmp_path: Path
) -> None:
    synthetic_run(keyed_log, run_id, 2)
    path = tmp_path / "run.jsonl"
    path.write_text("".join(export_lines(keyed_log, run_id)))
    keyed_log.append(run_id, [MetricsRecorded(step=3, metrics={})], expected_seq=4)
    other = EventLog(tmp_path / "other.db")  # the same key file: the same heads
    with pytest.raises(Exception, match="already holds its head at seq 5, past this export's 4"):
        import_file(other, path)
    assert other.runs() == []
    assert [r.seq for r in keyed_log.read(run_id)] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("keyed", [False, True])
def test_a_run_appended_to_while_it_is_read_does_not_look_truncated(
    store_url: str, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool
) -> None:
    # `rlvr status` on a live run: the driver appends a batch and advances the verified prefix
    # (and, with a key, the keyed head) between the reader's queries. Seen in CI on PostgreSQL as
    # "the log ends at seq 21 but was verified up to seq 25 (rows deleted)".
    if keyed:
        monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    reader, writer = EventLog(store_url), EventLog(store_url)
    synthetic_run(writer, run_id, 3)
    assert len(list(reader.read(run_id))) == 5
    writes = iter([4, 5])

    def a_batch_lands(original):
        def claim(*args, **kwargs):
            step = next(writes, None)
            if step is not None:  # the driver's next batch, committed and checked meanwhile
                event = MetricsRecorded(step=step, metrics={"kl": 0.01 * step})
                writer.append(run_id, [event], expected_seq=step + 1)
                list(writer.read(run_id, from_seq=step + 2))
            return original(*args, **kwargs)

        return claim

    # Each claim about the log's end is read just as another batch lands.
    monkeypatch.setattr(reader._prefix, "get", a_batch_lands(reader._prefix.get))
    if keyed:
        monkeypatch.setattr(reader.key, "heads", a_batch_lands(reader.key.heads))
    assert [r.seq for r in reader.read(run_id)][-1] >= 6
    assert reader.verify(run_id).ok
    reader.close(), writer.close()


@pytest.mark.parametrize("keyed", [False, True], ids=["unkeyed", "keyed"])
@pytest.mark.parametrize("tamper", ["own-hash edit", "deleted row"])
def test_a_typed_read_walks_the_rows_it_skips_and_names_the_first_bad_seq(
    store_url: str, run_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool,
    tamper: str,
) -> None:  # fmt: skip
    if keyed:
        monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    log = EventLog(store_url)
    synthetic_run(log, run_id, 8)  # step n at seq n + 2
    assert len(list(log.read(run_id))) == 10  # all of it verified: the prefix is at the end
    if tamper == "own-hash edit":
        own_hash_edit(log, run_id, 6, {"metrics": {"kl": 0.0}})
        reason = "its hash is not the one seq 7 chains from (edited, its hash recomputed?)"
    else:
        delete_row(log, run_id, 6)
        reason = "seq 6 is missing (next is 7)"
    for read in (
        lambda: list(log.read(run_id, types=["RunStarted"])),  # skips the edited row
        lambda: list(log.read(run_id, types=["MetricsRecorded"])),
        lambda: list(log.read(run_id, from_seq=4, to_seq=6)),  # the link of the row after it
        lambda: list(log.read(run_id, from_seq=7)),  # the row before it: its link
        lambda: list(log.read(run_id)),
    ):
        with pytest.raises(ChainBroken, match=f"broken at seq 6: {re.escape(reason)}") as e:
            read()
        assert e.value.seq == 6
    assert log.verify(run_id).first_bad_seq == 6
    if keyed:  # the head vouches for rows before it only through it: a keyed read walks to the end
        with pytest.raises(ChainBroken, match="broken at seq 6"):
            list(log.read(run_id, to_seq=4))
    else:  # rows before it do not depend on it
        assert [r.seq for r in log.read(run_id, to_seq=4)] == [1, 2, 3, 4]
    log.close()


def test_inside_walking_once_a_span_is_walked_once_and_outside_every_read_walks(
    event_log: EventLog, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    synthetic_run(event_log, run_id, 6)
    walked: list[int] = []
    stream = event_log._stream

    def counting(run, from_seq, types, to_seq, batch):
        for row in stream(run, from_seq, types, to_seq, batch):
            walked.append(row.seq)
            yield row

    monkeypatch.setattr(event_log, "_stream", counting)
    with event_log.walking_once():
        assert len(list(event_log.read(run_id, types=["MetricsRecorded"]))) == 6
        assert len(walked) == 8  # every row
        assert [r.seq for r in event_log.read(run_id, types=["RunStarted"])] == [1]
        assert len(walked) == 9  # only the row handed out, re-hashed
        event_log.append(run_id, [MetricsRecorded(step=7, metrics={})], expected_seq=8)
        list(event_log.read(run_id, types=["RunStarted"]))  # the log moved on: walked again
        assert len(walked) == 18
    walked.clear()
    list(event_log.read(run_id, types=["RunStarted"]))
    assert len(walked) == 9
    own_hash_edit(event_log, run_id, 4, {"metrics": {"kl": 0.5}})
    with pytest.raises(ChainBroken, match="broken at seq 4"):
        list(event_log.read(run_id, types=["RunStarted"]))
