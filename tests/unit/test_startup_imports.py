"""Start-up stays light: `rlvr --help` and `rlvr check` import none of what only other commands
need: mlx / mlx_lm / transformers and the RL and training stages (only `run`, `resume`, `branch`
and `calibrate` train), SQLAlchemy and the store (only commands that open a log), openai (only
the rubric judge calls it), sympy (only an answer that needs symbolic equivalence), apscheduler
(only `supervise`). Imported eagerly they made the CLI's start-up 2.4 s on an idle 2-core Xeon;
tests/benchmarks/bench_startup.py times it."""

import subprocess
import sys
import textwrap

HEAVY = (
    "openai", "mlx", "mlx_lm", "transformers", "sympy", "sqlalchemy", "sqlmodel",
    "apscheduler", "wandb", "tensorboardX", "stages.rl", "stages.training", "store.log",
    "orchestrator.driver.registry", "orchestrator.config",
)  # fmt: skip


def _heavy(loaded: set[str]) -> set[str]:
    return {m for m in loaded for h in HEAVY if m == h or m.startswith(h + ".")}


def _modules_after(code: str) -> set[str]:
    probe = textwrap.dedent(code) + "\nimport sys\nprint(' '.join(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return set(out.stdout.split())


def test_importing_the_cli_loads_nothing_heavy():
    loaded = _modules_after("import orchestrator.cli")
    assert "orchestrator.cli" in loaded
    assert not _heavy(loaded)


def test_rlvr_help_loads_nothing_heavy():
    loaded = _modules_after(
        """
        import sys
        from orchestrator.cli import main
        sys.argv = ["rlvr", "--help"]
        try:
            main()
        except SystemExit as e:
            assert e.code == 0, e.code
        """
    )
    assert "typer" in loaded
    assert not _heavy(loaded)


def test_a_math_check_loads_nothing_heavy(tmp_path):
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        '{"response": "\\\\boxed{5}", "reference": "5"}\n'
        '{"response": "Answer: 3", "reference": "4"}\n'
        '{"response": "$\\\\frac{1}{2}$", "reference": "0.5"}\n'
    )
    loaded = _modules_after(
        f"""
        import sys
        from orchestrator.cli import main
        sys.argv = ["rlvr", "check", "--verifier", "math", {str(answers)!r}]
        try:
            main()
        except SystemExit:
            pass
        """
    )
    assert "stages.verifiers.math_verifier" in loaded
    assert not _heavy(loaded)


def test_the_rubric_judge_still_builds_from_its_config():
    loaded = _modules_after(
        """
        import os
        from stages.verifiers.registry import build_verifier
        from stages.tasks.references import default_config
        os.environ["OPENAI_API_KEY"] = "sk-test"
        judge = build_verifier(default_config("rubric"))
        assert judge.name == "rubric"
        """
    )
    assert "openai" in loaded
