"""`rlvr check --adversary FILE` as typed: stage 3's adversary on a user's task file, a table per
kind on stdout, the verdict on stderr, exit 1 when a wrong variant passes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_runner import rlvr

ROOT = Path(__file__).resolve().parents[3]


def test_check_adversary_prints_a_table_per_kind_and_exits_0_on_a_sound_verifier(
    capsys, monkeypatch
):
    monkeypatch.chdir(ROOT)  # as the README types it
    result = rlvr(capsys, "check", "--adversary", "configs/data/math_sample.jsonl", "--tasks", "10")
    assert result.code == 0, result.err
    header, *rows = result.out.splitlines()
    assert header.split()[:3] == ["kind", "checked", "misjudged"]
    by_kind = {row.split()[0]: row.split()[1:3] for row in rows}
    for kind in ("adversary:hedge", "adversary:retraction", "adversary:unicode",
                 "adversary:right:boxed", "equivalent", "empty"):  # fmt: skip
        assert kind in by_kind and int(by_kind[kind][0]) > 0 and by_kind[kind][1] == "0"
    assert "10 tasks (math, verifier math), seed 0" in result.err
    assert "right variants passed 100.0%" in result.err
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert result.error_lines[-1] in readme  # the README's example is what it prints
    assert all(
        row in readme
        for row in rows
        if row.startswith(("adversary:hedge ", "adversary:right:boxed"))
    )


def test_check_adversary_names_the_kind_and_example_that_passed_and_exits_1(
    capsys, tmp_path, monkeypatch
):
    from stages.tasks.families import FAMILIES

    # A planted "wrong" variant that is the gold itself: the QA verifier must pass it, so the
    # command sees a wrong variant pass, as it would for a real hole.
    planted = lambda task, others, rng: [("adversary:planted", f"Answer: {task.answer}")]  # noqa: E731
    monkeypatch.setattr(FAMILIES["qa"], "known_hacks", planted)
    rows = [{"question": f"Q{i}?", "answer": f"Name{i}", "answer_aliases": []} for i in range(5)]
    path = tmp_path / "qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = rlvr(capsys, "check", "--adversary", str(path), "--seed", "3")
    assert result.code == 1, result.err
    assert "5 tasks (qa, verifier qa), seed 3" in result.err
    assert "FAIL (zero tolerance): wrong variants passed: adversary:planted" in result.err
    row = next(r for r in result.out.splitlines() if r.startswith("adversary:planted"))
    assert row.split()[1:3] == ["5", "5"] and "'Answer: Name" in row


def test_check_without_a_file_or_adversary_is_one_clear_line(capsys):
    result = rlvr(capsys, "check", "--verifier", "math")
    assert result.code == 2 and result.error_lines == ["error: missing FILE (or --adversary FILE)"]
