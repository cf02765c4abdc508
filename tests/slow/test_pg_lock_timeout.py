"""Red team round 4, issue 28 (holdout h24, found by the lead): a PostgreSQL reader waited for ever
while another session held a lock on the events table. Now a wait past the backend's lock_timeout
is a lock timeout (55P03) the store retries, then one error line and a non-zero exit."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid

import pytest
import sqlalchemy as sa

from store.log import EventLog
from tests.conftest import POSTGRES_URL
from tests.tampering import synthetic_run

pytestmark = pytest.mark.slow
RLVR = [sys.executable, "-c", "from orchestrator.cli.app import main; main()"]


def test_a_reader_behind_a_held_table_lock_ends_in_one_error_line() -> None:
    if not POSTGRES_URL:
        pytest.skip("RLVR_TEST_POSTGRES_URL is not set")
    schema = f"locktest_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(POSTGRES_URL.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.begin() as conn:
        conn.execute(sa.text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in POSTGRES_URL else "?"
    url = f"{POSTGRES_URL}{sep}options=-csearch_path%3D{schema}"
    try:
        log = EventLog(url)
        synthetic_run(log, "r-locked", 5)
        log.close()
        with admin.connect() as holder:
            trans = holder.begin()
            holder.execute(sa.text(f"LOCK TABLE {schema}.events IN ACCESS EXCLUSIVE MODE"))
            started = time.monotonic()
            result = subprocess.run(
                [*RLVR, "status", "r-locked", "--store", url], capture_output=True, text=True,
                timeout=150,
            )  # fmt: skip
            waited = time.monotonic() - started
            trans.rollback()
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.returncode != 0, result
        assert lines and lines[-1].startswith("error: ") and "Traceback" not in result.stderr
        assert "lock" in lines[-1].lower(), lines
        assert waited < 120, waited
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()
