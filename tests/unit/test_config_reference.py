"""Settings a person can discover (issue 29, item 4): `rlvr config show [CONFIG]` lists every key
of the config schema with its default, type and doc, gates and policies included; `rlvr config
explain KEY` one key in full; the README's configuration reference is the same schema's Markdown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from orchestrator.config import known_keys
from orchestrator.config_schema import markdown, schema_keys
from tests.cli_runner import rlvr

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
START, END = "<!-- config-reference: start -->", "<!-- config-reference: end -->"


def test_the_schema_walk_finds_every_key_the_loader_accepts() -> None:
    walked = {k.key for k in schema_keys()}
    sections = {k[:i] for k in walked for i in range(len(k)) if k[i] == "."}
    # known_keys() lists sections as keys too; every leaf it knows is walked.
    assert {k for k in known_keys() if k not in sections and k != "verifier"} <= walked
    for kind in ("math", "exact", "code", "qa", "rubric"):
        assert any(k.section == f'verifier (kind = "{kind}")' for k in schema_keys())
    assert {"policies.kl.limit", "gates.min_verify_rate_gain", "chaos.faults[].kind"} <= walked
    assert all(k.doc for k in schema_keys()), [k.key for k in schema_keys() if not k.doc]


def test_config_show_lists_every_key_of_the_schema_with_default_and_type(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = rlvr(capsys, "config", "show")
    assert shown.code == 0, shown.err
    listed = set(re.findall(r"^  (\S+) = ", shown.out, re.M))
    assert listed == {k.key for k in schema_keys()}
    assert re.search(r"^  policies\.kl\.limit = 0\.1  float \(> 0, <= 1000\)$", shown.out, re.M)
    assert "[gates]" in shown.out and '[verifier (kind = "code")]' in shown.out


def test_config_show_of_a_file_marks_what_it_changes(capsys: pytest.CaptureFixture[str]) -> None:
    shown = rlvr(capsys, "config", "show", str(ROOT / "configs" / "quickstart.toml"))
    assert shown.code == 0, shown.err
    assert re.search(r"^  grpo\.learning_rate = 2\.5e-05  \(default 0\.0001\)", shown.out, re.M)
    assert re.search(r"^  gates\.max_kl = 0\.1  float", shown.out, re.M)  # unchanged: no note


def test_config_explain_a_gate_key_and_a_bare_name(capsys: pytest.CaptureFixture[str]) -> None:
    explained = rlvr(capsys, "config", "explain", "gates.max_kl")
    assert explained.code == 0, explained.err
    for line in ("type: float (> 0, <= 1000)", "default: 0.1",
                 "read by: the kl gate (its threshold)",
                 "on a run: rlvr branch RUN --at-step N gates.max_kl=VALUE"):  # fmt: skip
        assert line in explained.out, explained.out
    bare = rlvr(capsys, "config", "explain", "min_verify_rate_gain")
    assert bare.code == 0 and bare.out.startswith("gates.min_verify_rate_gain")
    operational = rlvr(capsys, "config", "explain", "checkpoints.max_bytes")
    assert "on a run: rlvr resume RUN checkpoints.max_bytes=VALUE" in operational.out
    typo = rlvr(capsys, "config", "explain", "gates.max_kll")
    assert typo.code == 2 and "did you mean 'gates.max_kl'" in typo.err


def test_the_readme_configuration_reference_is_the_schema() -> None:
    text = README.read_text(encoding="utf-8")
    assert START in text and END in text, "README lost its generated configuration reference"
    block = text.split(START, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    assert block == markdown(), "regenerate it: rlvr config show --markdown"
