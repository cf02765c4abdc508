"""What the store trusts its side tables for (issue 28): the queue of requests (`run_requests`),
the batch boundaries (`batches`) and the branch pointers (`run_parents`), none of them covered by
the hash chain. A forged row must not enter the log (the queue), split a batch (a cut) or make a
history that its rows do not bear out look intact (verify)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from store import requests
from store.batches import CutError
from store.errors import IntegrityError
from store.events import PauseRequested
from store.keyed import KEY_ENV
from store.log import EventLog
from tests.tampering import write_key


def _log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool) -> EventLog:
    if keyed:
        monkeypatch.setenv(KEY_ENV, str(write_key(tmp_path)))
    else:
        monkeypatch.delenv(KEY_ENV, raising=False)
    return EventLog(tmp_path / "events.db")


def _asked(n: int) -> PauseRequested:
    return PauseRequested(by=f"person {n}")


def _insert_request(tmp_path: Path, run_id: str, type_: str, payload: str, mac: str | None) -> None:
    with sqlite3.connect(tmp_path / "events.db") as db:
        db.execute(
            "INSERT INTO run_requests (run_id, type, schema_version, payload, queued_at, "
            "queued_by, mac) VALUES (?, ?, 1, ?, '2026-01-01T00:00:00', 'mallory', ?)",
            (run_id, type_, payload, mac),
        )


@pytest.mark.parametrize("keyed", [False, True])
def test_a_genuine_queued_request_is_appended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool
) -> None:
    log = _log(tmp_path, monkeypatch, keyed)
    log.append("r", [_asked(0)], 0)
    requests.queue_for(log.engine, log.retry, "r", [_asked(1)], queued_by="t", key=log.key)
    rows = log.append("r", [], 1, drain_requests=True)
    assert [r.event for r in rows] == [_asked(1)] and log.verify("r").ok


@pytest.mark.parametrize(
    ("type_", "payload", "keyed"),
    [
        ("HyperparametersChanged", '{"changes":{"learning_rate":1.0},"reason":"forged"}', False),
        ("RunCompleted", '{"final_checkpoint":"ff","summary":{}}', True),
        ("PauseRequested", '{"by":"mallory","reason":""}', True),  # a queued type, but no MAC
        ("PauseRequested", '{"by":5}', False),  # not a PauseRequested
        ("PauseRequested", "not json{", False),
        ("NoSuchEvent", "{}", False),
        # Valid by its schema but past the store's 64-bit integers (red team round 10, s24): it
        # failed every later append (a pause, the driver's batches) until deleted by hand.
        (
            "ModelExported",
            f'{{"checkpoint":"c","step":{10**26},"which":"best","out":"/x","layout":"full"}}',
            False,
        ),
    ],
)
def test_a_forged_or_malformed_queued_row_is_refused_and_never_signed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, type_: str, payload: str, keyed: bool
) -> None:
    log = _log(tmp_path, monkeypatch, keyed)
    log.append("r", [_asked(0)], 0)
    _insert_request(tmp_path, "r", type_, payload, mac="00" * 32 if keyed else None)
    requests.queue_for(log.engine, log.retry, "r", [_asked(1)], queued_by="t", key=log.key)
    rows = log.append("r", [_asked(2)], 1, drain_requests=True)
    assert [r.event for r in rows] == [_asked(2), _asked(1)]  # the genuine ones, in order
    assert requests.pending_for(log.engine, "r").queued == 0  # the refused row is not taken again
    assert log.verify("r").ok and log.verify("r").n_events == 3


def test_a_request_mac_covers_its_payload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = _log(tmp_path, monkeypatch, keyed=True)
    log.append("r", [_asked(0)], 0)
    requests.queue_for(log.engine, log.retry, "r", [_asked(1)], queued_by="t", key=log.key)
    with sqlite3.connect(tmp_path / "events.db") as db:
        db.execute('UPDATE run_requests SET payload = \'{"by":"mallory","reason":""}\'')
    assert log.append("r", [], 1, drain_requests=True) == []


@pytest.mark.parametrize("keyed", [False, True])
@pytest.mark.parametrize(
    ("parent", "seq"), [("ghost-run", -3), ("p", 0), ("ghost-run", -1), ("p", "abc"), ("p", 1.5)]
)
def test_verify_refuses_a_branch_pointer_to_no_seq(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool, parent: str, seq: int
) -> None:
    """It said "hash chain intact (... seqs 1..-3 shared with run ghost-run)"."""
    log = _log(tmp_path, monkeypatch, keyed)
    log.append("p", [_asked(0), _asked(1)], 0)
    log.append("r", [_asked(0), _asked(1), _asked(2)], 0)
    assert log.verify("r").ok
    with sqlite3.connect(tmp_path / "events.db") as db:
        db.execute("INSERT INTO run_parents VALUES ('r', ?, ?)", (parent, seq))
    with pytest.raises(
        IntegrityError, match=f"branch pointer of run r .*run {parent} at seq {seq!r}"
    ):
        log.verify("r")
    with pytest.raises(IntegrityError, match=f"run r .*at seq {seq!r}"):  # a read (red team s23)
        list(log.read("r", types=["PauseRequested"]))


@pytest.mark.parametrize(("parent", "seq"), [("ghost-run", 1), ("p", 2), ("p", 9)])
def test_verify_refuses_a_branch_pointer_its_rows_do_not_bear_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parent: str, seq: int
) -> None:
    log = _log(tmp_path, monkeypatch, keyed=True)
    log.append("p", [_asked(0), _asked(1)], 0)
    log.append("r", [_asked(0), _asked(1), _asked(2)], 0)
    with sqlite3.connect(tmp_path / "events.db") as db:
        db.execute("INSERT INTO run_parents VALUES ('r', ?, ?)", (parent, seq))
    # Named as the pointer, by verify and every read alike (red team log27: "hash chain broken at
    # seq 3: the parent's history was changed" named an intact row of r and blamed the parent).
    said = (
        rf"branch pointer of run r \(run_parents\) says it branched from run {parent} at seq {seq}"
    )
    for refused in (lambda: log.verify("r"), lambda: list(log.read("r", types=["PauseRequested"]))):
        with pytest.raises(
            IntegrityError, match=said + ", but the run has rows of its own from seq 1"
        ):
            refused()


def test_a_real_branch_pointer_verifies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = _log(tmp_path, monkeypatch, keyed=True)
    log.append("p", [_asked(0), _asked(1)], 0)
    log.branch("p", "b", 1, [_asked(5)])
    report = log.verify("b")
    assert report.ok and report.n_events == 2


@pytest.mark.parametrize("keyed", [False, True])
def test_a_forged_batch_boundary_inside_a_batch_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool
) -> None:
    log = _log(tmp_path, monkeypatch, keyed)
    log.append("r", [_asked(0)], 0)
    log.append("r", [_asked(1), _asked(2)], 1)  # one batch: seqs 2..3
    assert log.cut_at("r", 2).seq == 1 and log.batch_ends("r") == [1, 3]
    with sqlite3.connect(tmp_path / "events.db") as db:
        db.execute("INSERT INTO batches (run_id, last_seq, first_seq) VALUES ('r', 2, 2)")
    with pytest.raises(CutError, match="boundary recorded at seq 2 .*(overlaps|not signed)"):
        log.cut_at("r", 2)
    with pytest.raises(CutError, match="seq 2"):
        log.batch_ends("r")


def test_with_a_key_a_batch_split_in_two_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real row deleted and two put in its place: no overlap left, but no MAC either."""
    log = _log(tmp_path, monkeypatch, keyed=True)
    log.append("r", [_asked(0)], 0)
    log.append("r", [_asked(1), _asked(2)], 1)
    log.append("r", [_asked(3)], 3)
    assert log.cut_at("r", 3).seq == 3 and log.batch_ends("r") == [1, 3, 4]
    with sqlite3.connect(tmp_path / "events.db") as db:
        db.execute("DELETE FROM batches WHERE last_seq = 3")
        db.execute(
            "INSERT INTO batches (run_id, last_seq, first_seq) VALUES ('r', 2, 2), ('r', 3, 3)"
        )
    with pytest.raises(CutError, match="seq 2 .*not signed with the chain key"):
        log.cut_at("r", 2)
    with pytest.raises(CutError, match="not signed with the chain key"):
        log.batch_ends("r")
    # an export carries only the signed ones (an import would sign the others anew)
    assert log.batch_ends("r", cut=False) == [1, 4]
    assert log.verify("r").ok  # the rows themselves are untouched


def test_a_batch_mac_covers_its_span(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = _log(tmp_path, monkeypatch, keyed=True)
    log.append("r", [_asked(0)], 0)
    log.append("r", [_asked(1), _asked(2)], 1)
    with sqlite3.connect(tmp_path / "events.db") as db:  # a signed 1..1 moved to 1..2
        db.execute("UPDATE batches SET last_seq = 2 WHERE last_seq = 1")
        db.execute("UPDATE batches SET first_seq = 3 WHERE last_seq = 3")
    with pytest.raises(CutError, match="seq 2 .*not signed"):
        log.cut_at("r", 2)


def test_a_store_from_before_the_mac_columns_opens_and_gains_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _log(tmp_path, monkeypatch, keyed=False)
    log.append("r", [_asked(0)], 0)
    log.close()
    with sqlite3.connect(tmp_path / "events.db") as db:
        db.execute("ALTER TABLE batches DROP COLUMN mac")
        db.execute("ALTER TABLE run_requests DROP COLUMN mac")
    log = EventLog(tmp_path / "events.db")
    requests.queue_for(log.engine, log.retry, "r", [_asked(1)], queued_by="t")
    assert [r.seq for r in log.append("r", [_asked(2)], 1, drain_requests=True)] == [2, 3]
    assert log.cut_at("r", 1).seq == 1 and log.batch_ends("r") == [1, 3]


def test_a_garbled_batch_boundary_is_refused_as_garbled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team round 10: text seqs in a boundary row made a cut say "the run has no such seq"
    of a seq the run has."""
    log = _log(tmp_path, monkeypatch, keyed=False)
    log.append("r", [_asked(0)], 0)
    log.append("r", [_asked(1), _asked(2)], 1)
    with sqlite3.connect(tmp_path / "events.db") as db:
        db.execute("UPDATE batches SET first_seq = 'abc', last_seq = 'xyz' WHERE first_seq = 2")
    with pytest.raises(CutError, match=r"batch boundary row \(table batches\) .*'abc'.* garbled"):
        log.cut_at("r", 2)
