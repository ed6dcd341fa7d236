"""The suite's own set-up: the generated tests' budgets under each Hypothesis profile."""

from __future__ import annotations

from hypothesis import settings

from tests.strategies import examples


def test_make_test_and_ci_draw_every_example_and_test_fast_a_quarter():
    for name in ("default", "ci"):
        profile = settings.get_profile(name)
        assert [examples(n, profile) for n in (3, 8, 40, 150, 400)] == [3, 8, 40, 150, 400]
    fast = settings.get_profile("fast")
    assert [examples(n, fast) for n in (3, 8, 40, 150, 400)] == [3, 5, 10, 38, 100]
