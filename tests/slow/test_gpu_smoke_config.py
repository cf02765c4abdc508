"""configs/gpu_smoke.toml on the CPU, shrunk to a tiny model of the same kind (grouped-query
attention, a head padded past the tokenizer, compiled loss, 8 micro-batches, up to 256 new
tokens): the seven stages complete and every gate passes. The unshrunk run needs a GPU; its
H100 run is in tests/benchmarks/results/."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.slow.runs import events, only_run, rlvr

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    "model.hidden_size=64", "model.num_hidden_layers=2", "model.num_attention_heads=4",
    "model.num_key_value_heads=2", "model.intermediate_size=128", "model.vocab_size=1000",
    "model.dtype=float32", "sft.learning_rate=3e-3",
]  # fmt: skip


def test_the_gpu_smoke_config_runs_shrunk_on_the_cpu(tmp_path: Path) -> None:
    result = rlvr("run", str(ROOT / "configs/gpu_smoke.toml"), *TINY, cwd=tmp_path, timeout=900)
    store = tmp_path / "runs" / "events.db"
    run_id = only_run(store)
    gates = [e.event for e in events(store, run_id, "GateEvaluated")]
    assert result.returncode == 0 and all(g.passed for g in gates), (
        [g.gate for g in gates if not g.passed],
        result.stderr[-3000:],
    )
    assert len({g.stage for g in gates}) == 7  # every stage ran and was gated
    assert len(events(store, run_id, "MetricsRecorded")) == 3
    assert "completed" in result.stdout
