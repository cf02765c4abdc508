"""Runs shared by the audit tests: built once per session on a real SQLite file."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.driver.runner import Driver
from store.blobs import BlobStore
from store.log import EventLog, StoredEvent
from tests.scenario.fake_stages import FakeStages
from tests.unit.audit.chaos_log import chaos_run


def drive(tmp_path: Path, stages: FakeStages) -> tuple[EventLog, str]:
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(log_path=str(tmp_path))
    run_id, _ = start_run(log, config)
    Driver(
        log, run_id, config, stages.registry(), run_dir=tmp_path / run_id,
        blobs=BlobStore(tmp_path / "blobs"),
    ).run()  # fmt: skip
    return log, run_id


@pytest.fixture(scope="session")
def loose_verifier_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[EventLog, str]:
    """Stage 3's gate fails: the verifier accepted 20% of known-wrong answers."""
    return drive(tmp_path_factory.mktemp("loose"), FakeStages(false_positive_rate=0.2))


@pytest.fixture(scope="session")
def chaos(tmp_path_factory: pytest.TempPathFactory) -> tuple[EventLog, str]:
    return chaos_run(tmp_path_factory.mktemp("chaos"))


@pytest.fixture(scope="session")
def chaos_events(chaos: tuple[EventLog, str]) -> list[StoredEvent]:
    log, run_id = chaos
    return list(log.read(run_id))
