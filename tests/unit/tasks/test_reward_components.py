"""Weighted reward components of a task family (`grpo.reward_weights`), scored by the real
verifiers: the verifier's reward is `correctness`, the math and arithmetic families add `format`,
the reward is the weighted sum and each component stays in the verdict."""

from __future__ import annotations

import pytest

from orchestrator.config import load_config
from orchestrator.errors import ConfigError
from stages.rl.rewards import DETAILS_KEY, components_of, weigh
from stages.tasks.references import verify_tasks
from stages.tasks.types import Task
from stages.verifiers.registry import build_verifier
from stages.verifiers.types import fail

WEIGHTS = {"correctness": 1.0, "format": 0.25}


def _scored(family: str, kind: str, answer: str, responses: list[str], weights=WEIGHTS):
    task = Task(task_id="t", family=family, prompt="7+5=", answer=answer)
    tasks = [task] * len(responses)
    verdicts = verify_tasks(build_verifier({"kind": kind}), tasks, responses)
    return weigh(verdicts, tasks, responses, weights)


def test_math_correctness_and_format_are_weighed_and_each_kept_in_the_verdict() -> None:
    responses = ["so \\boxed{12}", "it is 12", "Answer: 13", "Answer: 12 or 13"]
    verdicts = _scored("math", "math", "12", responses)
    assert [v.details[DETAILS_KEY] for v in verdicts] == [
        {"correctness": 1.0, "format": 1.0},  # right, stated as a final
        {"correctness": 1.0, "format": 0.0},  # right, but no final form
        {"correctness": 0.0, "format": 1.0},  # wrong, well formed
        {"correctness": 0.0, "format": 0.0},  # a hedge is neither
    ]
    assert [v.reward for v in verdicts] == [1.25, 1.0, 0.25, 0.0]
    assert [v.passed for v in verdicts] == [True, True, False, False]  # the verifier's judgement
    assert components_of(verdicts, 2) == {
        "correctness": [[1.0, 1.0], [0.0, 0.0]],
        "format": [[1.0, 0.0], [1.0, 0.0]],
    }


def test_arithmetic_format_is_one_bare_integer_and_correctness_weighs_one_unless_named() -> None:
    verdicts = _scored("arithmetic", "math", "12", ["12", " -3\n", "Answer: 12"], {"format": 0.5})
    assert [v.details[DETAILS_KEY]["format"] for v in verdicts] == [1.0, 1.0, 0.0]
    assert [v.reward for v in verdicts] == [1.5, 0.5, 1.0]


def test_without_weights_the_verdicts_are_the_verifiers_own() -> None:
    (verdict,) = _scored("math", "math", "12", ["\\boxed{12}"], {})
    assert verdict.reward == 1.0 and DETAILS_KEY not in verdict.details


def test_an_excluded_verdict_has_no_reward_to_weigh() -> None:
    task = Task(task_id="t", family="math", prompt="?", answer="1")
    outage = fail("judge_error", "judge unreachable")
    assert weigh([outage], [task], ["\\boxed{1}"], WEIGHTS) == [outage]


def test_a_response_that_made_the_verifier_raise_scores_0_in_every_component() -> None:
    task = Task(task_id="t", family="math", prompt="?", answer="1")
    (weighed,) = weigh([fail("verifier_error", "raised")], [task], ["\\boxed{1}"], WEIGHTS)
    assert weighed.reward == 0.0 and not weighed.excluded
    assert set(weighed.details[DETAILS_KEY].values()) == {0.0}


def test_a_component_the_family_does_not_offer_is_refused_when_the_config_loads() -> None:
    with pytest.raises(
        ConfigError,
        match="reward_weights: no reward component 'style': task family 'arithmetic' offers "
        "correctness, format \\(got \\{'style': 1.0\\}\\)$",
    ):
        load_config(None, ["grpo.reward_weights={style=1.0}"])
    with pytest.raises(
        ConfigError, match=r"'format': task family 'reverse' offers correctness \(got"
    ):
        load_config(None, ["data.task_family=reverse", "grpo.reward_weights={format=1.0}"])
    with pytest.raises(ConfigError, match="finite"):
        load_config(None, ["grpo.reward_weights={format=inf}"])
    assert load_config(None, ["grpo.reward_weights={format=0.1}"]).grpo.reward_weights == {
        "format": 0.1
    }
