"""Compare's three-or-more-model ranking follows the data (issue 31 §5): mapping a user column
after the page chose its blocks moves the ranking onto users, as the banner and McNemar's note
say; unmapping it moves the ranking back. A choice the user made stays while its options do."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.apptest_utils import upload_frame
from ui.analyses import compare_many
from ui.tables.roles import NONE

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def _table(seed: int = 0, n: int = 600) -> pd.DataFrame:
    """Three models, a 4-value slice column and 30 districts (whole numbers, not guessed as a
    user column by their name)."""
    rng = np.random.default_rng(seed)
    district = rng.integers(1, 31, n)
    y = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "district": district,
            "livch": rng.choice(["0", "1", "2", "3+"], n),
            "y": y,
            "logit": np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1).round(4),
            "forest": np.clip(0.25 * y + 0.75 * rng.random(n), 0, 1).round(4),
            "bayes": np.clip(0.2 * y + 0.8 * rng.random(n), 0, 1).round(4),
        }
    )


def _blocks_caption(at: AppTest) -> str:
    return next(c.value for c in at.main.caption if c.value.startswith("Blocks: "))


def _ranked_over(at: AppTest) -> tuple:
    return at.selectbox(key="compare_many_blocks").value


def test_mapping_a_user_column_after_opening_compare_ranks_over_users():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    upload_frame(at, _table())
    at.selectbox(key="map_group").set_value(NONE).run()
    at.multiselect(key="map_scores").set_value(["logit", "forest", "bayes"]).run()
    at.multiselect(key="map_slices").set_value(["livch"]).run()
    at.session_state["compare_resamples"] = 100
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    assert _ranked_over(at) == (compare_many.SLICES, "livch")
    assert "4 values of livch" in _blocks_caption(at)

    at.selectbox(key="map_group").set_value("district").run()
    assert not at.exception, at.exception
    assert any("resamples whole district values" in i.value for i in at.main.info)
    assert _ranked_over(at) == (compare_many.USERS, "district")
    assert "30 users (district)" in _blocks_caption(at)

    # The user's own pick among the same options stays...
    at.selectbox(key="compare_many_blocks").set_value((compare_many.SLICES, "livch")).run()
    at.number_input(key="compare_max_fpr").set_value(0.2).run()
    assert _ranked_over(at) == (compare_many.SLICES, "livch")
    # ... and unmapping the user column takes the ranking off users.
    at.selectbox(key="map_group").set_value(NONE).run()
    assert not at.exception, at.exception
    assert _ranked_over(at) == (compare_many.SLICES, "livch")
    at.selectbox(key="map_group").set_value("district").run()
    assert _ranked_over(at) == (compare_many.USERS, "district")
    at.selectbox(key="map_group").set_value(NONE).run()
    assert _ranked_over(at) == (compare_many.SLICES, "livch")
    assert "4 values of livch" in _blocks_caption(at)


def test_the_blocks_follow_the_best_choice_when_it_changes():
    users, slices, resamples = (
        (compare_many.USERS, "district"),
        (compare_many.SLICES, "livch"),
        (compare_many.RESAMPLES, None),
    )
    follow = compare_many.follow_blocks
    # A first visit, or a value no longer offered: the best choice.
    assert follow([slices, resamples], None, None) == slices
    assert follow([slices, resamples], [users, slices], users) == slices
    # The best choice changed (a user column mapped): it is taken.
    assert follow([users, slices, resamples], [slices, resamples], slices) == users
    # The same best choice: the user's pick stays, even when others come and go.
    assert follow([users, slices, resamples], [users, slices], slices) == slices
    assert follow([users, slices], [users, slices, resamples], slices) == slices
