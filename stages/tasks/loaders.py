"""Task file loaders. Every malformed file fails with a `TaskFormatError` naming file, line and field.

Formats: rubric JSON (tinker-cookbook rlvr: a list of objects with `task_id`, `prompt` and keys
`"rubric - N. criterion"`; real files hold unescaped tabs inside strings, hence `strict=False`),
JSONL math (`prompt`, `answer`), JSONL QA in MuSiQue form (`question`, `answer`, `answer_aliases`,
`paragraphs`), JSONL code (`prompt`, `tests`), and `generate:` specs for the built-in generators.
Code rows may carry a `solution` and rubric items a `reference` response: kept as the task's
`answer` (a known-good response for stage 2 and the embedded model's SFT).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from pydantic import ValidationError

from stages.tasks.generators import generate_arithmetic, generate_reversal
from stages.tasks.types import Paragraph, Task, TaskFormatError

_RUBRIC_KEY = re.compile(r"^rubric\s*-\s*(\d+)\.\s*criterion$")
_HOPS = re.compile(r"^(\d+)hop")
_DECODER = json.JSONDecoder(strict=False)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _json_array_items(path: str, text: str) -> Iterator[tuple[int, Any]]:
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
            item, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise TaskFormatError(path, e.lineno, None, f"invalid JSON: {e.msg}") from e
        yield _line_of(text, pos), item
        pos = end


def _jsonl_items(path: str, text: str) -> Iterator[tuple[int, Any]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, _DECODER.decode(line)
        except json.JSONDecodeError as e:
            raise TaskFormatError(path, number, None, f"invalid JSON: {e.msg}") from e


def _require(
    path: str, line: int, obj: Any, field: str, kind: type | tuple[type, ...] = str
) -> Any:
    if not isinstance(obj, dict):
        raise TaskFormatError(path, line, None, f"expected an object, got {type(obj).__name__}")
    if field not in obj:
        raise TaskFormatError(path, line, field, "missing")
    value = obj[field]
    if not isinstance(value, kind) or (isinstance(value, str) and not value.strip()):
        raise TaskFormatError(path, line, field, f"expected a non-empty {kind}, got {value!r:.60}")
    return value


def _optional_text(path: str, line: int, obj: dict, field: str) -> str | None:
    """A known-good response (code `solution`, rubric `reference`): the embedded model's SFT
    demonstration and stage 2's reference; optional."""
    value = obj.get(field)
    if value is not None and not isinstance(value, str):
        raise TaskFormatError(path, line, field, f"expected a string, got {value!r:.60}")
    return value or None


def _task(path: str, line: int, **fields: Any) -> Task:
    try:
        return Task(**fields)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise TaskFormatError(path, line, field, err["msg"]) from e


def _rubric_task(path: str, line: int, i: int, obj: Any) -> Task:
    prompt = _require(path, line, obj, "prompt")
    numbered = []
    for key, value in obj.items():
        m = _RUBRIC_KEY.match(key.strip())
        if m:
            if not isinstance(value, str):
                raise TaskFormatError(path, line, key, f"expected a string, got {value!r:.60}")
            if value.strip():
                numbered.append((int(m.group(1)), value.strip()))
    if not numbered:
        raise TaskFormatError(path, line, "rubric - N. criterion", "no rubric keys")
    task_id = str(obj.get("task_id") or f"{Path(path).stem}-{i}")
    return _task(
        path,
        line,
        task_id=task_id,
        family="rubric",
        prompt=prompt,
        rubrics=[text for _, text in sorted(numbered)],
        category=str(obj.get("category", "")),
        answer=_optional_text(path, line, obj, "reference"),
    )


def _math_task(path: str, line: int, i: int, obj: Any) -> Task:
    prompt = _require(path, line, obj, "prompt")
    answer = _require(path, line, obj, "answer", (str, int, float))
    return _task(
        path,
        line,
        task_id=str(obj.get("task_id", f"{Path(path).stem}-{i}")),
        family="math",
        prompt=prompt,
        answer=str(answer),
        category=str(obj.get("category", "")),
        difficulty=int(obj.get("difficulty", 0) or 0),
    )


def _qa_task(path: str, line: int, i: int, obj: Any) -> Task:
    question = _require(path, line, obj, "question")
    answer = _require(path, line, obj, "answer")
    aliases = obj.get("answer_aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise TaskFormatError(path, line, "answer_aliases", "expected a list of strings")
    paragraphs = []
    for j, p in enumerate(obj.get("paragraphs", [])):
        if not isinstance(p, dict) or not isinstance(p.get("paragraph_text", p.get("text")), str):
            raise TaskFormatError(
                path, line, f"paragraphs[{j}].paragraph_text", "missing or not a string"
            )
        paragraphs.append(
            Paragraph(
                idx=int(p.get("idx", j)),
                title=str(p.get("title", "")),
                text=p.get("paragraph_text", p.get("text")),
                is_supporting=bool(p.get("is_supporting", False)),
            )
        )
    task_id = str(obj.get("id", obj.get("task_id", f"{Path(path).stem}-{i}")))
    hops_match = _HOPS.match(task_id)
    hops = (
        int(hops_match.group(1))
        if hops_match
        else (
            len(obj["question_decomposition"])
            if isinstance(obj.get("question_decomposition"), list)
            else sum(p.is_supporting for p in paragraphs) or None
        )
    )
    return _task(
        path,
        line,
        task_id=task_id,
        family="qa",
        prompt=question,
        answer=answer,
        aliases=aliases,
        paragraphs=paragraphs,
        num_hops=hops,
        category=f"{hops}hop" if hops else "",
    )


def _code_task(path: str, line: int, i: int, obj: Any) -> Task:
    prompt = _require(path, line, obj, "prompt")
    tests = _require(path, line, obj, "tests", (str, list))
    if isinstance(tests, list):
        if not all(isinstance(t, str) for t in tests):
            raise TaskFormatError(path, line, "tests", "expected a string or a list of strings")
        tests = "\n".join(tests)
    solution = _optional_text(path, line, obj, "solution")
    return _task(
        path,
        line,
        task_id=str(obj.get("task_id", f"{Path(path).stem}-{i}")),
        family="code",
        prompt=prompt,
        tests=tests,
        category=str(obj.get("category", "")),
        answer=solution,
        metadata={"solution": solution} if solution else {},
    )


_ROW_PARSERS: dict[str, Callable[[str, int, int, Any], Task]] = {
    "rubric": _rubric_task,
    "math": _math_task,
    "qa": _qa_task,
    "code": _code_task,
}


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise TaskFormatError(str(path), None, None, f"cannot read: {e.strerror}") from e
    except UnicodeDecodeError as e:
        raise TaskFormatError(str(path), None, None, "not UTF-8 text") from e


def load_rubric_json(path: str | Path) -> list[Task]:
    """A tinker-cookbook rubric dataset: a JSON array of {task_id, prompt, "rubric - N. criterion"}."""
    p = Path(path)
    items = _json_array_items(str(p), _read(p))
    return _unique(
        str(p), [_rubric_task(str(p), line, i, obj) for i, (line, obj) in enumerate(items)]
    )


def load_jsonl(path: str | Path, family: str) -> list[Task]:
    """A JSONL file of one family: math, qa, code (or rubric objects, one per line)."""
    if family not in _ROW_PARSERS:
        raise ValueError(f"family must be one of {sorted(_ROW_PARSERS)} for a file, got {family!r}")
    p = Path(path)
    parse = _ROW_PARSERS[family]
    tasks = [
        parse(str(p), line, i, obj) for i, (line, obj) in enumerate(_jsonl_items(str(p), _read(p)))
    ]
    return _unique(str(p), tasks)


def _unique(path: str, tasks: list[Task]) -> list[Task]:
    seen: set[str] = set()
    for task in tasks:
        if task.task_id in seen:
            raise TaskFormatError(path, None, "task_id", f"duplicate id {task.task_id!r}")
        seen.add(task.task_id)
    if not tasks:
        raise TaskFormatError(path, None, None, "no tasks in file")
    return tasks


def _sniff_family(path: Path) -> str:
    first = next((line for line in _read(path).splitlines() if line.strip()), "")
    try:
        keys = set(_DECODER.decode(first))
    except (json.JSONDecodeError, TypeError) as e:
        raise TaskFormatError(str(path), 1, None, "cannot tell the task family: pass family") from e
    for family, needed in (("qa", {"question"}), ("code", {"tests"}), ("math", {"answer"})):
        if needed <= keys:
            return family
    if any(_RUBRIC_KEY.match(k) for k in keys):
        return "rubric"
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
        if name == "arithmetic":
            n = params.get("n")
            return generate_arithmetic(
                int(params.get("difficulty", 2)), int(n) if n else None, int(params.get("seed", 0))
            )
        if name == "reverse":
            return generate_reversal(params.get("template", "rev {s}="))
        raise ValueError(f"unknown generator {name!r} in {spec!r}: use arithmetic or reverse")
    path = Path(spec)
    if family is None:
        family = "rubric" if path.suffix == ".json" else _sniff_family(path)
    if family == "rubric" and path.suffix == ".json":
        return load_rubric_json(path)
    return load_jsonl(path, family)
