"""Multi-hop QA in MuSiQue form (`question`, `answer`, `answer_aliases`, `paragraphs`), checked
by EM/F1 with citations. Listing guesses ("Paris London") and hedges must not pass."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import stages.tasks.adversary as adversary
from stages.tasks.families.base import TaskFamily
from stages.tasks.rows import make_task, optional_bool, optional_int, require
from stages.tasks.types import (
    Paragraph,
    RecordError,
    Task,
    TaskFormatError,
    record_text,
)
from stages.verifiers.types import QAReference, VerifierError

_HOPS = re.compile(r"^(\d+)hop")


class QAFamily(TaskFamily):
    name = "qa"
    verifier_kind = "qa"
    row_keys = frozenset({"question"})
    sniff_rank = 0
    file_format = True

    def parse_row(self, path: str, line: int, index: int, obj: Any) -> Task:
        question = require(path, line, obj, "question")
        answer = require(path, line, obj, "answer")
        aliases = obj.get("answer_aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise TaskFormatError(path, line, "answer_aliases", "expected a list of strings")
        paragraphs = []
        for j, p in enumerate(obj.get("paragraphs", [])):
            if not isinstance(p, dict) or not isinstance(
                p.get("paragraph_text", p.get("text")), str
            ):
                raise TaskFormatError(
                    path, line, f"paragraphs[{j}].paragraph_text", "missing or not a string"
                )
            paragraphs.append(
                Paragraph(
                    idx=optional_int(path, line, p, "idx", j, f"paragraphs[{j}].idx"),
                    title=str(p.get("title", "")),
                    text=p.get("paragraph_text", p.get("text")),
                    is_supporting=optional_bool(
                        path, line, p, "is_supporting", f"paragraphs[{j}].is_supporting"
                    ),
                )
            )
        task_id = str(obj.get("id", obj.get("task_id", f"{Path(path).stem}-{index}")))
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
        return make_task(
            path,
            line,
            task_id=task_id,
            family=self.name,
            prompt=question,
            answer=answer,
            aliases=aliases,
            paragraphs=paragraphs,
            num_hops=hops,
            category=f"{hops}hop" if hops else "",
        )

    def reference(self, task: Task) -> QAReference:
        if task.answer is None:
            raise VerifierError(f"task {task.task_id}: a QA task needs an answer")
        return QAReference(
            answer=task.answer,
            aliases=task.aliases,
            num_hops=task.num_hops,
            supporting_ids=[p.idx for p in task.paragraphs if p.is_supporting],
        )

    def check_reference(self, record: Mapping[str, Any]) -> QAReference:
        ref = record.get("reference")
        if isinstance(ref, dict):
            try:
                return QAReference(**ref)
            except (TypeError, ValueError) as e:
                raise RecordError(f"field 'reference': {e}") from e
        aliases = record.get("aliases", record.get("answer_aliases", []))
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise RecordError("field 'aliases' must be a list of strings")
        return QAReference(answer=record_text(record, "reference"), aliases=aliases)

    def near_misses(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        answer = task.answer or ""
        if not answer:
            return []
        other = next((o for o in other_answers if o.lower() != answer.lower()), "unknown")
        return [
            ("hedge", f"{answer} or {other_answers[0] if other_answers else 'none'}"),
            ("hedge", f"{answer} {other}"),
        ]

    def known_hacks(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        return adversary.qa_wrong(task, other_answers, rng)

    def right_forms(self, task: Task) -> list[tuple[str, str]]:
        answer = task.answer or ""
        forms = [answer, answer.upper(), f"The {answer}.", f"Answer: {answer}", *task.aliases]
        return [("equivalent", f) for f in forms] + adversary.qa_right(task)


QA = QAFamily()
