"""`rlvr calibrate` as a person types it: it measures on the services a run of the config would
have (its task suite, on this process's world), prints each batch size's figures and records the
peaks, which `grpo.sampling.batch_size = "auto"` then resolves to."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RLVR = [sys.executable, "-c", "from orchestrator.cli.app import main; main()"]


def test_rlvr_calibrate_measures_prints_and_records_the_peaks(tmp_path: Path) -> None:
    config = ROOT / "configs" / "quickstart.toml"
    result = subprocess.run(
        [*RLVR, "calibrate", str(config), f"log_path={tmp_path}", "--sizes", "8,16",
         "--repeats", "1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "sampling seq/s" in result.stdout and "peak: sampling at batch" in result.stdout
    (record,) = json.loads((tmp_path / "calibration.json").read_text())
    assert record["model"] == "embedded:2x128x384"
    assert set(record["sampling_sequences_per_s"]) == {"8", "16"}
    assert all(v > 0 for v in record["train_tokens_per_s"].values())

    from orchestrator.cli.calibrate_command import auto_overrides

    auto = tmp_path / "auto.toml"
    auto.write_text(
        f'log_path = "{tmp_path}"\n[grpo.sampling]\nbatch_size = "auto"\n', encoding="utf-8"
    )
    peak = record["sampling_batch_size"]
    assert auto_overrides(auto, []) == [f"grpo.sampling.batch_size={peak}"]
