"""Plotly's key-path parse, memoised (ui/figures/key_paths.py): the same paths as plotly's own,
each caller its own list, and the same figures."""

from __future__ import annotations

import numpy as np
import plotly.basedatatypes as plotly_base
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics
from tests.strategies import examples
from ui.figures import key_paths

KEYS = ["xaxis_title", "xaxis_title_text", "plot_bgcolor", "paper_bgcolor", "margin_b",
        "legend_orientation", "error_x", "error_x_color", "annotations[0].text", "title.font",
        "yaxis2_range", "_private", "trailing_", "a__b", "", "modebar_orientation",
        "title_font_family", "marker_line_width", "hoverlabel_font_size"]  # fmt: skip


def test_the_cache_is_in_place_for_this_plotly():
    assert key_paths.INSTALLED, "plotly renamed _str_to_dict_path_full: the cache is off"
    assert plotly_base._str_to_dict_path_full is key_paths._str_to_dict_path_full


@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(st.sampled_from(KEYS), st.text(alphabet="ab_.[]019xy", max_size=14)))
def test_each_key_parses_as_plotly_parses_it(key):
    try:
        want = key_paths._ORIGINAL(key)
    except Exception as exc:  # plotly's own error for a malformed key: the same one
        with pytest.raises(type(exc)):
            key_paths._str_to_dict_path_full(key)
        return
    for _ in range(2):  # the first call fills the cache, the second reads it
        got = key_paths._str_to_dict_path_full(key)
        assert got == want
        assert (type(got[0]), type(got[1])) == (type(want[0]), type(want[1]))
        got[1].append(-1)  # a caller changing its list changes nobody else's


def test_figures_are_the_same_with_and_without_the_cache(monkeypatch):
    from ui.views import show

    build = getattr(show.threshold_figures, "__wrapped__", show.threshold_figures)
    rng = np.random.default_rng(3)
    counts = metrics.threshold_counts(rng.integers(0, 2, 400), rng.random(400).round(2))

    def figures(i: int) -> list[str]:
        made = build(("key-paths", i), "m", 0.4, "by actual", 2.0, "yes", "no", i == 1, counts,
                     {"auc": 0.5, "ap": 0.5})  # fmt: skip
        return [fig.to_json() for fig in made.values()]

    cached = [figures(0), figures(1)]
    monkeypatch.setattr(plotly_base, "_str_to_dict_path_full", key_paths._ORIGINAL)
    assert [figures(0), figures(1)] == cached


def test_a_plotly_that_parses_differently_keeps_its_own_parse(monkeypatch):
    monkeypatch.setattr(key_paths, "_ORIGINAL", lambda key: (list(key.split("_")), []))
    assert not key_paths._same_shape()
    monkeypatch.setattr(key_paths, "_ORIGINAL", lambda key: 1 / 0)
    assert not key_paths._same_shape()
