"""Every shipped task-family config loads, validates, and points at a sample file that loads."""

from pathlib import Path

import pytest

from orchestrator.config import load_config
from stages.tasks.loaders import load_tasks

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = {"math": "math", "qa": "qa", "code": "code", "rubric": "rubric"}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_each_family_config_loads_and_its_sample_file_loads(name):
    config = load_config(ROOT / "configs" / f"{name}.toml")
    assert config.data.task_family == FAMILIES[name]
    assert config.model.model_name == "embedded" and config.teacher.noise == "other_answer"
    tasks = load_tasks(ROOT / config.data.data_path, config.data.task_family)
    assert len(tasks) >= 40
    # Every task carries a known-good response: the SFT demonstration and stage 2's reference.
    assert all(t.answer for t in tasks)
    # Answers fit in the completion budget of the char-level model (one token per character + EOS).
    assert max(len(t.answer) for t in tasks) < config.grpo.sampling.max_tokens
    assert len({t.category for t in tasks}) >= 2  # the coverage gate needs more than one category


def test_the_rubric_config_defaults_to_openai_and_its_sample_holds_raw_tabs():
    config = load_config(ROOT / "configs" / "rubric.toml")
    assert config.verifier is not None and config.verifier.kind == "rubric"
    assert config.verifier.api_key_env == "OPENAI_API_KEY"
    assert "\t" in (ROOT / config.data.data_path).read_text(encoding="utf-8")
    local = load_config(
        ROOT / "configs" / "rubric.toml", ["verifier.base_url=http://127.0.0.1:8080/v1"]
    )
    assert local.verifier.base_url == "http://127.0.0.1:8080/v1"


def test_code_and_qa_samples_keep_their_family_fields():
    code = load_tasks(ROOT / "configs/data/code_sample.jsonl", "code")
    assert all(t.tests and t.metadata["solution"] == t.answer for t in code)
    qa = load_tasks(ROOT / "configs/data/qa_sample.jsonl", "qa")
    assert {t.num_hops for t in qa} == {2, 3}
    assert all(any(p.is_supporting for p in t.paragraphs) for t in qa)
    assert any(t.aliases for t in qa)
