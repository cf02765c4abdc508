"""What the stages of one driver share, typed: the task suite, a verifier per task family, the base
model RL starts from, this process's world, and the RL session's state (the live trainer and the
split of a step's groups over the ranks).

The driver builds one in a named constructor (`for_run`; `rlvr calibrate`: `for_calibration`).
Each member is built on first use from plain config, the folded log and the blob store, so a
resumed driver reconstructs exactly what the crashed one had. Building one appends nothing: what
the log must say about a service (a verifier running candidates without isolation) the driver
appends when each stage starts (`waivers`).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from stages.config import RunConfig
from stages.distributed import World
from stages.errors import StageError
from stages.rl.split import Split
from stages.tasks.families import FAMILIES
from stages.tasks.generators import generate_reversal, split_tasks
from stages.tasks.loaders import load_tasks
from stages.tasks.types import Task, TaskFormatError
from stages.training.types import TrainerState
from store.blobs import BlobStore
from store.errors import StoreError
from store.events import IsolationWaived
from store.materialised import tree_difference

log_ = structlog.get_logger("rlvr.services")


@dataclass(frozen=True)
class TaskSuite:
    train: list[Task]
    heldout: list[Task]
    capability_train: dict[str, list[Task]]
    capability_heldout: dict[str, list[Task]]

    def by_id(self) -> dict[str, Task]:
        return {t.task_id: t for t in self.train}


@dataclass
class RLState:
    """What the RL stages keep between steps and stages of one driver: the live trainer (None
    until a stage opens it from the log) and the split in force (stages/rl/split.py)."""

    split: Split
    trainer: TrainerState | None = None
    rollouts: Any = None  # asynchronous rollouts' sampler process (stages/rl/async_sampler.py)
    discarded: list = field(default_factory=list)  # batches sampled ahead a rollback dropped


@dataclass
class RunServices:
    config: RunConfig
    world: World
    blobs: BlobStore
    run_dir: Path
    rl: RLState
    # Built on first use (`tasks`, `verifier`, `base_model_path`) and kept.
    _tasks: TaskSuite | None = None
    _verifiers: dict[str, Any] = field(default_factory=dict)
    base_model: Path | None = None  # the base model on local disk, once materialised
    dropped_task_ids: set[str] | None = None  # stage 2's, recomputed on a resume

    @classmethod
    def for_run(
        cls, config: RunConfig, run_dir: Path, blobs: BlobStore, world: World | None = None
    ) -> RunServices:
        """A driver's (or an `mlx.launch` rank's) services for the run: `world` is the group it
        was launched into, else a world of one."""
        world = world or World(None, config.distributed)
        return cls(config, world, blobs, run_dir, RLState(Split.of(config.distributed, world.size)))

    @classmethod
    def for_calibration(cls, config: RunConfig, world: World | None = None) -> RunServices:
        """`rlvr calibrate`'s: the run config's tasks, on this rank of an `mlx.launch` job
        (`world`; a world of one when not launched). It records nothing in any log."""
        root = Path(config.log_path)
        world = world or World(None, config.distributed)
        return cls(
            config, world, BlobStore(root / "blobs"), root / "calibration",
            RLState(Split.of(config.distributed, world.size)),
        )  # fmt: skip

    @property
    def tasks(self) -> TaskSuite:
        if self._tasks is None:
            self._tasks = task_suite(self.config)
        return self._tasks

    def verifier(self, family: str | None = None) -> Any:
        """The task family's verifier (built once per driver); `family` for a capability
        benchmark's."""
        from stages.tasks.references import default_config
        from stages.verifiers.registry import build_verifier

        key = family or ""
        if key not in self._verifiers:
            config = verifier_config(self.config) if family is None else default_config(family)
            self._verifiers[key] = build_verifier(config)
        return self._verifiers[key]

    def waivers(self) -> list[IsolationWaived]:
        """What a stage starting now runs without the isolation the house requires: recorded
        in the log with the stage's start (`StageStarted`)."""
        config = verifier_config(self.config)
        if getattr(config, "sandbox", None) != "unisolated":
            return []
        return [IsolationWaived(verifier=config.kind, reason='verifier.sandbox = "unisolated": '
                                "candidate programs run without isolation")]  # fmt: skip

    def base_model_path(self, digest: str | None) -> Path:
        """The model RL starts from (the SFT'd embedded model, or the configured one), stored
        under `digest` (`RunState.baseline_checkpoint`), on local disk."""
        if self.base_model is not None:
            return self.base_model
        if digest is None:
            raise StageError("no base model was recorded (stage 1 has not completed)")
        from stages.training.checkpoint import materialise

        path = self.run_dir / "models" / digest[:16]
        difference = _base_model_difference(self.blobs, digest, path)
        if difference is not None:
            if path.exists() or path.is_symlink():
                log_.warning("base_model_rematerialised", path=str(path), reason=difference)
                _remove(path)
            # Hard links: the base model is stored once (in the blob store), not once more per run.
            materialise(self.blobs, digest, path, link=True)
        self.base_model = path
        return path


def _base_model_difference(blobs: BlobStore, digest: str, path: Path) -> str | None:
    """How the run directory's copy of the base model differs from its stored tree (None: it is
    that tree): a resume trains from the tree the log names, not from whatever lies there."""
    if not (path.exists() or path.is_symlink()):
        return "absent"
    try:
        return tree_difference(blobs, digest, path)
    except (StoreError, OSError) as e:  # materialise reports an unreadable tree as one error
        return str(e)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)  # links inside are removed, never followed
    else:
        path.unlink()


def load_task_file(data: Any) -> list[Task] | None:
    """The tasks of `data.data_path`, every row parsed (None when the tasks are generated). The
    CLI calls this before a run starts, so a bad file is an `error:` line, not a failed run.
    Raises TaskFormatError naming the file, line and field; ValueError for a bad spec."""
    if not data.data_path:
        return None
    family = FAMILIES[data.task_family]
    # A family without a file format (arithmetic) takes a file of whatever family it holds.
    return load_tasks(data.data_path, family.name if family.file_format else None)


def check_task_file(config: RunConfig) -> None:
    """Parse the task file in full and check every row's length, in characters
    (`data.max_prompt_chars`, `data.max_answer_chars`) and in tokens against the model's context
    (where its tokenizer is on this machine). `TaskFormatError` names the file and line."""
    from stages.tasks.limits import check_row_lengths, check_row_tokens
    from stages.training.context import model_context, row_tokens

    data = config.data
    tasks = load_task_file(data)
    if not tasks:
        return
    check_row_lengths(str(data.data_path), tasks, data.max_prompt_chars, data.max_answer_chars)
    context = model_context(config.model)
    if context is None:
        return
    rows = [(t.prompt, t.answer or "") for t in tasks]
    counts = row_tokens(config.model, rows, config.grpo.sampling.use_chat_template)
    if counts is not None:
        check_row_tokens(str(data.data_path), counts, *context)


def run_tasks(data: Any) -> list[Task]:
    """Every task of the run's family, from `data.data_path` or generated, before the split."""
    family = FAMILIES[data.task_family]
    if data.data_path:
        try:
            return load_task_file(data) or []
        except (TaskFormatError, OSError) as e:
            raise StageError(str(e)) from e
    generated = family.generate({"difficulty": str(data.difficulty), "seed": str(data.data_seed)})
    if generated is None:
        raise StageError(f"task_family {data.task_family!r} needs data.data_path (a task file)")
    return generated


def task_suite(config: RunConfig) -> TaskSuite:
    data = config.data
    tasks = run_tasks(data)
    train, heldout = split_tasks(tasks, data.train_ratio, data.data_seed)
    cap_train, cap_heldout = {}, {}
    for name in data.capability_benchmarks:
        skill = generate_reversal()
        skill_train, skill_heldout = split_tasks(skill, data.train_ratio, data.data_seed)
        cap_train[name], cap_heldout[name] = skill_train, skill_heldout[: data.capability_heldout]
    return TaskSuite(train, heldout[: data.max_heldout], cap_train, cap_heldout)


def verifier_config(config: RunConfig) -> Any:
    from stages.tasks.references import default_config
    from stages.verifiers.registry import parse_verifier_config

    if config.verifier is not None:
        return parse_verifier_config(config.verifier)
    return default_config(config.data.task_family)
