"""configs/lora.toml as shipped: the quickstart with rank-8 LoRA adapters in RL passes every gate,
and `rlvr export-model` writes the base model with its adapters, or the two fused, each loaded back
by `mlx_lm.load` and generating the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.slow.runs import QUICKSTART, events, only_run, rlvr
from tests.slow.test_cli_human_forms import _load_and_generate, _ok

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lora_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    # configs/lora.toml as shipped (its only run as shipped): every gate must pass, the KL gate
    # included, which its comment says the learning rate of 5e-5 keeps under 0.1.
    workdir = tmp_path_factory.mktemp("lora")
    done = rlvr("run", str(QUICKSTART.parent / "lora.toml"), cwd=workdir, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    store = workdir / "runs" / "events.db"
    run_id = only_run(store)
    gates = [e.event for e in events(store, run_id, "GateEvaluated")]
    # Every stage's gate, each passed (a gate may be read more than once, e.g. after a rollback).
    assert len({g.stage for g in gates}) == 7, [(g.gate, g.stage) for g in gates]
    assert all(g.passed for g in gates), [(g.gate, g.value) for g in gates]
    return workdir, run_id


def test_a_lora_run_exports_base_and_adapters_or_fused_and_both_load_the_same(
    lora_run, tmp_path: Path
) -> None:
    workdir, run_id = lora_run
    adapters, fused = tmp_path / "lora", tmp_path / "fused"
    said = _ok("export-model", run_id, "--out", str(adapters), cwd=workdir)
    assert f"mlx_lm.load('{adapters / 'model'}', adapter_path='{adapters / 'adapters'}')" in said
    assert sorted(p.name for p in (adapters / "adapters").iterdir()) == [
        "adapter_config.json", "adapters.safetensors"
    ]  # fmt: skip
    assert f"mlx_lm.load('{fused}')" in _ok("export-model", run_id, "--out", str(fused), "--fuse",
                                            cwd=workdir)  # fmt: skip
    text, with_adapters = _load_and_generate(workdir, adapters / "model", adapters / "adapters")
    fused_text, fused_logits = _load_and_generate(workdir, fused)
    _, base_logits = _load_and_generate(workdir, adapters / "model")
    assert fused_text == text
    assert fused_logits == pytest.approx(with_adapters, abs=1e-3)
    assert max(abs(a - b) for a, b in zip(with_adapters, base_logits, strict=True)) > 1e-3
    layouts = [e.event.layout for e in events(workdir / "runs" / "events.db", run_id,
                                               "ModelExported")]  # fmt: skip
    assert layouts == ["lora", "lora-fused"]
