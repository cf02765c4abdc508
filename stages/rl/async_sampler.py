"""Asynchronous rollouts (`grpo.max_staleness = k`): the batches of steps t+1..t+k are sampled
while step t trains, by a sampler in a second process that holds its own copy of the weights.

The schedule is fixed, so an asynchronous run is as reproducible as an on-policy one: the batch
for step s is a pure function of (the weights version `PolicyVersions.for_step(s, k)`, i.e. the
weights after step s-1-k, or those a rollback restored since; step s's prompts; its attempt-0
seed; the sampling settings in force at step s). What is sampled ahead is only a guess at that
function's value, checked when step s takes it: if step s's prompts or settings in force are not
the ones it was sampled with (a policy changed the temperature, a new curriculum, a rollback that
moved the version), the batch is sampled again now, from the version the schedule names. So
neither a resume nor a branch needs the in-flight batches: they are never logged until a step
consumes them (`RolloutsSampled.policy_version` says which weights sampled it), and a resume
samples them again from the weight versions its checkpoint keeps (stages/training/checkpoint.py).
A retried step trains the same batch (its seed is attempt 0's).

Why a process, not a thread: on one H100 a host-bound decode and a training loop finished
1.35-1.42x faster as two processes than back to back, as two threads of one process only 1.17x
(the GIL slows the decode; FACTS.md). The weights go over as one safetensors file per version
(the trainable parameters; the frozen ones are the base model's, which the sampler loads
itself), so the two processes hold only their own models and buffers. The sampler samples with
the product's `sample_groups` and the run's sampler, in the order it is asked; the process is
the only one that samples for the run, live and on a catch-up alike.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing as mp
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from stages.errors import StageError
from stages.rl.types import Draw
from stages.training.config import GRPOConfig, ModelConfig
from stages.training.grpo import step_seed
from stages.training.sampling import Sampler, default_prompt_text
from stages.training.types import PolicyVersions, Rollout, RolloutGroup, TrainerState


@dataclass(frozen=True)
class BatchKey:
    """Everything a stale batch is a function of (with the weights of `version`)."""

    step: int
    version: int
    texts: tuple[str, ...]
    seed: int
    sampling: str  # the sampling config in force, as JSON
    group_size: int


def _serve(
    conn: Any, base_path: str, model_config: str, seed: int, sampler: Sampler,
    eos_token_ids: list[int] | None = None,
) -> None:  # fmt: skip
    """The sampler process: load the base model once, then answer each request (a weights file,
    prompts, seed, sampling config) with its groups, in order, until told to stop.
    `eos_token_ids`: the trainer's tokenizer's, where it changed them (a fixed-length benchmark)."""
    import mlx.core as mx

    from stages.training.config import SamplingConfig
    from stages.training.model import load_model, make_trainable
    from stages.training.sampling import sample_groups

    model, tokenizer = load_model(base_path)
    if eos_token_ids is not None:
        tokenizer.eos_token_ids = eos_token_ids
    make_trainable(model, ModelConfig.model_validate_json(model_config), seed=seed)
    loaded = None
    while (request := _next(conn)) is not None:
        ticket, weights, key = request
        try:
            if weights != loaded:
                model.load_weights(list(mx.load(weights).items()), strict=False)
                mx.eval(model.parameters())
                loaded = weights
            config = SamplingConfig.model_validate_json(key.sampling)
            groups, stats = sample_groups(
                model, tokenizer, list(key.texts), config, key.group_size,
                sampler(key.seed, config, 0, key.group_size),
            )  # fmt: skip
            conn.send((ticket, [g.rollouts_N for g in groups], stats, None))
        except Exception as e:  # reported to the trainer, which raises it as its own
            conn.send((ticket, None, None, f"{type(e).__name__}: {e}"))


def stale_draw(
    rollouts: AsyncRollouts, trainer: TrainerState, config: GRPOConfig,
    prompts_of: Callable[[int], Sequence[Any]],
) -> tuple[Draw, int]:  # fmt: skip
    """Step `trainer.step`'s `Draw` under asynchronous rollouts, and the weights version that
    samples it. Publishes this step's weights, then has steps t..t+k sampled ahead with their
    prompts (`prompts_of(step)`) and the settings in force now (`config`); the draw's first call
    takes step t's batch, checked against its key; a later call (a dynamic-sampling round) is
    sampled now, with the same version."""
    versions = rollouts.publish(trainer)
    t, k = trainer.step, config.max_staleness

    def key_of(step: int, records: Sequence[Any], seed: int | None = None) -> BatchKey:
        texts = [default_prompt_text(r) for r in records]
        seed = step_seed(config, step, 0) if seed is None else seed
        return rollouts.key(step, versions, texts, seed, config)

    for s in range(t, t + k + 1):
        rollouts.ahead_of(key_of(s, prompts_of(s)), versions)
    taken = False

    def draw(records: list[Any], seed: int) -> tuple[list[RolloutGroup], dict[str, float]]:
        nonlocal taken
        if not taken:
            taken = True
            return rollouts.take(key_of(t, records), versions, records)
        refill = replace(key_of(t, records, seed), step=-1)  # never one sampled ahead
        return rollouts.take(refill, versions, records)

    return draw, versions.for_step(t, k)


def _next(conn: Any) -> Any:
    """The next request; None (stop) when told so or when the trainer is gone (killed)."""
    try:
        return conn.recv()
    except (EOFError, OSError):
        return None


class AsyncRollouts:
    """The run's sampler process and its window of batches sampled ahead, by step."""

    def __init__(
        self, staleness: int, base_path: Path, model: ModelConfig, seed: int, sampler: Sampler,
        eos_token_ids: list[int] | None = None,
    ) -> None:  # fmt: skip
        self.staleness = staleness
        # In memory where there is a /dev/shm: a version is written and read once a step.
        shm = "/dev/shm" if Path("/dev/shm").is_dir() else None
        self.folder = Path(tempfile.mkdtemp(prefix="rlvr-versions-", dir=shm))
        ctx = mp.get_context("spawn")  # mlx is not fork-safe
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=_serve,
            args=(child, str(base_path), model.model_dump_json(), seed, sampler, eos_token_ids),
            daemon=True, name="rlvr-sampler",
        )  # fmt: skip
        self.process.start()
        child.close()
        atexit.register(self.close)
        self.ahead: dict[int, tuple[BatchKey, int]] = {}  # step -> (key, ticket)
        self.replies: dict[int, tuple] = {}
        self.tickets = 0

    # -- weight versions ------------------------------------------------------------------------

    def publish(self, trainer: TrainerState) -> PolicyVersions:
        """Hand the sampler the weights of step `trainer.step` (the version steps
        trainer.step+k sample with) and forget those no step will sample with again."""
        import mlx.core as mx
        from mlx.utils import tree_flatten

        versions = trainer.versions = trainer.versions or PolicyVersions()
        if trainer.step not in versions.files:
            path = self.folder / f"v{trainer.step}-{self.tickets}.safetensors"
            mx.save_safetensors(str(path), dict(tree_flatten(trainer.model.trainable_parameters())))
            versions.files[trainer.step] = str(path)
        oldest = versions.for_step(trainer.step, self.staleness)
        for v in [v for v in versions.files if v < oldest or v > trainer.step]:
            self._forget(versions.files.pop(v))
        return versions

    def rolled_back(self, trainer: TrainerState) -> list[BatchKey]:
        """After a rollback restored other weights: from the next step on, the schedule samples
        with them; the batches sampled ahead with the left weights are discarded (returned)."""
        versions = trainer.versions = trainer.versions or PolicyVersions()
        versions.reset = trainer.step
        versions.files.pop(trainer.step, None)  # the restored weights replace it
        dropped = [key for key, _ in self.ahead.values() if key.version < versions.reset]
        self.ahead = {s: a for s, a in self.ahead.items() if a[0].version >= versions.reset}
        return sorted(dropped, key=lambda k: k.step)

    def _forget(self, path: str) -> None:
        if Path(path).parent == self.folder:  # not a checkpoint's blob
            Path(path).unlink(missing_ok=True)

    # -- batches --------------------------------------------------------------------------------

    def key(self, step: int, versions: PolicyVersions, texts: Sequence[str], seed: int,
            config: GRPOConfig) -> BatchKey:  # fmt: skip
        return BatchKey(
            step, versions.for_step(step, self.staleness), tuple(texts), seed,
            config.sampling.model_dump_json(), config.group_size,
        )  # fmt: skip

    def ahead_of(self, key: BatchKey, versions: PolicyVersions) -> None:
        """Have `key`'s batch sampled, unless it already is (with this key)."""
        held = self.ahead.get(key.step)
        if held is None or held[0] != key:
            self.ahead[key.step] = (key, self._ask(key, versions))

    def take(self, key: BatchKey, versions: PolicyVersions, records: Sequence[Any]
             ) -> tuple[list[RolloutGroup], dict[str, float]]:  # fmt: skip
        """The batch of `key` (one sampled ahead if its key matches, else sampled now), as
        groups of `records` (whose prompt texts are `key.texts`)."""
        held = self.ahead.pop(key.step, None)
        ticket = held[1] if held is not None and held[0] == key else self._ask(key, versions)
        rollouts_G, stats = self._reply(ticket)
        groups = [
            RolloutGroup(prompt=record, prompt_text=text, rollouts_N=list(rollouts_N))
            for record, text, rollouts_N in zip(records, key.texts, rollouts_G, strict=True)
        ]
        return groups, stats

    def _ask(self, key: BatchKey, versions: PolicyVersions) -> int:
        if key.version not in versions.files:
            raise StageError(
                f"step {key.step} samples with the weights of step {key.version}, which this "
                f"trainer does not hold (it holds {sorted(versions.files)})"
            )
        self.tickets += 1
        self.conn.send((self.tickets, versions.files[key.version], key))
        return self.tickets

    def _reply(self, ticket: int) -> tuple[list[list[Rollout]], dict[str, float]]:
        while ticket not in self.replies:
            if not self.process.is_alive() and not self.conn.poll():
                raise StageError(f"the sampler process died (exit code {self.process.exitcode})")
            try:
                got, rollouts, stats, error = self.conn.recv()
            except (EOFError, OSError) as e:
                raise StageError(f"the sampler process died: {e}") from e
            live = {t for _, t in self.ahead.values()}
            if got == ticket or got in live:  # a discarded batch's reply is dropped
                self.replies[got] = (rollouts, stats, error)
        rollouts, stats, error = self.replies.pop(ticket)
        if error is not None:
            raise StageError(f"the sampler process failed: {error}")
        return rollouts, stats

    def close(self) -> None:
        if not self.folder.exists():
            return
        with contextlib.suppress(OSError):  # the sampler may be gone already
            self.conn.send(None)
        self.process.join(timeout=10)
        if self.process.is_alive():
            self.process.terminate()
        shutil.rmtree(self.folder, ignore_errors=True)
