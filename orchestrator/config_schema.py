"""Every config key a run takes, read off the pydantic schema itself: its section, type, default,
bounds and one line of doc. `rlvr config show` prints it, `rlvr config explain KEY` one key, and
the README's configuration reference is this module's Markdown (a test holds the two equal), so
none of them can drift from what the loader accepts.

Sections are the nested models (`grpo.sampling`, `policies.kl`, ...); the verifier, whose shape
depends on its `kind`, has one section per kind (`verifier (kind = "math")`); a list of models
(`chaos.faults`) shows its items' keys as `chaos.faults[].kind`.
"""

from __future__ import annotations

import json
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from orchestrator.config import RunConfig, load_config
from orchestrator.errors import ConfigError


@dataclass(frozen=True)
class KeyDoc:
    key: str  # dotted, as a `key=value` override or a TOML table + key names it
    section: str  # "" for the top level
    type: str
    default: str
    bounds: str  # e.g. ">= 0, <= 1"; "" when unbounded
    doc: str


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation may hold (a union, Optional, Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if get_origin(annotation) is typing.Annotated:
        return _models_in(get_args(annotation)[0])
    if get_origin(annotation) in (typing.Union, types.UnionType):
        return [m for arg in get_args(annotation) for m in _models_in(arg)]
    return []


def type_name(annotation: Any) -> str:
    """A type as a config author reads it: `int`, `float | unset`, `"fixed" | "adaptive"`."""
    origin = get_origin(annotation)
    if annotation is type(None):
        return "unset"
    if origin is typing.Annotated:
        return type_name(get_args(annotation)[0])
    if origin is Literal:
        return " | ".join(json.dumps(a) for a in get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(a) for a in get_args(annotation))
    if origin is list:
        return f"list of {type_name(get_args(annotation)[0])}"
    if origin is dict:
        key, value = get_args(annotation)
        return f"table of {type_name(key)} -> {type_name(value)}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "section"
    return getattr(annotation, "__name__", str(annotation))


def _default(info: FieldInfo) -> str:
    if info.default_factory is not None:
        value = info.default_factory()
    elif info.default is PydanticUndefined:
        return "required"
    else:
        value = info.default
    if value is None:
        return "unset"
    if isinstance(value, BaseModel):
        return "section"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value)


def _bounds(info: FieldInfo) -> str:
    parts = []
    for item in info.metadata:
        for name, symbol in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<=")):
            value = getattr(item, name, None)
            if value is not None:
                parts.append(
                    f"{symbol} {value:g}" if isinstance(value, float) else f"{symbol} {value}"
                )
    return ", ".join(parts)


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def _walk(model: type[BaseModel], prefix: str, section: str) -> list[KeyDoc]:
    keys: list[KeyDoc] = []
    nested: list[tuple[str, type[BaseModel], str]] = []
    for name, info in model.model_fields.items():
        key = f"{prefix}{name}"
        models = _models_in(info.annotation)
        item_models = (
            _models_in(get_args(info.annotation)[0]) if get_origin(info.annotation) is list else []
        )
        if len(models) == 1 and get_origin(info.annotation) is None:
            nested.append((f"{key}.", models[0], key))
            continue
        if len(models) > 1:  # a section whose shape its `kind` picks
            for choice in models:
                kind = choice.model_fields["kind"].default
                nested.append((f"{key}.", choice, f'{key} (kind = "{kind}")'))
            continue
        keys.append(
            KeyDoc(
                key,
                section,
                type_name(info.annotation),
                _default(info),
                _bounds(info),
                _one_line(info.description),
            )  # fmt: skip
        )
        if item_models:
            nested.append((f"{key}[].", item_models[0], f"{key}[]"))
    for child_prefix, child, child_section in nested:
        keys.extend(_walk(child, child_prefix, child_section))
    return keys


def schema_keys() -> list[KeyDoc]:
    """Every key of a run config, section by section (the top level first)."""
    return _walk(RunConfig, "", "")


def find_key(given: str) -> list[KeyDoc]:
    """The key(s) `given` names: a dotted key (every verifier kind that has it), or a bare name
    unique across sections (as on the command line; a GRPO setting wins a tie)."""
    keys = schema_keys()
    exact = [k for k in keys if k.key == given]
    if exact:
        return exact
    leaf = [k for k in keys if k.key.rsplit(".", 1)[-1] == given]
    grpo = [k for k in leaf if k.key.startswith("grpo.")]
    if len({k.key for k in leaf}) > 1 and len({k.key for k in grpo}) == 1:
        leaf = grpo
    if len({k.key for k in leaf}) == 1:
        return leaf
    if leaf:
        raise ConfigError(
            f"{given!r} names several keys: {', '.join(sorted({k.key for k in leaf}))}"
        )
    import difflib

    close = difflib.get_close_matches(given, [k.key for k in keys], n=3, cutoff=0.6)
    hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
    raise ConfigError(f"unknown config key {given!r}{hint}; `rlvr config show` lists them all")


def values_of(config_path: str | None, overrides: list[str]) -> dict[str, Any]:
    """The resolved value of every key of a config file (with overrides), by dotted key."""
    return flat_values(load_config(config_path, overrides).model_dump(mode="json"))


def flat_values(data: dict[str, Any]) -> dict[str, Any]:
    """A dumped config's values by dotted key (a table-valued key stays one value)."""
    flat: dict[str, Any] = {}

    def walk(node: Any, prefix: str) -> None:
        if isinstance(node, dict) and (prefix == "" or not _is_leaf_table(prefix)):
            for name, value in node.items():
                walk(value, f"{prefix}{name}.")
            return
        flat[prefix[:-1]] = node

    walk(data, "")
    return flat


def _is_leaf_table(prefix: str) -> bool:
    """Keys whose value is itself a table (reward weights, throttles): values, not sections."""
    key = prefix[:-1]
    return any(k.key == key for k in schema_keys())


def value_text(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else json.dumps(value)


def markdown() -> str:
    """The README's configuration reference: one list per section, a key a line."""
    lines: list[str] = []
    section = None
    for key in schema_keys():
        if key.section != section:
            section = key.section
            lines += ["", f"#### {f'`[{section}]`' if section else 'top level'}", ""]
        bounds = f", {key.bounds}" if key.bounds else ""
        lines.append(f"- `{key.key}` = `{key.default}` ({key.type}{bounds}): {key.doc}")
    return "\n".join(lines[1:]) + "\n"
