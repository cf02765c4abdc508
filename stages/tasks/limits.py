"""Row length limits, checked at the door: a task file whose row is longer than
`data.max_prompt_chars` / `data.max_answer_chars`, or than the model's context in tokens, is
refused with its file and line before any stage starts (a 30,000-character answer crashed mlx
inside SFT; a 50 MB prompt exhausted the machine)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from stages.tasks.rows import item_lines
from stages.tasks.types import Task, TaskFormatError


def check_row_lengths(path: str, tasks: Sequence[Task], max_prompt: int, max_answer: int) -> None:
    """`TaskFormatError` (file, line, field) for the first row over a character limit."""
    for index, task in enumerate(tasks):
        for field, text, limit, key in (
            ("prompt", task.prompt, max_prompt, "data.max_prompt_chars"),
            ("answer", task.answer or "", max_answer, "data.max_answer_chars"),
        ):
            if len(text) > limit:
                raise TaskFormatError(
                    path, line_of_row(path, index), field,
                    f"{len(text):,} characters, over {key} = {limit:,}",
                )  # fmt: skip


def check_row_tokens(path: str, counts: Sequence[int], context: int, where: str) -> None:
    """`TaskFormatError` for the first row whose prompt and answer together take more tokens than
    the model's context (`where` says which setting or file holds it)."""
    for index, count in enumerate(counts):
        if count > context:
            raise TaskFormatError(
                path, line_of_row(path, index), None,
                f"the prompt and answer take {count:,} tokens, over the model's context of "
                f"{context:,} ({where})",
            )  # fmt: skip


def line_of_row(path: str, index: int) -> int | None:
    """The line the `index`-th row of a task file starts on (read again: only for an error)."""
    lines = item_lines(Path(path))
    return lines[index] if index < len(lines) else None
