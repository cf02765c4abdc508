"""Start-up stays light: `rlvr --help` and `rlvr check` must not import matplotlib (only
`rlvr report` plots) or openai (only the rubric judge calls it); together they were over a second
of the CLI's 2.4 s start-up on a 2-core Xeon."""

import subprocess
import sys
import textwrap

HEAVY = ("matplotlib", "openai")


def _modules_after(code: str) -> set[str]:
    probe = textwrap.dedent(code) + "\nimport sys\nprint(' '.join(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return set(out.stdout.split())


def test_importing_the_cli_loads_neither_matplotlib_nor_openai():
    loaded = _modules_after("import orchestrator.cli")
    assert "orchestrator.cli" in loaded
    assert not {m for m in loaded if m.split(".")[0] in HEAVY}


def test_a_math_check_loads_neither(tmp_path):
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
    assert not {m for m in loaded if m.split(".")[0] in HEAVY}


def test_the_rubric_judge_still_builds_from_its_config():
    loaded = _modules_after(
        """
        import os
        from stages.verifiers.registry import build_verifier, default_config
        os.environ["OPENAI_API_KEY"] = "sk-test"
        judge = build_verifier(default_config("rubric"))
        assert judge.name == "rubric"
        """
    )
    assert "openai" in loaded
