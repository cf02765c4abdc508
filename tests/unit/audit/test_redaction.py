"""Secrets never reach a log file or the event log: API keys are redacted from both."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator import logging as rlvr_logging
from orchestrator.config import RunConfig
from orchestrator.driver.commands import start_run
from orchestrator.logging import redact
from store.log import EventLog

LIVE_KEY = "sk-live-abcdef123456"
OPENAI_KEY = "sk-proj-Zq81xYb2Lm0PqRst4UvWx9"


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "run" / "driver.jsonl"
    rlvr_logging.configure(level="INFO", json_file=path, force_json=True)
    yield path
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    rlvr_logging.configure(level="WARNING")


def test_api_keys_never_reach_the_log_file(log_file: Path) -> None:
    logger = rlvr_logging.get_logger("rlvr.test")
    logger.info("judge configured", api_key=LIVE_KEY, model="gpt-5-mini")
    logger.info(f"judge call failed: 401 for key {OPENAI_KEY} (Authorization: Bearer {OPENAI_KEY})")
    logger.warning("retrying", request={"headers": {"Authorization": f"Bearer {LIVE_KEY}"}})
    logging.getLogger("openai").warning("stdlib record with api_key=%s", LIVE_KEY)
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = log_file.read_text(encoding="utf-8")
    assert LIVE_KEY not in text and OPENAI_KEY not in text
    assert "sk-live" not in text and "sk-proj" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["event"].split(":")[0] for line in lines][:2] == [
        "judge configured",
        "judge call failed",
    ]
    assert lines[0]["api_key"] == "***" and lines[0]["model"] == "gpt-5-mini"


def test_a_run_started_config_holds_no_key(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    config = RunConfig(run_name="keys", wandb_name=f"run with {OPENAI_KEY}")
    run_id, [stored] = start_run(
        log, config, overrides=[f"judge.api_key={LIVE_KEY}", "wandb_name=plain"]
    )
    assert LIVE_KEY not in stored.payload and OPENAI_KEY not in stored.payload
    started = next(log.read(run_id)).event
    assert started.overrides == ["judge.api_key=***", "wandb_name=plain"]
    assert started.config["wandb_name"] == "run with ***"


def test_redact_keeps_what_only_looks_secret() -> None:
    config = {
        "judge": {"api_key": LIVE_KEY, "api_key_env": "OPENAI_API_KEY", "max_tokens": 512},
        "tokenizer": "tokenizer.json",
        "eos_token": "</s>",
        "hf_token": "hf_AbCdEfGhIjKlMnOpQrStUv",
        "notes": ["use password=hunter2hunter2", "max_tokens=256"],
    }
    assert redact(config) == {
        "judge": {"api_key": "***", "api_key_env": "OPENAI_API_KEY", "max_tokens": 512},
        "tokenizer": "tokenizer.json",
        "eos_token": "</s>",
        "hf_token": "***",
        "notes": ["use password=***", "max_tokens=256"],
    }


def test_a_key_inside_a_logged_exception_is_redacted(log_file: Path) -> None:
    try:
        raise RuntimeError(f"judge refused key {LIVE_KEY}")
    except RuntimeError:
        logging.getLogger("openai").exception("judge call failed")
    for handler in logging.getLogger().handlers:
        handler.flush()
    assert LIVE_KEY not in log_file.read_text(encoding="utf-8")


def test_the_console_log_shows_control_characters_as_escapes(capsys):
    # Text from outside (a store error, a library's message about a server's reply, a gate reason
    # quoting model output): an ANSI clear-screen and a forged second log line. structlog's console
    # renderer repr()s keyword values but writes the message as it is.
    hostile = "\x1b[2J\x1b[31mok\nrlvr: all gates passed\x07"
    rlvr_logging.configure(level="INFO", force_json=False)
    try:
        logging.getLogger("rlvr.store").warning("could not record %s", hostile)
        rlvr_logging.get_logger("rlvr.test").warning("gate failed", reason=hostile)
    finally:
        rlvr_logging.configure(level="WARNING")
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err, repr(err)
    assert err.count("\\x1b[2J") == 2 and "\\x07" in err, repr(err)
    assert err.count("\n") == 2, repr(err)  # one line each: the forged line stays inside
