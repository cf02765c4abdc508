"""A live driver in a process of its own, for tests of what other processes do to its run: it
starts a run (fake stages) whose lease lives TTL seconds unless renewed, holds it through a wait
inside step 12, and finishes the run once told to.

Usage: python -m tests.scenario.waiting_driver DIR TTL [STORE]   (STORE: default DIR/events.db)
Writes DIR/run_id, then DIR/ready at step 12; goes on when DIR/go exists; exits 0 once the run
completed (DIR/done holds its final state).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.lifecycle import drive
from store.log import EventLog
from tests.scenario.fake_stages import FakeStages


def main(folder: Path, ttl_s: float, store: str | None = None) -> None:
    log = EventLog(store or folder / "events.db")
    config = RunConfig(log_path=str(folder), lease_ttl_s=ttl_s)
    run_id, _ = start_run(log, config)
    (folder / "run_id").write_text(run_id)

    def wait(step: int) -> None:
        if step != 12:
            return
        (folder / "ready").write_text("1")
        deadline = time.monotonic() + 300
        while not (folder / "go").exists() and time.monotonic() < deadline:
            time.sleep(0.05)

    state = drive(log, run_id, config, FakeStages(on_step=wait).registry())
    (folder / "done").write_text(state.state)


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), *sys.argv[3:4])
