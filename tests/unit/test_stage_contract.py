"""What the stages are handed, held to what the orchestrator builds: the run's config as the stages
read it (`stages.config.RunConfig`, a protocol: the stages cannot import the orchestrator) is the
orchestrator's `RunConfig`, field by field; `World` is the collectives and nothing else; sampling
is one `sample_groups` with an injected sampler; the README's settings table prints as typed."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import get_type_hints

ROOT = Path(__file__).resolve().parents[2]


def test_the_stages_read_the_run_config_the_orchestrator_builds() -> None:
    from orchestrator.config import RunConfig
    from stages.config import RunConfig as StagesView

    read, built = get_type_hints(StagesView), get_type_hints(RunConfig)
    assert read and {name: built.get(name) for name in read} == read
    # `gates` is read through a protocol of its own: the thresholds a stage reads itself.
    from stages.config import GateThresholds

    gates = RunConfig.model_fields["gates"].annotation.model_fields
    assert {n: gates[n].annotation for n in get_type_hints(GateThresholds)} == get_type_hints(
        GateThresholds
    )


def test_world_keeps_the_collectives_and_nothing_else() -> None:
    from stages.distributed import World

    public = {n for n in vars(World) if not n.startswith("_")}
    assert public == {"leader", "sum_tree", "gather_json", "share_json", "from_leader"}


def test_sampling_is_one_sample_groups_with_an_injected_sampler() -> None:
    defined = [
        f"{path.relative_to(ROOT)}:{node.name}"
        for path in sorted((ROOT / "stages").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name.startswith("sample_groups")
    ]
    assert defined == ["stages/training/sampling.py:sample_groups"]


def test_the_settings_table_prints_as_the_readme_says() -> None:
    from orchestrator.settings_table import settings_table

    printed = subprocess.run(
        [sys.executable, "-m", "orchestrator.settings_table"], cwd=ROOT, capture_output=True,
        text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    assert printed.strip() == settings_table()
    assert "python -m orchestrator.settings_table" in (ROOT / "README.md").read_text("utf-8")
