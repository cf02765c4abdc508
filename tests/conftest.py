"""Shared fixtures: event stores on a real SQLite file and, when configured, a real PostgreSQL."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

import stages.training  # noqa: F401  (loads OpenBLAS before any test module imports mlx)
from store.log import EventLog

POSTGRES_URL = os.environ.get("RLVR_TEST_POSTGRES_URL")


def _postgres_log() -> EventLog:
    if not POSTGRES_URL:
        pytest.skip("RLVR_TEST_POSTGRES_URL is not set")
    return EventLog(POSTGRES_URL)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL for each backend the event log must honour identically."""
    if request.param == "sqlite":
        return str(tmp_path / "events.db")
    if not POSTGRES_URL:
        pytest.skip("RLVR_TEST_POSTGRES_URL is not set")
    return POSTGRES_URL


@pytest.fixture
def event_log(store_url: str):
    log = EventLog(store_url)
    yield log
    log.close()


@pytest.fixture
def run_id() -> str:
    # Unique per test, so tests sharing one PostgreSQL database never see each other's runs.
    return f"test-{uuid.uuid4().hex[:12]}"
