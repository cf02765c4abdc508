"""The `TaskFamily` base: everything one kind of task needs, in one class."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from stages.tasks.rows import read_jsonl
from stages.tasks.types import Candidate, Task, TaskFormatError, record_text


class TaskFamily:
    """Everything one kind of task needs: how its tasks are loaded or generated, the reference its
    verifier checks, the calibration candidates (stage 3) and the `rlvr check` input shape.
    Adding a family is one module in `stages/tasks/families/` and one `register(...)` line."""

    name: ClassVar[str]
    verifier_kind: ClassVar[str]  # math | exact | code | qa | rubric (stages.verifiers.config)
    # Keys that mark a JSONL row as this family's when no family is given; lower ranks are tried
    # first (a QA row also has an `answer`, so QA is tried before math).
    row_keys: ClassVar[frozenset[str] | None] = None
    sniff_rank: ClassVar[int] = 100
    # Whether tasks of this family can be read from a JSONL file (`parse_row`).
    file_format: ClassVar[bool] = False
    # Whether calibration offers other tasks' answers as wrong candidates.
    offers_other_answers: ClassVar[bool] = True

    # -- loading ---------------------------------------------------------------------------------
    def parse_row(self, path: str, line: int, index: int, obj: Any) -> Task:
        """One task from one row of a task file; TaskFormatError names file, line and field."""
        raise TaskFormatError(path, line, None, f"family {self.name!r} has no task-file format")

    def claims_row(self, keys: set[str]) -> bool:
        return self.row_keys is not None and self.row_keys <= keys

    def claims_file(self, path: Path) -> bool:
        """Whether a file given with no family is this family's by its name alone."""
        return False

    def load_file(self, path: Path) -> list[Task]:
        """A task file of this family: JSONL, one task per line."""
        return read_jsonl(path, self.parse_row)

    def generate(self, params: Mapping[str, str]) -> list[Task] | None:
        """Tasks made without a file (`generate:NAME?...` specs, or no `data.data_path`); None
        when the family has no generator."""
        return None

    # -- verifying -------------------------------------------------------------------------------
    def reference(self, task: Task) -> Any:
        """What the verifier checks a response against; VerifierError when the task lacks it."""
        from stages.verifiers.types import VerifierError

        if task.answer is None:
            raise VerifierError(f"task {task.task_id}: family {task.family} needs an answer")
        return task.answer

    def check_reference(self, record: Mapping[str, Any]) -> Any:
        """The reference of one `rlvr check` input line; RecordError when it is malformed."""
        return record_text(record, "reference")

    # -- reward components -----------------------------------------------------------------------
    def reward_components(self) -> dict[str, Callable[[str, Task], float]]:
        """Rewards besides the verifier's (`correctness`) that `grpo.reward_weights` may weigh, by
        name: each maps (response, task) to [0, 1], reading the response as hostile input."""
        return {}

    # -- calibration -----------------------------------------------------------------------------
    def near_misses(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        """(kind, text) wrong responses specific to the family, after the empty one."""
        return []

    def known_hacks(
        self, task: Task, other_answers: Sequence[str], rng: random.Random
    ) -> list[tuple[str, str]]:
        """(kind, text) wrong responses of kinds that fooled a verifier before, and stage 3's
        adversary's wrong variants of the task's reference (`stages.tasks.adversary`, drawn with
        `rng`): one pass fails the gate under `gates.zero_tolerance_hacks`."""
        return []

    def same_answer(self, task: Task, other: str) -> bool:
        return other == (task.answer or "")

    def wrong_candidates(
        self, task: Task, others: Sequence[Task], rng: random.Random
    ) -> list[Candidate]:
        """Known-wrong responses for `task` (others supply "another task's answer")."""
        other_answers = [o.answer for o in others if o.answer and o.task_id != task.task_id]
        # Seeded from the state before any draw, consuming none: the adversary's draws do not
        # move when a near miss changes, nor the near misses' when the adversary does.
        adversary_rng = random.Random(hash(rng.getstate()))
        pairs = [("empty", ""), *self.near_misses(task, other_answers, rng)]
        if self.offers_other_answers:
            for other in rng.sample(other_answers, min(3, len(other_answers))):
                if not self.same_answer(task, other):
                    pairs.append(("other_task", other))
        return [
            Candidate(task_id=task.task_id, kind=k, text=t, correct=False)
            for k, t in dict.fromkeys(pairs)
        ] + [
            Candidate(task_id=task.task_id, kind=k, text=t, correct=False, known_hack=True)
            for k, t in dict.fromkeys(self.known_hacks(task, other_answers, adversary_rng))
        ]

    def right_forms(self, task: Task) -> list[tuple[str, str]]:
        """(kind, text): the reference in forms a sound verifier must accept (`equivalent`), and
        the adversary's right variants in other formats (their pass rate is recorded)."""
        return []

    def right_candidates(self, task: Task) -> list[Candidate]:
        return [
            Candidate(task_id=task.task_id, kind=k, text=t, correct=True)
            for k, t in dict.fromkeys(self.right_forms(task))
        ]

    def hack_probes(self, tasks: Sequence[Task], seed: int, verifier: Any) -> list[Candidate]:
        """Suite-level known hacks aimed at this family's tasks among `tasks` (code: reward
        hacks run in the sandbox)."""
        return []
