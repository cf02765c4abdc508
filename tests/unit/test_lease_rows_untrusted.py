"""The lease table sits outside the chain and is renewed in place (issue 28, red team round 10,
s01-s04, s21, s26): a row no driver wrote (a garbled or zone-less expiry, an owner on this host
whose pid is no pid) is reported as damaged, naming the run and the table, by every reader: a
pause or resume refuses with that line, `rlvr status` lists the run as unreadable beside the
others, the console marks it in its list and answers its actions with a 409, never a 500."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
import sqlalchemy as sa

from orchestrator import actions
from orchestrator.driver.lease import holder_is_dead
from store.leases import LeaseTable, LeaseUnreadable, OwnerUnreadable
from store.log import EventLog
from tests.tampering import synthetic_run

HERE = socket.gethostname()
LIVE = "2099-01-01T00:00:00+00:00"
DAMAGED = [
    (f"{HERE}:1234:ab", "garbage-date", "expires_at 'garbage-date'"),
    (f"{HERE}:1234:ab", "2099-01-01T00:00:00", "with a time zone"),
    (f"{HERE}:99999999999999999999999:ab", LIVE, "no process id"),
    (f"{HERE}:²:ab", LIVE, "no process id"),
    (f"{HERE}:-5:ab", LIVE, "no process id"),
    (f"{HERE}:pid:ab", LIVE, "no process id"),
]


def _store(tmp_path: Path, owner: str, expires: str) -> EventLog:
    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, "victim", steps=3)
    synthetic_run(log, "healthy", steps=3)
    LeaseTable(log)
    with log.engine.begin() as conn:
        conn.execute(
            sa.text("INSERT INTO leases VALUES ('victim', :o, :e, '2026-01-01T00:00:00+00:00')"),
            {"o": owner, "e": expires},
        )
    return log


@pytest.mark.parametrize(("owner", "expires", "why"), DAMAGED)
def test_a_damaged_lease_row_is_refused_naming_run_and_table(
    tmp_path: Path, owner: str, expires: str, why: str
) -> None:
    log = _store(tmp_path, owner, expires)
    for attempt in (
        lambda: LeaseTable(log).acquire("victim", "me:1:aa", 30, holder_is_dead),
        lambda: actions.request_pause(log, "victim", "why not", by="test"),
        lambda: actions.start_resume(log, "victim"),
    ):
        with pytest.raises(LeaseUnreadable, match=why) as refused:
            attempt()
        assert "run victim: its lease row (table leases) is unreadable" in str(refused.value)
        assert "delete it" in str(refused.value)
    assert LeaseTable(log).get("victim").owner == owner  # neither honoured nor taken over


def test_an_owner_on_another_host_is_waited_for_not_parsed() -> None:
    assert holder_is_dead("elsewhere:99999999999999999999999:ab") is False
    with pytest.raises(OwnerUnreadable):
        holder_is_dead(f"{HERE}:{2**22 + 1}:ab")  # past any kernel's pid_max


def test_status_lists_the_damaged_run_as_unreadable_and_the_others(tmp_path: Path) -> None:
    from orchestrator.cli.status_command import _rows

    log = _store(tmp_path, f"{HERE}:1234:ab", "garbage")
    rows = {row["run_id"]: row for row in _rows(log, show_all=True)}
    assert rows["victim"]["state"] == "unreadable"
    assert "table leases" in rows["victim"]["error"]
    assert rows["healthy"]["state"] != "unreadable"


@pytest.mark.parametrize(("owner", "expires", "why"), [DAMAGED[0], DAMAGED[2]])
def test_the_console_marks_the_damaged_run_and_answers_its_actions_409(
    tmp_path: Path, owner: str, expires: str, why: str
) -> None:
    from tests.unit.console.serve import serving

    log = _store(tmp_path, owner, expires)
    with serving(log) as served, served.client() as client:
        client.get("/", params={"token": served.token})
        listed = client.get("/api/runs")
        headers = {"X-Console-Token": served.token, "Origin": served.base}
        answers = [
            client.post(f"/api/actions/{name}", content=json.dumps({"run_id": "victim"}),
                        headers={**headers, "Content-Type": "application/json"})
            for name in ("pause", "resume")
        ]  # fmt: skip
    assert listed.status_code == 200, listed.text
    runs = {row["run_id"]: row for row in listed.json()["runs"]}
    assert runs["healthy"]["state"] != "unreadable"
    if expires != LIVE:  # the list reads the expiry, not the owner's pid
        assert runs["victim"]["state"] == "unreadable"
    for answer in answers:
        assert answer.status_code == 409, answer.text
        assert "table leases" in answer.json()["error"] and why in answer.json()["error"]
