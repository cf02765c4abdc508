"""Hostile inputs as a person types them (the real `rlvr` in a subprocess): a data row whose
30,000-character answer crashed mlx inside SFT (a segfault, rc 139, 7 s in) is refused at the door
with its file and line, by the character limit and, with that raised, by the model's context in
tokens; nothing of a run is left behind."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.slow.runs import ROOT, rlvr


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    rows = [{"prompt": f"{n}+1=", "answer": str(n + 1)} for n in range(20)]
    rows.insert(7, {"prompt": "1+1=", "answer": "2" * 30_000})
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path


def _refused(done, expected: str) -> None:
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr[-3000:]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr[-3000:]
    assert expected in lines[0], lines[0]


@pytest.mark.slow
def test_a_30000_character_answer_is_refused_before_sft(workdir: Path) -> None:
    done = rlvr("run", "configs/math.toml", "data.data_path=tasks.jsonl", cwd=workdir, timeout=300)
    _refused(done, "tasks.jsonl:8: field 'answer': 30,000 characters, over data.max_answer_chars")
    done = rlvr("run", "configs/math.toml", "data.data_path=tasks.jsonl",
                "data.max_answer_chars=100000", cwd=workdir, timeout=300)  # fmt: skip
    _refused(done, "tasks.jsonl:8: the prompt and answer take 30,005 tokens, over the model's "
             "context of 512 (model.max_position_embeddings)")  # fmt: skip
    assert not (workdir / "runs").exists()
