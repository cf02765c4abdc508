"""Task file loaders. Every malformed file fails with a `TaskFormatError` naming file, line and field.

Formats: JSONL with one task per line, parsed by its family's `parse_row` (see
`stages.tasks.families`: math, QA in MuSiQue form, code, rubric objects), a rubric JSON array
(tinker-cookbook rlvr; real files hold unescaped tabs inside strings, hence `strict=False`), and
`generate:NAME?...` specs for a family's generator (arithmetic, reverse).
Code rows may carry a `solution` and rubric items a `reference` response: kept as the task's
`answer` (a known-good response for stage 2 and the embedded model's SFT).
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl

from stages.tasks.families import FAMILIES, TaskFamily
from stages.tasks.rows import DECODER, read_json_array, read_jsonl, read_text
from stages.tasks.types import Task, TaskFormatError


def load_rubric_json(path: str | Path) -> list[Task]:
    """A tinker-cookbook rubric dataset: a JSON array of {task_id, prompt, "rubric - N. criterion"}."""
    return read_json_array(Path(path), FAMILIES["rubric"].parse_row)


def load_jsonl(path: str | Path, family: str) -> list[Task]:
    """A JSONL file of one family: math, qa, code (or rubric objects, one per line)."""
    readable = sorted(name for name, f in FAMILIES.items() if f.file_format)
    if family not in readable:
        raise ValueError(f"family must be one of {readable} for a file, got {family!r}")
    return read_jsonl(Path(path), FAMILIES[family].parse_row)


def _sniff_family(path: Path) -> str:
    first = next((line for line in read_text(path).splitlines() if line.strip()), "")
    try:
        keys = set(DECODER.decode(first))
    except (json.JSONDecodeError, TypeError) as e:
        raise TaskFormatError(str(path), 1, None, "cannot tell the task family: pass family") from e
    for candidate in sorted(FAMILIES.values(), key=lambda f: f.sniff_rank):
        if candidate.file_format and candidate.claims_row(keys):
            return candidate.name
    raise TaskFormatError(
        str(path), 1, None, f"cannot tell the task family from keys {sorted(keys)}"
    )


def load_tasks(path_or_spec: str | Path, family: str | None = None) -> list[Task]:
    """Load tasks from a file, or generate them from a spec:
    `generate:arithmetic?difficulty=2[&n=500&seed=0]` or `generate:reverse[?template=rev {s}=]`."""
    spec = str(path_or_spec)
    if spec.startswith("generate:"):
        name, _, query = spec.removeprefix("generate:").partition("?")
        params = dict(parse_qsl(query, keep_blank_values=True))
        tasks = FAMILIES[name].generate(params) if name in FAMILIES else None
        if tasks is None:
            makers = sorted(
                n for n, f in FAMILIES.items() if type(f).generate is not TaskFamily.generate
            )
            raise ValueError(f"unknown generator {name!r} in {spec!r}: use {' or '.join(makers)}")
        return tasks
    path = Path(spec)
    if family is None:
        claimed = [f.name for f in FAMILIES.values() if f.claims_file(path)]
        family = claimed[0] if claimed else _sniff_family(path)
    if family not in FAMILIES or not FAMILIES[family].file_format:
        return load_jsonl(path, family)  # its error lists the families a file can hold
    return FAMILIES[family].load_file(path)
