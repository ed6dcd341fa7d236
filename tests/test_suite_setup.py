"""The suite's own set-up: the generated tests' budgets under each Hypothesis profile, and how
AppTest waits for a run."""

from __future__ import annotations

import pytest
from hypothesis import settings

from tests.strategies import examples


def test_make_test_and_ci_draw_every_example_and_test_fast_a_quarter():
    for name in ("default", "ci"):
        profile = settings.get_profile(name)
        assert [examples(n, profile) for n in (3, 8, 40, 150, 400)] == [3, 8, 40, 150, 400]
    fast = settings.get_profile("fast")
    assert [examples(n, fast) for n in (3, 8, 40, 150, 400)] == [3, 5, 10, 38, 100]


def test_apptest_waits_for_the_run_and_still_reports_one_that_outlives_its_timeout():
    """The suite waits for a script run by joining its thread (tests/conftest.py), not by
    polling; a run that is still going at the timeout is stopped and reported, as Streamlit's
    own wait does."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string("import streamlit as st\nst.write('ran')", default_timeout=10)
    assert at.run().markdown[0].value == "ran"
    slow = AppTest.from_string("import time\ntime.sleep(0.4)", default_timeout=0.05)
    with pytest.raises(RuntimeError, match=r"timed out after 0\.05"):
        slow.run()
