"""Onset: where an excursion began, and the rollback that lands before it (policies/onset.py)."""

from __future__ import annotations

import random

import pytest

from policies import entropy, kl, rollback
from policies.config import PolicyConfig
from policies.onset import change_point, locate


def _shifted(seed: int, shift: float) -> tuple[list[float], int]:
    """N(0, 1) noise, `shift` added from step c on, c 8..40 steps in, 4..24 steps after it."""
    rng = random.Random(seed)
    c = rng.randint(8, 40)
    n = c + rng.randint(4, 24)
    return [rng.gauss(0.0, 1.0) + (shift if i >= c else 0.0) for i in range(n)], c


@pytest.mark.parametrize("seed", range(100))
def test_a_five_sigma_shift_in_gaussian_noise_is_found_within_one_step(seed: int) -> None:
    series, c = _shifted(seed, 5.0)
    assert abs(change_point(series) - c) <= 1


def test_a_four_sigma_shift_is_found_within_one_step_in_99_percent_of_series() -> None:
    # Not always: a 3-sigma draw beside the shift can move any split by two (6 of 1,000 here).
    hits = sum(abs(change_point(s) - c) <= 1 for s, c in map(_shifted, range(500), [4.0] * 500))
    assert hits >= 495


@pytest.mark.parametrize("seed", range(50))
def test_a_slow_drift_is_found_where_it_leaves_the_level_not_half_way_up(seed: int) -> None:
    # N(0, 0.5) noise; from step c the series climbs 0.5 a step (one noise sd) for 15 steps.
    rng = random.Random(seed)
    c = rng.randint(8, 40)
    series = [rng.gauss(0.0, 0.5) + (0.5 * (i - c + 1) if i >= c else 0.0) for i in range(c + 15)]
    assert change_point(series) <= c + 3


def test_too_short_a_series_has_no_change_point_and_the_crossing_stands() -> None:
    assert change_point([0.0, 0.0, 1.0, 1.0]) is None
    onset = locate([1, 2, 3, 4], [0.0, 0.0, 1.0, 1.0], crossing=3, direction="up")
    assert (onset.step, onset.crossing, onset.located) == (3, 3, False)


def test_a_shift_the_other_way_is_not_an_onset() -> None:
    values = [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    onset = locate(range(1, 8), values, crossing=7, direction="up")
    assert not onset.located and onset.step == 7


def _kl_drift(run, save_every: int = 5) -> int:
    """KL flat at 0.03 (noise sd 0.004) for 20 steps, then climbing 0.01 a step; a checkpoint
    every `save_every` steps. Returns the step the drift began."""
    rng = random.Random(7)
    for step in range(1, 33):
        drift = 0.01 * (step - 20) if step > 20 else 0.0
        run.metrics(step, kl=0.03 + drift + rng.gauss(0.0, 0.004))
        if step % save_every == 0:
            run.checkpoint(step)
    return 21


@pytest.mark.parametrize("target", ["onset", "last_good"])
def test_a_kl_drift_rolls_back_to_before_its_onset_not_its_first_crossing(run, target) -> None:
    began = _kl_drift(run)
    config = PolicyConfig.model_validate({"onset": {"target": target}})
    back = kl.decide(run.state, run.stored[-1], config)[0]
    assert back.action == "rollback"
    crossing = back.parameters["first_crossing_step"]
    assert crossing - began >= 5  # the smoothed KL crosses a whole save_every after the drift began
    assert abs(back.parameters["onset_step"] - began) <= 1
    assert f"began at step {back.parameters['onset_step']} (change point)" in back.reason
    if target == "onset":
        assert back.parameters["to_step"] < began  # the checkpoint of step 20
    else:  # the crossing rule lands on drifted weights: what `onset` exists to avoid
        assert back.parameters["to_step"] == 25


def test_a_slow_capability_slide_rolls_back_to_before_it_began(run) -> None:
    for step, score in ((10, 1.0), (20, 0.995), (30, 1.0), (40, 0.985), (50, 0.97), (60, 0.955)):
        run.checkpoint(step, reverse=score)  # each within the allowed 5%
    run.checkpoint(70, reverse=0.94)
    back = rollback.decide(run.state, run.stored[-1], PolicyConfig())[0]
    # The slide begins after step 30 (30's score lies on its line too: either split fits).
    assert (
        back.parameters["onset_step"] in (30, 40) and back.parameters["first_crossing_step"] == 70
    )
    assert back.parameters["to_step"] < back.parameters["onset_step"]
    last_good = PolicyConfig.model_validate({"onset": {"target": "last_good"}})
    assert rollback.decide(run.state, run.stored[-1], last_good)[0].parameters["to_step"] == 60


def test_an_entropy_slide_rolls_back_to_before_it_began(run) -> None:
    rng = random.Random(3)
    for step in range(1, 22):  # entropy ~1.0, then from step 11 falling 0.08 a step
        slide = 0.08 * (step - 10) if step > 10 else 0.0
        run.metrics(step, entropy=1.0 - slide + rng.gauss(0.0, 0.01))
        if step % 5 == 0:
            run.checkpoint(step)
    back = entropy.decide(run.state, run.stored[-1], PolicyConfig())[0]
    assert back.action == "rollback" and back.parameters["first_crossing_step"] == 19
    onset = back.parameters["onset_step"]
    assert abs(onset - 11) <= 1 and back.parameters["to_step"] < onset
    last_good = PolicyConfig.model_validate({"onset": {"target": "last_good"}})
    assert entropy.decide(run.state, run.stored[-1], last_good)[0].parameters["to_step"] == 15


def test_config_explain_names_every_policy_whose_rollback_the_onset_target_moves() -> None:
    from policies.settings import readers_of

    assert readers_of("policies.onset.target") == [
        f"the {name} policy" for name in ("rollback", "kl", "entropy", "reward_health")
    ]


@pytest.mark.parametrize("noise", [0.005, 0.0])
def test_a_sudden_drop_on_the_latest_eval_began_there_not_one_eval_earlier(run, noise) -> None:
    # The chaos run's poisoned capability: flat evals (there exactly 1.0), then one collapsed
    # eval. Its onset is the crossing itself; a split that needs two points after it, or a
    # line through two points (a perfect fit), would blame the eval before.
    for step, score in ((5, 1.0), (10, 1 - noise), (15, 1.0), (20, 1.0), (25, 1 - noise),
                        (30, 1.0), (35, 1.0), (40, 1.0)):  # fmt: skip
        run.checkpoint(step, reverse=score)
    run.checkpoint(45, reverse=0.085)
    back = rollback.decide(run.state, run.stored[-1], PolicyConfig())[0]
    assert (back.parameters["onset_step"], back.parameters["first_crossing_step"]) == (45, 45)
    assert back.parameters["to_step"] == 40
