"""structlog, configured once: a readable console on a TTY, JSON lines otherwise, plus a JSON-lines
file in the run directory. `run_id`, `stage` and `step` are bound through context variables.

On a terminal the lines go through the console the progress bars use (stages/progress.py), so
rich prints them above a live bar instead of through it; the run id, printed once when a run
starts, is left off them (the JSON lines keep it), and a line repeated as it stands is collapsed
into one "repeated N times" note."""

from __future__ import annotations

import contextlib
import logging
import re
import sys
from pathlib import Path
from typing import Any, TextIO

import structlog

from orchestrator.terminal import visible
from store.text_files import open_appending

_configured = False
_SECRET_KEYS = re.compile(
    r"(api[_-]?key|apikey|access[_-]?key|private[_-]?key|token|secret|password|passwd|"
    r"authorization|credential|cookie)",
    re.IGNORECASE,
)
# Names that look secret but hold none: where a key lives (`api_key_env`), token counts, tokenizers.
_NOT_SECRET_KEYS = re.compile(
    r"(_env|_env_var|_path|_file|_count|_per_s|tokens|tokenizer\w*|"
    r"(eos|bos|pad|unk|sep|cls|mask)_token(_id)?)$",
    re.IGNORECASE,
)
_SECRET_VALUES = re.compile(
    r"\b(sk-[A-Za-z0-9_-]{8,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|"
    r"github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|"
    r"AIza[0-9A-Za-z_-]{30,})"
)
# `api_key=...`, `"token": "..."`, `Authorization: Bearer ...` inside free text.
_SECRET_PAIRS = re.compile(
    r"((?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret|password|passwd|token)"
    r"[\"']?\s*[=:]\s*[\"']?)([^\s\"',;&}]{4,})",
    re.IGNORECASE,
)
_BEARER = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)


def _secret_key(key: Any) -> bool:
    name = str(key)
    return bool(_SECRET_KEYS.search(name)) and not _NOT_SECRET_KEYS.search(name)


def redact(value: Any) -> Any:
    """Replace anything that looks like a credential, recursively (keys by name, values by shape)."""
    if isinstance(value, dict):
        return {
            k: "***" if _secret_key(k) and isinstance(v, str) and v else redact(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(redact(v) for v in value)
    if isinstance(value, str):
        value = _SECRET_VALUES.sub("***", value)
        value = _BEARER.sub(lambda m: f"{m.group(1)} ***", value)
        return _SECRET_PAIRS.sub(lambda m: f"{m.group(1)}***", value)
    return value


def _redact_processor(_logger: Any, _name: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    return redact(event_dict)


def _console_safe(_logger: Any, _name: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """The console renderer repr()s keyword values but writes the message and a traceback as they
    are, and both can carry outside text (a store error, a library's message about a server's
    reply, an exception quoting model output): an ANSI escape in them would drive the terminal and
    a newline would forge a log line. Show their control characters as escapes (a traceback keeps
    its line breaks); JSON output escapes them itself."""
    if isinstance(event_dict.get("event"), str):
        event_dict["event"] = visible(event_dict["event"])
    if isinstance(event_dict.get("exception"), str):
        event_dict["exception"] = "\n".join(
            visible(line) for line in event_dict["exception"].split("\n")
        )
    return event_dict


def _without_run_id(_logger: Any, _name: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """On a terminal the run id is said once, when the run starts: not on every line."""
    event_dict.pop("run_id", None)
    return event_dict


class _TerminalHandler(logging.Handler):
    """Console lines through the progress bars' console (above a live bar), repeats collapsed."""

    def __init__(self) -> None:
        super().__init__()
        self._last: str | None = None
        self._repeats = 0

    @staticmethod
    def _key(record: logging.LogRecord) -> str:
        if isinstance(record.msg, dict):
            return repr(sorted((k, repr(v)) for k, v in record.msg.items() if k != "timestamp"))
        return f"{record.levelno}:{record.getMessage()}"

    def emit(self, record: logging.LogRecord) -> None:
        try:
            key = self._key(record)
            if key == self._last:
                self._repeats += 1
                return
            self._flush_repeats()
            self._last = key
            self._print(self.format(record))
        except Exception:
            self.handleError(record)

    def _print(self, text: str) -> None:
        from rich.text import Text

        from stages.progress import shared_console

        shared_console().print(Text.from_ansi(text), soft_wrap=True)

    def _flush_repeats(self) -> None:
        if self._repeats:
            times = "once more" if self._repeats == 1 else f"{self._repeats} more times"
            self._print(f"  (the line above, {times})")
            self._repeats = 0

    def flush(self) -> None:
        self._flush_repeats()

    def close(self) -> None:
        self._flush_repeats()
        super().close()


class _RunFileHandler(logging.FileHandler):
    """The run's `driver.jsonl`. A full disk is a runtime condition the driver reports (the run
    pauses with the reason): a line that cannot be written is dropped, with one notice on stderr,
    instead of logging's traceback per line."""

    _warned = False

    def _open(self) -> TextIO:
        # A FIFO put at driver.jsonl: refused (one line), not an open that waits for a reader.
        return open_appending(self.baseFilename, self.encoding or "utf-8")

    def handleError(self, record: logging.LogRecord) -> None:
        if not self._warned:
            self._warned = True
            error = sys.exc_info()[1]
            sys.stderr.write(f"warning: cannot write {self.baseFilename}: {error}; lines dropped\n")


LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def level_named(text: str) -> str:
    """A log level as people type it (`info`, ` warning`, `10`), as logging names it; ValueError
    for anything else (logging's own was a traceback before a command ran: red team round 28)."""
    name = text.strip().upper()
    if name.isdigit() and logging.getLevelName(int(name)) in LEVELS:
        return logging.getLevelName(int(name))
    if name not in LEVELS:
        raise ValueError(f"{text!r:.40} is not a log level (one of {', '.join(LEVELS)}, or 10..50)")
    return name


def configure(
    level: str = "INFO", json_file: Path | None = None, force_json: bool | None = None
) -> None:
    """Set up structlog and stdlib logging; call again to add the run directory's log file."""
    global _configured
    as_json = (not sys.stderr.isatty()) if force_json is None else force_json
    shared = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        # Render exceptions before redacting, so a key inside an error message is caught too.
        structlog.processors.format_exc_info,
        _redact_processor,
    ]
    handlers = [_console_handler(as_json, shared)]
    if json_file is not None:
        handlers.append(_run_file_handler(json_file, shared))
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        with contextlib.suppress(OSError):  # a full disk: what it still held is lost
            handler.close()
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    # Libraries that narrate their internals at INFO (every heartbeat, every state callback).
    for noisy in ("apscheduler", "transitions", "httpx", "openai"):
        logging.getLogger(noisy).setLevel(
            max(logging.WARNING, logging.getLevelName(level) if isinstance(level, str) else level)
        )
    if not _configured:
        structlog.configure(
            processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
            logger_factory=structlog.stdlib.LoggerFactory(),
            wrapper_class=structlog.stdlib.BoundLogger,
            cache_logger_on_first_use=True,
        )
        _configured = True


def _console_handler(as_json: bool, shared: list) -> logging.Handler:
    """stderr: JSON lines when it is not a terminal (or asked), else the terminal's rendering."""
    console: logging.Handler = logging.StreamHandler(sys.stderr) if as_json else _TerminalHandler()
    on_console = (
        [structlog.processors.JSONRenderer()]
        if as_json
        else [
            _console_safe,
            _without_run_id,
            structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty()),
        ]
    )
    console.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *on_console],
            foreign_pre_chain=shared,
        )
    )
    return console


def release_run_file() -> None:
    """Close the run directory's log file, once its drive is over (the console keeps logging to
    stderr)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, _RunFileHandler):
            root.removeHandler(handler)
            with contextlib.suppress(OSError):  # a full disk: what it still held is lost
                handler.close()


def _run_file_handler(json_file: Path, shared: list) -> logging.Handler:
    """The run directory's JSON-lines log (its folder made)."""
    json_file.parent.mkdir(parents=True, exist_ok=True)
    file_handler = _RunFileHandler(json_file, encoding="utf-8")
    file_handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processor=structlog.processors.JSONRenderer(), foreign_pre_chain=shared
        )
    )
    return file_handler


def bind(**values: Any) -> None:
    structlog.contextvars.bind_contextvars(**values)


def get_logger(name: str = "rlvr") -> structlog.stdlib.BoundLogger:
    return structlog.get_logger(name)
