"""Reading a config file: its text and TOML data, refused with the file named when a person's
file is unreadable, not UTF-8, bad TOML, nested too deeply or holding a NUL character."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from orchestrator.errors import ConfigError
from store.text_files import NotUTF8Error, read_utf8

MAX_CONFIG_BYTES = 16 << 20  # a config is a few KB; a file past this is not one (read whole)


def read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """A TOML file's text and data; `ConfigError` naming the file for what a person may hand us:
    unreadable, not UTF-8, bad syntax, nested past what the parser can follow."""
    try:
        text = read_utf8(path, MAX_CONFIG_BYTES)
    except NotUTF8Error as e:
        raise ConfigError(str(e)) from e
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from e
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: TOML syntax error: {e}") from e
    except ValueError as e:  # an integer past Python's 4,300-digit conversion limit
        raise ConfigError(f"{path}: {e}") from e
    except RecursionError as e:  # tomllib recurses per level of nesting
        raise ConfigError(f"{path}: nested too deeply (arrays or tables inside each other)") from e
    # Dotted table headers nest without recursing in the parser ([a.a.a...]); what reads the
    # data afterwards walks it level by level.
    problem = shape_problem(data)
    if problem is not None:
        raise ConfigError(f"{path}: {problem}")
    return text, data


MAX_CONFIG_DEPTH = 32  # the schema nests 3 levels; free sections (data generators) a few more


def shape_problem(data: dict[str, Any]) -> str | None:
    """Nesting past MAX_CONFIG_DEPTH, or a NUL character in a key or a string (a path with one
    cannot be opened); walked with an explicit stack."""
    stack: list[tuple[tuple[str, ...], Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if len(path) > MAX_CONFIG_DEPTH:
            return f"nested too deeply ({'.'.join(path[:4])}... is {len(path)} levels down)"
        if isinstance(value, str) and "\x00" in value:
            return f"{'.'.join(path) or 'a value'}: a NUL character in a string"
        if isinstance(value, dict):
            for key, child in value.items():
                if "\x00" in key:
                    return f"{'.'.join(path) or 'the top level'}: a NUL character in a key"
                stack.append(((*path, key), child))
        elif isinstance(value, list):
            stack.extend(((*path, str(i)), child) for i, child in enumerate(value))
    return None
