"""Red team round 28 (log): faults around the chain key.
- The key file replaced or removed under a live driver (log28-011/012): the driver signed on with
  the secret it had read at start, the run "completed", and then no reader could check it. Now
  the next signature stops the driver with one error naming the key file; with the key put
  back, the run verifies and resumes to the end.
- A keyed import killed between its head and its commit (log28-021/022, SIGKILL or Ctrl-C):
  the signed head stayed, and the run that never was imported read as "deleted whole". Now the
  head is pending until the rows commit: no run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from store.errors import StoreError, UnknownRunError
from store.exports import export_lines, import_file
from store.keyed import KEY_ENV
from store.log import EventLog
from tests.scenario.fake_stages import FakeStages
from tests.scenario.test_store_outage import _driver
from tests.tampering import synthetic_run, write_key


@pytest.mark.parametrize("fault", ["replaced", "removed"], ids=["log28-011", "removed"])
def test_a_key_changed_under_a_live_driver_stops_it_and_the_run_resumes_with_the_key_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    key = write_key(tmp_path)
    monkeypatch.setenv(KEY_ENV, str(key))
    original = key.read_bytes()

    def change_key_at_step_13(step: int) -> dict:
        if step == 13:
            if fault == "removed":
                key.unlink()
            else:
                key.write_bytes(b"another secret, rotated under the driver: 0123456789")
        return {}

    log = EventLog(tmp_path / "events.db")
    run_id, _ = start_run(log, RunConfig(log_path=str(tmp_path)))
    driver = _driver(log, run_id, tmp_path, FakeStages(metrics_at=change_key_at_step_13))
    with pytest.raises(StoreError, match=f"{KEY_ENV}={key}: .*(changed|cannot read)"):
        driver.run()
    key.write_bytes(original)
    reopened = EventLog(tmp_path / "events.db")
    assert reopened.verify(run_id).ok
    last = reopened.read(run_id, from_seq=reopened.last_seq(run_id))
    assert next(iter(last)).type != "RunCompleted"
    _driver(reopened, run_id, tmp_path, FakeStages()).run()
    assert [r.type for r in reopened.read(run_id)][-1] == "RunCompleted"
    assert reopened.verify(run_id).ok


def test_a_keyed_import_stopped_before_its_commit_leaves_no_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = write_key(tmp_path)
    monkeypatch.setenv(KEY_ENV, str(key))
    source = EventLog(tmp_path / "source.db")
    synthetic_run(source, "imported", 5)
    export = tmp_path / "run.jsonl"
    export.write_text("".join(export_lines(source, "imported")))
    copy = tmp_path / "b" / "chain.key"  # heads are per key file: the other store's own copy
    copy.parent.mkdir()
    shutil.copy(key, copy)
    monkeypatch.setenv(KEY_ENV, str(copy))
    into = EventLog(tmp_path / "b" / "events.db")

    def interrupted(*_args: object) -> None:
        raise KeyboardInterrupt  # Ctrl-C while the rows are inserted; SIGKILL leaves the same

    monkeypatch.setattr(into, "_insert", interrupted)
    with pytest.raises(KeyboardInterrupt):
        import_file(into, export)
    monkeypatch.undo()
    monkeypatch.setenv(KEY_ENV, str(copy))
    reopened = EventLog(tmp_path / "b" / "events.db")
    with pytest.raises(UnknownRunError, match="no run 'imported'"):
        reopened.verify("imported")
    assert import_file(reopened, export) == 7  # and the import can be run again
    assert reopened.verify("imported").ok
