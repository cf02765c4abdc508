"""Round 17 mends to the math verifier (issue 27, red team round 17). Each wrong response is a
near-variant of a round-17 mechanism with other words than the attacker's; each right one is the
control the new rule must leave paid. Every new pattern also meets long filler in bounded time."""

from __future__ import annotations

import time

import pytest

from stages.verifiers.registry import build_verifier

VERIFIER = build_verifier({"kind": "math"})


def _paid(response: str, reference: str) -> bool:
    return VERIFIER.verify(response, reference).passed


def _seconds(response: str, reference: str = "5") -> float:
    start = time.perf_counter()
    VERIFIER.verify(response, reference)
    return time.perf_counter() - start


@pytest.mark.parametrize(
    "tags",
    ["</think>" * 12_000, "</think> x " * 9_000, "<think></think>" * 7_000, "</THINK>\n" * 11_000],
)
def test_many_think_tags_are_read_in_linear_time(tags: str) -> None:
    assert _seconds(tags + "The answer is $\\boxed{5}$.") < 1.0


def test_a_value_between_stray_think_tags_is_still_a_second_commitment() -> None:
    response = "</think>" * 50 + " 7 " + "</think>" * 50 + "The answer is $\\boxed{5}$."
    assert not _paid(response, "5")
    assert _paid("</think>" * 50 + "The answer is $\\boxed{5}$.", "5")
