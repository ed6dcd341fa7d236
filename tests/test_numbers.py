"""Values equal up to round-off display as equal; real differences still show."""

from __future__ import annotations

import math

import pytest

from ui.words.numbers import difference_text, same


def test_round_off_is_the_same_value():
    assert same(97 / 120, 97 / 120 + 1.1e-16)
    assert same(0.1 + 0.2, 0.3)
    assert same(0.0, 1e-17)
    assert same(math.nan, math.nan)
    assert not same(math.nan, 0.0)


@pytest.mark.parametrize(
    ("a", "b"), [(0.5, 0.5 + 1e-10), (1e-9, 2e-9), (0.0, 1e-12), (5 / 6, 0.7917)]
)
def test_real_differences_are_differences(a, b):
    assert not same(a, b)
    assert not difference_text(a, b, "step").startswith("same")


def test_difference_text():
    assert difference_text(0.8333333333333333, 0.8333333333333334, "step") == "same as step"
    assert difference_text(0.7917, 0.8333, "step") == "-0.0416 vs step"
    assert difference_text(0.5 + 3e-6, 0.5, "trapezoid") == "+3.0e-06 vs trapezoid"
