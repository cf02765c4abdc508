"""What a run id may be. A run id names a directory under `log_path` (checkpoints, reports, the
driver's log) and a key in the store, and an imported log brings its own: one with a path
separator, `..`, a leading dot or control characters could write outside `log_path`."""

from __future__ import annotations

import re
from pathlib import Path

from store.errors import StoreError

MAX_RUN_ID = 160
# A run name becomes the head of the run ids made from it (`NAME-YYYYmmdd-HHMMSS-xxxx`, a branch
# adds `-branch`): kept short enough that those stay within MAX_RUN_ID.
MAX_RUN_NAME = 64
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
RULE = "letters, digits, '.', '_' and '-', starting with a letter or digit, no '..'"


class InvalidRunIdError(StoreError):
    """A run id (or run name) that may not name a directory or a run."""


def name_problem(name: object, limit: int) -> str | None:
    """Why `name` may not be a run id / run name, or None when it may."""
    if not isinstance(name, str):
        return f"expected a string, got {type(name).__name__}"
    if len(name) > limit:
        return f"{len(name)} characters (at most {limit})"
    if not _NAME.fullmatch(name) or ".." in name:
        return RULE
    return None


def check_run_id(run_id: str) -> str:
    problem = name_problem(run_id, MAX_RUN_ID)
    if problem is not None:
        raise InvalidRunIdError(f"invalid run id {run_id!r:.80}: {problem}")
    return run_id


def listed_id_problem(run_id: object) -> str | None:
    """Why a run id read from the store is not one any command reads (written by SQL: a newline,
    terminal escapes, `../`), as the reason a run list gives beside it, or None."""
    problem = name_problem(run_id, MAX_RUN_ID)
    if problem is None:
        return None
    return f"invalid run id {run_id!r:.80}: {problem} (written into the store by hand?)"


def listed_text(value: object) -> object:
    """A store's text as a run list writes it: text, a number or None as it is; anything else
    (the bytes of an id or type that is not UTF-8, round 26 log 011) as its repr, which JSON
    and a terminal can carry."""
    return value if value is None or isinstance(value, str | int | float) else repr(value)


def run_path(root: Path, run_id: str) -> Path:
    """`root / run_id`, the run's directory: the id is checked first, since one read from the
    store is not trusted (a row copied under `../../x`, its chain recomputed, would name a path
    outside `root`); `InvalidRunIdError` otherwise."""
    return root / check_run_id(run_id)
