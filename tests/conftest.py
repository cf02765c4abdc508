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
def store_marks_lock():
    """Held by a test that marks a shared PostgreSQL database as signed and clears the mark after
    (store.snapshots.StoreMark is store-wide): one such test at a time across the suite's workers,
    so one's cleanup never clears another's mark mid-test (a keyed store then looked unkeyed and
    an unkeyed fold wrote a snapshot into it; CI 2026-11-29)."""
    import fcntl
    import tempfile

    with open(Path(tempfile.gettempdir()) / "rlvr-tests-store-marks.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture
def event_log(store_url: str):
    log = EventLog(store_url)
    yield log
    log.close()


@pytest.fixture
def run_id() -> str:
    # Unique per test, so tests sharing one PostgreSQL database never see each other's runs.
    return f"test-{uuid.uuid4().hex[:12]}"


# Tests that share one session fixture across files run on one worker, which builds it once.
_SHARED_SESSION_FIXTURES = {"readme_quickstart": "readme-quickstart"}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups (`--dist loadgroup`)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test file is one xdist group, so a worker takes a whole file: its module-scoped
    fixtures (a chaos run, a trained model) are built once, as in a serial run."""
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        shared = [
            _SHARED_SESSION_FIXTURES[f]
            for f in _fixture_names(item)
            if f in _SHARED_SESSION_FIXTURES
        ]
        group = shared[0] if shared else item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group(group))


def _fixture_names(item: pytest.Item) -> list[str]:
    return list(getattr(item, "fixturenames", ()))
