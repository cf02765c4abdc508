"""A synthetic 10,000-step run at real scale, and what reading it costs (issue 19).

The run is driven by the real `Driver` (real policies, gates, state machine, `Driver.emit`) with
stand-in stages: each RL step emits what `stages/rl/logged_step.py` emits for a 32 x 8 batch of
~1,000-token responses (the same `rollout_events` builder), an eval every 10 steps and a
checkpoint every 20. The log is built once; each reader then runs in its own child process,
which reports its wall time and peak RSS.

Which rollouts the built run logs whole: `pipeline.sample_rollouts = LOGGED_GROUPS` (4 groups of
a step's 32, the default before issue 31), not the default "all". Why: with "all" every step
writes its 256 completions (~1.3 MB of word salad that deflates poorly) into a rollout blob,
2.7 GB and over 15 minutes for 10,000 steps, and none of the readers measured here reads a
rollout blob's text (they read the rows: a blob is named by its `RolloutsSampled` /
`VerdictsRecorded` rows, whose size does not depend on the setting, and `VerdictsRecorded` still
counts all 256 verdicts). An operator of a 10,000-step run keeps a share, as this one does; the
rows' reward and verdict counts are whole either way. Nothing is pruned: `checkpoints.keep_last`
is unset by default (every checkpoint and the blobs of its steps stay), so the log holds no
`CheckpointsPruned` rows, as a default run's would not. `build_long_run_log` is the builder
other benches import (the console bench): `cache=DIR` keeps the store and its blobs there and
returns the same run next time.

Run: python tests/benchmarks/bench_long_run.py [--steps 10000] [--keep DIR]
     (PostgreSQL too when RLVR_TEST_POSTGRES_URL is set; its supervisor pass runs over a database
     of its own, created on that server and dropped afterwards unless --keep.)
On a shared machine wall time is inflated by the load: each child's CPU time is printed beside
it. Children run with Python's bytecode cache on (the project compiled once into its __pycache__
folders), as a user's commands do after their first: see `_cached_bytecode_env`.
Targets: fold, status RUN, why --gate, report, resume (up to the checkpoint read), branch and one
supervisor pass over 10 runs (9 finished, 1 orphaned) each <= 2 s and <= 300 MB RSS (branch also
prints the MB of log it wrote: a pointer and its first rows, not a copy of the parent); verify,
events export and replay stream >= 50 MB/s of log with <= 300 MB; log <= 100 MB.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import sqlalchemy as sa

# Run as a script (`python tests/benchmarks/bench_long_run.py`): the repo root, for `tests.scenario`.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# Only what every child needs is imported here: each measured command imports its own modules,
# so its peak RSS is the command's, not the builder's (the builder imports the stages).
from store.log import EventLog, StoredEvent, chain_hash
from store.snapshots import fold_run

GROUPS, GROUP_SIZE, RESPONSE_TOKENS = 32, 8, 1000
LOGGED_GROUPS = 4  # pipeline.sample_rollouts of the built run (see the docstring: why not "all")
WORDS = [f"w{i}" for i in range(5000)] + ["=", "+", "so", "the", "answer", "is", "\\boxed{", "}"]
METRIC_NAMES = [
    "reward_mean", "reward_std", "verify_rate", "kl", "entropy", "loss", "grad_norm",
    "clip_fraction", "response_len_mean", "response_len_max", "truncated_fraction",
    "learning_rate_scheduled", "kl_penalty_coef", "temperature", "entropy_coef", "group_size",
    "micro_batches", "attempt", "sample_s", "train_s", "step_s", "sample_tokens_per_s",
    "train_tokens_per_s", "groups_per_s", "verifier_errors", "zero_std_groups", "advantage_mean",
    "advantage_std", "ratio_mean", "ratio_max", "policy_loss", "kl_loss", "entropy_loss",
    "memory_gb", "tokens",
]  # fmt: skip
READERS = ("fold", "status", "why", "report", "resume", "branch", "supervisor_pass")
STREAMS = ("verify", "export", "replay")


class _RLSteps:
    """The RL stage's log at scale: the step's events through the product's builder, a checkpoint
    every `save_every` and an eval every `eval_every` steps (their own append, as the loop does)."""

    def __init__(
        self, steps: int, rng: random.Random, verify_rate: float, stop_at: int | None = None
    ) -> None:
        self.steps, self.rng, self.verify_rate, self.stop_at = steps, rng, verify_rate, stop_at

    def _text(self) -> str:
        return " ".join(self.rng.choices(WORDS, k=RESPONSE_TOKENS))

    def _checkpoint_tree(self, blobs, step: int) -> str:
        """A real (tiny) tree in the blob store: a row naming a tree the store lacks is what the
        GC's orphan sweep refuses to sweep past ("a referenced tree is unreadable")."""
        with blobs.temp_dir() as folder:
            state = {"step": step, "nonce": f"{self.rng.getrandbits(64):016x}"}
            (folder / "state.json").write_text(json.dumps(state))
            return blobs.put_tree(folder)

    def run(self, ctx) -> None:
        from stages.rl.logged_step import logged_groups, rollout_events
        from store.events import CheckpointSaved, EvalRecorded, MetricsRecorded

        rng, config = self.rng, ctx.config
        keep = logged_groups(config.pipeline.sample_rollouts)
        keep = GROUPS if keep is None else min(keep, GROUPS)
        for step in range(ctx.state().step + 1, self.steps + 1):
            if self.stop_at is not None and step > self.stop_at:
                raise _Orphaned  # the driver "dies": no lease row, state left in this stage
            rewards = [
                [float(rng.random() < 0.6) for _ in range(GROUP_SIZE)] for _ in range(GROUPS)
            ]
            samples = [
                {"task_id": f"t{g}", "prompt": f"{rng.randint(0, 999)}+{rng.randint(0, 999)}=",
                 "completions": [self._text() for _ in range(GROUP_SIZE)], "rewards": rewards[g]}
                for g in range(keep)
            ]  # fmt: skip
            verdicts = [
                {"task_id": f"t{j // GROUP_SIZE}", "passed": rewards[j // GROUP_SIZE][j % GROUP_SIZE] > 0,
                 "status": "ok", "reason": "numeric match: 1234 == 1234"}
                for j in range(keep * GROUP_SIZE)
            ]  # fmt: skip
            metrics = {name: rng.random() for name in METRIC_NAMES}
            metrics.update(kl=0.02 + 0.01 * rng.random(), entropy=1.0 + 0.05 * rng.random())
            events = [
                *rollout_events(
                    ctx.blobs, step=step, attempt=0, group_size=GROUP_SIZE, verifier={"kind": "math"},
                    rewards_GN=rewards, samples=samples, verdicts=verdicts,
                    n_passed=sum(map(sum, rewards)), n_errors=0,
                ),
                MetricsRecorded(step=step, metrics=metrics),
            ]  # fmt: skip
            ctx.emit(events)
            scheduled = []
            digest = None
            if step % config.save_every == 0:
                digest = self._checkpoint_tree(ctx.blobs, step)
                scheduled.append(CheckpointSaved(step=step, checkpoint=digest, hyperparameters={}))
            if step % config.eval_every == 0:
                scheduled.append(
                    EvalRecorded(step=step, verify_rate=self.verify_rate + 0.01 * rng.random(),
                                 capability={"reverse": 0.98}, checkpoint=digest)
                )  # fmt: skip
            if scheduled:
                ctx.emit(scheduled)


class _Orphaned(Exception):
    pass


def build_long_run_log(
    url: str, steps: int = 10_000, *, root: Path | None = None, cache: Path | None = None
) -> str:
    """The id of a finished synthetic run of `steps` RL steps in the store at `url` (built as the
    module docstring says; its blobs under `root`/blobs, default `cache` or a new temporary
    directory left to the caller). With `cache` (a directory), the run built there earlier for the
    same `url` and `steps` is returned if the store still holds it, else one is built and noted."""
    note = None
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        key = hashlib.sha256(f"{url}\n{steps}".encode()).hexdigest()[:16]
        note = cache / f"long-run-{key}.json"
        if note.is_file():
            run_id = json.loads(note.read_text())["run"]
            log = EventLog(url)
            try:
                if log.last_seq(run_id) > 0:
                    return run_id
            finally:
                log.close()
    root = root or cache or Path(tempfile.mkdtemp(prefix="long-run-"))
    run_id = build(url, root, steps)
    if note is not None:
        note.write_text(json.dumps({"run": run_id, "url": url, "steps": steps}))
    return run_id


def build(url: str, root: Path, steps: int, stop_at: int | None = None) -> str:
    """Drive one synthetic run to completion (or, with `stop_at`, leave it orphaned mid-RL)."""
    from orchestrator.config import load_config
    from orchestrator.driver.commands import start_run
    from orchestrator.driver.runner import Driver
    from store.blobs import BlobStore
    from tests.scenario.fake_stages import FakeStages

    config = load_config(
        None, [f"log_path={root}", "eval_every=10", "save_every=20",
               f"grpo.group_size={GROUP_SIZE}", f"grpo.groups_per_batch={GROUPS}",
               f"pipeline.sample_rollouts={LOGGED_GROUPS}"],
    )  # fmt: skip
    log = EventLog(url)
    run_id, _ = start_run(log, config, run_id=f"bench-{uuid.uuid4().hex[:10]}")
    stages = FakeStages().registry()
    # Stage 6 continues for a few steps and improves the held-out rate, as its gate asks.
    stages["rlvr_optimization"] = _RLSteps(steps, random.Random(0), 0.6, stop_at)
    stages["iterative_training"] = _RLSteps(steps + 20, random.Random(1), 0.7)
    driver = Driver(
        log, run_id, config, stages, run_dir=root / run_id, blobs=BlobStore(root / "blobs")
    )
    with contextlib.suppress(_Orphaned):
        driver.run()
    log.close()
    return run_id


def clone(
    log: EventLog, source: str, to_seq: int | None = None, into: EventLog | None = None
) -> str:
    """A copy of `source` (up to `to_seq`) in `into` (default: the same store) under a new run id,
    its chain re-hashed, with the snapshots its driver would have written."""
    into = into or log
    rows = list(_rows_of(log, source, to_seq))
    into.import_rows(rows, batch_ends=log.batch_ends(source, to_seq))
    fold_run(into, rows[0].run_id)
    return rows[0].run_id


def _log_mb(log: EventLog, run_id: str) -> float:
    sql = sa.text(
        "SELECT sum(length(payload) + length(type) + length(recorded_at) + length(run_id) + 150)"
        " FROM events WHERE run_id = :r"
    )
    with log.engine.connect() as conn:
        return conn.execute(sql, {"r": run_id}).scalar_one() / 1e6


# --- the measured readers (each in its own child process) ----------------------------------


def _measure(what: str, url: str, run_id: str, extra: str) -> None:
    from orchestrator.cli import read_commands as rc

    root = Path(extra)
    gate = _a_gate(url, run_id) if what == "why" else None  # finding one is not part of `why`
    start, cpu = time.perf_counter(), time.process_time()
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        if what == "fold":
            fold_run(EventLog(url), run_id)
        elif what == "status":
            from orchestrator.cli.status_command import status

            status(run_id, as_json=False, store=url)
        elif what == "why":
            rc.why(run_id, gate=gate, seq=None, as_json=False, store=url)
        elif what == "why_all":  # every decision: the whole run's typed read, each row walked
            rc.why(run_id, gate=None, seq=None, as_json=False, store=url)
        elif what == "events_type":
            rc.events(run_id, None, type_=["PolicyDecided"], as_json=False, store=url)
        elif what == "report":
            rc.report(run_id, out=root / "report", store=url)
        elif what == "verify":
            rc.verify(run_id, store=url)
        elif what == "export":
            rc.events("export", run_id, type_=None, as_json=False, store=url)
        elif what == "replay":
            rc.replay(run_id, config=None, overrides=None, store=url)
        elif what == "resume":
            _resume_to_checkpoint_read(url, run_id)
        elif what == "branch":
            from orchestrator.driver.lifecycle import branch

            log = EventLog(url)
            child, _ = branch(log, run_id, log.last_seq(run_id), [])
        elif what == "supervisor_pass":
            from orchestrator.driver.supervisor import SupervisorConfig, scan

            actions = scan(EventLog(url), SupervisorConfig(grace_s=0), lambda run: None)
            assert [a.action for a in actions] == ["restart"], actions
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    figures = {"wall_s": wall, "rss_mb": _peak_rss_mb(), "cpu_s": cpu}
    if what == "branch":  # how much log the branch added (it used to copy the parent's)
        figures["log_written_mb"] = _log_mb(log, child)
    sys.__stdout__.write(json.dumps(figures) + "\n")


def _peak_rss_mb() -> float:
    """This process's peak RSS. Linux: VmHWM, this address space's own peak (`ru_maxrss` carries
    the forking parent's peak across exec, so every child would report at least the builder's)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _a_gate(url: str, run_id: str) -> str:
    row = next(EventLog(url).read(run_id, types=["GateEvaluated"]))
    return json.loads(row.payload)["gate"]


class _CheckpointRead(Exception):
    pass


def _resume_to_checkpoint_read(url: str, run_id: str) -> None:
    """`rlvr resume RUN` until the RL stage would read its checkpoint (where the stage starts)."""
    from orchestrator.driver.lifecycle import resume
    from orchestrator.driver.machine import STAGES

    class _Stage:
        def run(self, ctx) -> None:
            assert ctx.state().latest_checkpoint is not None
            raise _CheckpointRead

    with contextlib.suppress(_CheckpointRead):
        resume(EventLog(url), run_id, {name: _Stage() for name in STAGES})


_ROOT = Path(__file__).resolve().parents[2]
_PROJECT = ("orchestrator", "stages", "store", "policies")


def _cached_bytecode_env() -> dict[str, str]:
    """The children's environment with Python's bytecode cache on, as a user's machine has it
    from their first command on (pip compiled the installed libraries; the project is compiled
    into its `__pycache__` folders once here). This machine sets PYTHONDONTWRITEBYTECODE=1,
    which would charge every measured command a recompile of each project module it imports
    (~0.2 s), as no user's second command pays."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *(str(_ROOT / d) for d in _PROJECT)],
        env=env, check=True,
    )  # fmt: skip
    return env


_CHILD_ENV: dict[str, str] | None = None


def _child(what: str, url: str, run_id: str, extra: str) -> dict:
    global _CHILD_ENV
    if _CHILD_ENV is None:
        _CHILD_ENV = _cached_bytecode_env()
    done = subprocess.run(
        [sys.executable, __file__, "--measure", what, "--url", url, "--run", run_id, "--extra", extra],
        capture_output=True, text=True, check=False, env=_CHILD_ENV,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{what} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def prepare(url: str, root: Path, steps: int, label: str) -> dict:
    """Build the run, two orphaned copies (resumed and branched) and the supervisor's store of 10
    runs, once: `--keep DIR` reuses what an earlier invocation built there."""
    made = root / f"{label}-runs.json"
    if made.is_file():
        return json.loads(made.read_text())
    start = time.perf_counter()
    run = build_long_run_log(url, steps, root=root)
    built_s = time.perf_counter() - start
    log = EventLog(url)
    rl_end = max(r.seq for r in log.read(run, types=["CheckpointSaved"]))
    orphans = [clone(log, run, to_seq=rl_end) for _ in range(2)]  # resume and branch them
    facts = {
        "run": run, "orphans": orphans, "log_mb": _log_mb(log, run), "events": log.last_seq(run),
        "built_s": built_s, "steps": steps, "supervised": None,
    }  # fmt: skip
    # The supervisor's own store holds just these 10 runs: on PostgreSQL a database of its own
    # (the shared one holds other people's runs, which the pass would scan too).
    if url.startswith("postgresql"):
        facts["supervised"] = _new_database(url, f"rlvr_bench_{uuid.uuid4().hex[:10]}")
    else:
        facts["supervised"] = f"sqlite:///{root / 'supervised.db'}"
    supervised = EventLog(facts["supervised"])
    for to_seq in [None] * 9 + [rl_end]:
        clone(log, run, to_seq, into=supervised)
    supervised.close()
    log.close()
    made.write_text(json.dumps(facts))
    return facts


def _new_database(url: str, name: str) -> str:
    """Create database `name` on `url`'s PostgreSQL server; its URL."""
    base = urlsplit(url)
    engine = sa.create_engine(
        urlunsplit(base._replace(scheme="postgresql+psycopg")), isolation_level="AUTOCOMMIT"
    )
    with engine.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return urlunsplit(base._replace(path=f"/{name}"))


def _drop_database(url: str) -> None:
    """Drop the database `_new_database` made (from the server's maintenance database)."""
    target = urlsplit(url)
    engine = sa.create_engine(
        urlunsplit(target._replace(scheme="postgresql+psycopg", path="/postgres")),
        isolation_level="AUTOCOMMIT",
    )
    with engine.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{target.path[1:]}" WITH (FORCE)'))
    engine.dispose()


def bench(url: str, root: Path, steps: int, label: str) -> dict:
    facts = prepare(url, root, steps, label)
    run, orphans, log_mb, n_events = (
        facts["run"],
        facts["orphans"],
        facts["log_mb"],
        facts["events"],
    )
    print(
        f"[{label}] {facts['steps']} steps ({n_events} events, {log_mb:.1f} MB of log), "
        f"built in {facts['built_s']:.0f} s",
        flush=True,
    )
    results: dict = {}
    for what in ("fold", "status", "why", "why_all", "events_type", "report"):
        results[what] = _child(what, url, run, str(root))
    for what in STREAMS:
        results[what] = _child(what, url, run, str(root))
        results[what]["mb_per_s"] = log_mb / results[what]["wall_s"]
    results["resume"] = _child("resume", url, orphans[0], str(root))
    results["branch"] = _child("branch", url, orphans[1], str(root))
    results["supervisor_pass"] = _child("supervisor_pass", facts["supervised"], "-", str(root))
    for what, figures in results.items():
        rate = f"  {figures['mb_per_s']:.0f} MB/s" if "mb_per_s" in figures else ""
        if "log_written_mb" in figures:
            rate = f"  {figures['log_written_mb']:.4f} MB of log written (parent: {log_mb:.1f} MB)"
        print(
            f"[{label}] {what:16s} {figures['wall_s']:7.2f} s ({figures['cpu_s']:5.2f} s CPU)  "
            f"{figures['rss_mb']:6.0f} MB RSS{rate}",
            flush=True,
        )
    out = {f"{what}_{k}": round(v, 3) for what, f in results.items() for k, v in f.items()}
    return {**out, "log_mb": round(log_mb, 2), "steps": facts["steps"], "events": n_events}


def _rows_of(log: EventLog, source: str, to_seq: int | None):
    target = f"{source}-s{uuid.uuid4().hex[:6]}"
    prev = "0" * 64
    for row in log.read(source, to_seq=to_seq):
        digest = chain_hash(
            prev, target, row.seq, row.type, row.schema_version, row.recorded_at, row.payload
        )
        yield StoredEvent(target, row.seq, row.type, row.schema_version, row.recorded_at, prev,
                          digest, row.payload)  # fmt: skip
        prev = digest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument(
        "--keep", type=Path, help="Build in this directory and leave it there (reused next time)."
    )
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    parser.add_argument("--extra", help=argparse.SUPPRESS)
    args = parser.parse_args()
    from orchestrator.logging import configure

    configure(level="WARNING")
    if args.measure:
        _measure(args.measure, args.url, args.run, args.extra)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        figures = bench(f"sqlite:///{root / 'store.db'}", root, args.steps, "sqlite")
        postgres = os.environ.get("RLVR_TEST_POSTGRES_URL")
        if postgres:
            pg_root = root / "pg"
            pg_root.mkdir(exist_ok=True)
            try:
                pg = bench(postgres, pg_root, args.steps, "postgresql")
            finally:
                if args.keep is None:  # else `--keep` reuses it next time
                    made = pg_root / "postgresql-runs.json"
                    if made.is_file():
                        _drop_database(json.loads(made.read_text())["supervised"])
            figures.update({f"pg_{k}": v for k, v in pg.items() if k not in ("steps",)})
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
