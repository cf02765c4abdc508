"""Issue 27, code: which block of a response runs, and that no other block changes what the tests
call (a later block rebinding a tested name made the verifier run one version while the
response's last word was another). Fence forms a correct solution comes in (~~~, ```Python3,
indented blocks) run, without opening a way to smuggle a second version past the rule."""

from __future__ import annotations

import shutil

import pytest

from stages.verifiers.code_blocks import CodeBlocksDisagree, extract_code
from stages.verifiers.code_verifier import CodeVerifier
from stages.verifiers.config import CodeVerifierConfig

TESTS = "assert add(2, 3) == 5\nassert add(-1, 1) == 0"
RIGHT = "def add(a, b):\n    return a + b\n"


def fenced(*blocks: str, between: str = "\nThen:\n") -> str:
    return between.join(f"```python\n{b}```" for b in blocks)


# A right first block, then a block that gives `add` (or what it reads) other code.
REBINDS = {
    "assignment": "add = lambda a, b: a - b\n",
    "code_swap": "add.__code__ = (lambda a, b: a - b).__code__\n",
    "partial": "import functools\nadd = functools.partial(lambda a, b, c: a - b, c=0)\n",
    "class": "class _A:\n    pass\nadd = _A\n",
    "redefinition": "def add(a, b):\n    return a - b\n",
    "decorator": "add = (lambda f: lambda a, b: f(a, b) + 1)(add)\n",
    "augmented": "add += 1\n",
    "import_as": "from operator import sub as add\n",
    "global_in_function": "def patch():\n    global add\n    add = lambda a, b: 0\npatch()\n",
    "globals_dict": "globals()['a' + 'dd'] = lambda a, b: 0\n",
    "exec": "exec('def add(a, b):\\n    return 0')\n",
    "setattr_module": "import sys\nsetattr(sys.modules[__name__], 'add', lambda a, b: 0)\n",
    "defaults": "add.__defaults__ = (0,)\n",
    "builtins": "import builtins\nbuiltins.add = lambda a, b: 0\n",
    "for_target": "for add in [lambda a, b: 0]:\n    pass\n",
    "walrus": "(add := lambda a, b: 0)\n",
    "delete": "del add\n",
    "with_as": "import contextlib\nwith contextlib.nullcontext(lambda a, b: 0) as add:\n    pass\n",
}


@pytest.mark.parametrize("later", REBINDS.values(), ids=REBINDS.keys())
def test_a_later_block_that_rebinds_a_tested_name_makes_the_response_ambiguous(later):
    with pytest.raises(CodeBlocksDisagree):
        extract_code(fenced(RIGHT, later), TESTS)


@pytest.mark.parametrize("earlier", REBINDS.values(), ids=REBINDS.keys())
def test_an_earlier_block_that_binds_a_tested_name_otherwise_is_refused_too(earlier):
    with pytest.raises(CodeBlocksDisagree):
        extract_code(fenced(earlier, RIGHT), TESTS)


def test_a_later_block_that_redefines_a_helper_the_tested_function_reads_is_refused():
    solution = "def _impl(a, b):\n    return a + b\n\ndef add(a, b):\n    return _impl(a, b)\n"
    for later in ("def _impl(a, b):\n    return a - b\n", "_impl = lambda a, b: 0\n",
                  "OFFSET = 1\n"):  # fmt: skip
        helper = solution.replace("return _impl(a, b)", "return _impl(a, b) + OFFSET")
        with pytest.raises(CodeBlocksDisagree):
            extract_code(fenced(solution if "OFFSET" not in later else "OFFSET = 0\n" + helper,
                                later), TESTS)  # fmt: skip


@pytest.mark.parametrize(
    "hidden",
    [
        "~~~python\nadd = lambda a, b: a - b\n~~~",  # a tilde fence
        "```Python3\nadd = lambda a, b: a - b\n```",  # another info string
        "```pycon\n>>> add = lambda a, b: a - b\n```",  # a REPL transcript
        "Or simply:\n\n    add = lambda a, b: a - b\n",  # an indented block beside fences
        "> Final:\n> ```python\n> add = lambda a, b: a - b\n> ```",  # a fence in a blockquote
        "> > ~~~\n> > add = lambda a, b: a - b\n> > ~~~",  # nested blockquotes
        "```python\nadd = lambda a, b: a - b  # fixed\n>>> oops\n```",  # a block that does not parse
    ],
)
def test_every_fence_form_takes_part_in_the_rule(hidden):
    with pytest.raises(CodeBlocksDisagree):
        extract_code(fenced(RIGHT) + "\n\n" + hidden, TESTS)


@pytest.mark.parametrize(
    "usage",
    [
        "print(add(1, 2))\n",
        "result = add(2, 3)\nassert result == 5\n",
        "import math\nprint(add(math.floor(1.5), 2))\n",
        RIGHT + "\nprint(add(1, 2))\n",  # the same definition again, with a usage line
        "from solution import add\nprint(add(1, 2))\n",
    ],
)
def test_a_usage_block_after_the_solution_runs_the_solution(usage):
    assert extract_code(fenced(RIGHT, usage), TESTS).startswith(RIGHT)


def test_the_same_function_documented_or_typed_in_a_later_block_is_the_same_answer():
    typed = 'def add(a: int, b: int) -> int:\n    """The sum."""\n    return a + b\n'
    assert extract_code(fenced(RIGHT, typed), TESTS) == typed
    with pytest.raises(CodeBlocksDisagree):  # but a docstring is not all it may change
        extract_code(fenced(RIGHT, typed.replace("a + b", "a - b")), TESTS)


def test_tested_names_defined_by_assignment_are_found_too():
    solution = "add = lambda a, b: a + b\n"
    assert extract_code(fenced(solution, "print(add(1, 2))\n"), TESTS) == solution


def test_the_block_that_defines_every_tested_name_runs_and_split_definitions_are_refused():
    both = RIGHT + "def sub(a, b):\n    return a - b\n"
    tests = TESTS + "\nassert sub(3, 1) == 2"
    assert extract_code(fenced(RIGHT, both), tests) == both
    with pytest.raises(CodeBlocksDisagree, match="no one code block"):
        extract_code(fenced(RIGHT, "def sub(a, b):\n    return a - b\n"), tests)


@pytest.mark.parametrize(
    "response",
    [
        "~~~python\n" + RIGHT + "~~~",
        "~~~~\n" + RIGHT + "~~~~",
        "```Python3\n" + RIGHT + "```",
        "```py\n" + RIGHT + "```",
        "```python3\n" + RIGHT + "```",
        "```PY3\n" + RIGHT + "```",
        "```python title=solution.py\n" + RIGHT + "```",
        "```{.python}\n" + RIGHT + "```",
        "Code:\r\n```python\r\n" + RIGHT.replace("\n", "\r\n") + "```\r\n",
        "Here is the solution:\n\n    def add(a, b):\n        return a + b\n",
        "Here is the solution:\n\n\tdef add(a, b):\n\t    return a + b\n\nDone.",
        "1. Code:\n   ```python\n   def add(a, b):\n       return a + b\n   ```\n",
        "Code:\n```python\n" + RIGHT + "```\nOutput:\n```text\nadd = 5\n```",
        "```javascript\nconst add = (a, b) => a - b;\n```\n```python\n" + RIGHT + "```",
    ],
)
def test_a_correct_solution_in_any_common_fence_form_is_what_runs(response):
    assert extract_code(response, TESTS).strip() == RIGHT.strip()


def test_a_repl_transcript_importing_the_program_is_a_usage_example():
    transcript = "```pycon\n>>> from solution import add\n>>> add(2, 3)\n5\n```"
    assert extract_code(fenced(RIGHT) + "\n" + transcript, TESTS) == RIGHT


def test_a_whole_response_that_is_code_runs_whole_and_prose_without_code_is_kept_as_is():
    program = "import math\n\ndef add(a, b):\n\n    return a + b\n"
    assert extract_code(program, TESTS) == program
    assert extract_code("I cannot solve this.", TESTS) == "I cannot solve this."


def test_a_fence_closes_where_a_renderer_closes_it():
    # four spaces before the backticks: a line of the block, so the rebinding below is in it
    response = "```python\n" + RIGHT + "    ```\nadd = lambda a, b: a - b\n```"
    assert "a - b" in extract_code(response, TESTS)
    listed = "1. Code:\n    ```python\n    def add(a, b):\n        return a + b\n    ```\n"
    assert extract_code(listed, TESTS) == RIGHT


def test_another_languages_fence_is_not_python_and_its_close_opens_nothing():
    # the old pattern took "```\n<prose>```" between two other-language fences for a block
    response = "```js\nx\n```\nadd = lambda a, b: 0\n```js\ny\n```\n```python\n" + RIGHT + "```"
    assert extract_code(response, TESTS) == RIGHT


@pytest.fixture(scope="module")
def verifier():
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    v = CodeVerifier(CodeVerifierConfig(timeout_s=3.0, memory_mb=256, max_processes=8))
    yield v
    v.close()


def test_the_verifier_fails_a_rebinding_response_with_the_reason_and_runs_fence_variants(verifier):
    verdict = verifier.verify(fenced(RIGHT, REBINDS["code_swap"]), TESTS)
    assert not verdict.passed and verdict.status == "parse_error"
    assert "define add differently" in verdict.reason
    for response in (
        "~~~python\n" + RIGHT + "~~~",
        "Solution:\n\n    " + RIGHT.replace("\n    ", "\n        "),
    ):
        assert verifier.verify(response, TESTS).passed, response


def test_names_the_tests_bind_themselves_are_not_the_programs_and_usage_variables_are_fine():
    tests = "import math\nassert math.isclose(add(0.1, 0.2), 0.3)"
    usage = "import math\na, b = 0.1, 0.2\nprint(add(a, b), math.pi)\n"
    assert extract_code(fenced(RIGHT, usage), tests) == RIGHT


def test_a_later_block_that_rebinds_a_builtin_or_module_the_solution_reads_is_refused():
    solution = "import math\n\ndef add(a, b):\n    return int(math.fsum([a, b]))\n"
    for later in ("int = lambda x: 0\n", "import cmath as math\n", "math = None\n"):
        with pytest.raises(CodeBlocksDisagree):
            extract_code(fenced(solution, later), TESTS)
