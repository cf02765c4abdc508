"""Reading task files: JSONL and JSON-array items with their line numbers, and helpers for a
family's row parser (required and optional fields, a `Task` whose validation errors name the
file, line and field)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from stages.tasks.types import Task, TaskFormatError
from store.text_files import NotUTF8Error, jsonl_lines, read_utf8

DECODER = json.JSONDecoder(strict=False)
RowParser = Callable[[str, int, int, Any], Task]
TOO_DEEP = "invalid JSON: nested too deeply (arrays or objects inside each other)"


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def json_array_items(path: str, text: str) -> Iterator[tuple[int, Any]]:
    """Yield (line, item) for each element of a top-level JSON array, tolerating raw tabs."""
    pos = len(text) - len(text.lstrip())
    if not text[pos : pos + 1] == "[":
        raise TaskFormatError(path, _line_of(text, pos), None, "expected a JSON array of tasks")
    pos += 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text):
            raise TaskFormatError(path, _line_of(text, pos), None, "unterminated JSON array")
        if text[pos] == "]":
            return
        try:
            item, end = DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise TaskFormatError(path, e.lineno, None, f"invalid JSON: {e.msg}") from e
        except RecursionError as e:  # the decoder recurses per level of nesting
            raise TaskFormatError(path, _line_of(text, pos), None, TOO_DEEP) from e
        yield _line_of(text, pos), item
        pos = end


def jsonl_items(path: str, text: str) -> Iterator[tuple[int, Any]]:
    for number, line in enumerate(jsonl_lines(text), start=1):
        if not line.strip():
            continue
        try:
            item = DECODER.decode(line)
        except json.JSONDecodeError as e:
            raise TaskFormatError(path, number, None, f"invalid JSON: {e.msg}") from e
        except RecursionError as e:
            raise TaskFormatError(path, number, None, TOO_DEEP) from e
        yield number, item


def read_text(path: Path) -> str:
    try:
        return read_utf8(path)
    except OSError as e:
        raise TaskFormatError(str(path), None, None, f"cannot read: {e.strerror}") from e
    except NotUTF8Error as e:
        raise TaskFormatError(str(path), e.line, None, "not UTF-8 text") from e


def item_lines(path: Path) -> list[int]:
    """The line each item (task row) of a JSONL or JSON-array file starts on, in order."""
    text = read_text(path)
    items = json_array_items if text.lstrip().startswith("[") else jsonl_items
    return [line for line, _ in items(str(path), text)]


def unique(path: str, tasks: list[Task]) -> list[Task]:
    seen: set[str] = set()
    for task in tasks:
        if task.task_id in seen:
            raise TaskFormatError(path, None, "task_id", f"duplicate id {task.task_id!r}")
        seen.add(task.task_id)
    if not tasks:
        raise TaskFormatError(path, None, None, "no tasks in file")
    return tasks


def read_jsonl(path: Path, parse: RowParser) -> list[Task]:
    """Every line of a JSONL task file through `parse`; ids unique, at least one task."""
    items = jsonl_items(str(path), read_text(path))
    return unique(
        str(path), [parse(str(path), line, i, obj) for i, (line, obj) in enumerate(items)]
    )


def read_json_array(path: Path, parse: RowParser) -> list[Task]:
    """Every item of a JSON-array task file through `parse`; ids unique, at least one task."""
    items = json_array_items(str(path), read_text(path))
    return unique(
        str(path), [parse(str(path), line, i, obj) for i, (line, obj) in enumerate(items)]
    )


def require(path: str, line: int, obj: Any, field: str, kind: type | tuple[type, ...] = str) -> Any:
    if not isinstance(obj, dict):
        raise TaskFormatError(path, line, None, f"expected an object, got {type(obj).__name__}")
    if field not in obj:
        raise TaskFormatError(path, line, field, "missing")
    value = obj[field]
    if not isinstance(value, kind) or (isinstance(value, str) and not value.strip()):
        raise TaskFormatError(path, line, field, f"expected a non-empty {kind}, got {value!r:.60}")
    return value


def optional_text(path: str, line: int, obj: dict, field: str) -> str | None:
    """A known-good response (code `solution`, rubric `reference`): the embedded model's SFT
    demonstration and stage 2's reference; optional."""
    value = obj.get(field)
    if value is not None and not isinstance(value, str):
        raise TaskFormatError(path, line, field, f"expected a string, got {value!r:.60}")
    return value or None


def optional_int(path: str, line: int, obj: dict, field: str, default: int, label: str = "") -> int:
    """A non-negative integer field (`difficulty`, a paragraph's `idx`): no string or float is
    taken for one, and `null` means the default."""
    value = obj.get(field)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TaskFormatError(
            path, line, label or field, f"expected a non-negative integer, got {value!r:.60}"
        )
    return value


def optional_bool(path: str, line: int, obj: dict, field: str, label: str = "") -> bool:
    """A true/false field (`is_supporting`): the string "false" is not taken for true."""
    value = obj.get(field, False)
    if not isinstance(value, bool):
        raise TaskFormatError(
            path, line, label or field, f"expected true or false, got {value!r:.60}"
        )
    return value


def make_task(path: str, line: int, **fields: Any) -> Task:
    try:
        return Task(**fields)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise TaskFormatError(path, line, field, err["msg"]) from e
