import pytest

from stages.verifiers.code_verifier import CodeVerifier, extract_code
from stages.verifiers.config import CodeVerifierConfig
from stages.verifiers.types import CodeReference


@pytest.fixture(scope="module")
def verifier():
    return CodeVerifier(
        CodeVerifierConfig(timeout_s=2.0, memory_mb=256, max_processes=8, max_file_mb=1)
    )


ADD_TESTS = "assert add(1, 2) == 3\nassert add(-1, 1) == 0"


def test_a_correct_fenced_solution_passes(verifier):
    verdict = verifier.verify("Here:\n```python\ndef add(a, b):\n    return a + b\n```", ADD_TESTS)
    assert verdict.passed and verdict.reward == 1.0


def test_test_functions_each_count_and_the_reward_is_the_pass_fraction(verifier):
    tests = (
        "def test_one():\n    assert add(1, 2) == 3\n\ndef test_two():\n    assert add(0, 0) == 1\n"
    )
    verdict = verifier.verify("def add(a, b):\n    return a + b", CodeReference(tests=tests))
    assert not verdict.passed and verdict.reward == 0.5 and verdict.status == "failed"
    assert "test_two" in verdict.details["failed_tests"][0]


def test_tests_can_import_the_solution_module(verifier):
    tests = "from solution import add\nassert add(2, 2) == 4"
    assert verifier.verify("def add(a, b):\n    return a + b", tests).passed


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("while True:\n    pass", "timeout"),
        (
            "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
            "runtime_error",
        ),
        ("x = bytearray(2 * 1024 ** 3)", "runtime_error"),
        ("x = [0] * (10 ** 9)", "runtime_error"),
        ("open('big', 'wb').write(b'0' * 5 * 1024 * 1024)", "runtime_error"),
        ("raise SystemExit(0)", "runtime_error"),
        ("import os\nos._exit(0)", "runtime_error"),
        ("print('all tests passed')\nimport sys\nsys.exit(0)", "runtime_error"),
        ("def add(a, b):\n    return a - b", "failed"),
        ("", "parse_error"),
    ],
)
def test_hostile_or_broken_programs_fail_with_a_reason(verifier, code, status):
    # No wall-clock bound here: the endless programs end only through the verifier's own limits,
    # so the status (timeout, runtime_error) is the proof that they were cut off.
    verdict = verifier.verify(code, ADD_TESTS)
    assert not verdict.passed and verdict.status == status, verdict


def test_secrets_in_the_parent_environment_are_not_visible(verifier, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "also-secret")
    code = "import os\nLEAKED = [k for k in os.environ if 'KEY' in k or 'SECRET' in k]\nprint(dict(os.environ))"
    verdict = verifier.verify(code, "assert LEAKED == []")
    assert verdict.passed, verdict
    assert "sk-must-not-leak" not in verdict.details["stderr"]


def test_a_batch_runs_programs_concurrently_and_keeps_order(verifier):
    items = [
        ("def add(a, b):\n    return a + b", ADD_TESTS),
        ("def add(a, b):\n    return 0", ADD_TESTS),
    ] * 2
    assert [v.passed for v in verifier.verify_batch(items)] == [True, False, True, False]


def test_code_is_taken_from_the_last_fenced_block():
    assert extract_code("```python\nx = 1\n```\ntext\n```py\nx = 2\n```") == "x = 2\n"
    assert extract_code("x = 3") == "x = 3"
