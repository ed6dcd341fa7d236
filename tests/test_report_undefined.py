"""The report on tables where values are undefined (every score tied, a class of zero weight,
a threshold above every score, no group holding both classes): every undefined value reads
"undefined" with its reason, never "nan", and a GAUC that cannot exist is refused in a
sentence instead of a traceback."""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics_lens
from metrics_lens.inputs import BadInput
from tests.strategies import examples


def visible(page: str) -> str:
    text = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


@settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    how=st.sampled_from(["tied", "zero_weight_pos", "zero_weight_neg", "above_all", "plain"]),
    seed=st.integers(0, 2**16),
)
def test_undefined_values_say_so_with_a_reason(how, seed):
    rng = np.random.default_rng(seed)
    n = 120
    y = rng.random(n) < 0.3
    y[:2] = [True, False]
    frame = pd.DataFrame({"label": y.astype(int), "a": rng.random(n) + y, "b": rng.random(n)})
    kw: dict = {}
    if how == "tied":
        frame["a"] = 0.5
    if how.startswith("zero_weight"):
        frame["w"] = np.where(y == (how == "zero_weight_pos"), 0.0, 1.0)
        kw["weight"] = "w"
    if how == "above_all":
        kw["threshold"] = {"a": 5.0}
    page = metrics_lens.report_html(frame, label="label", score=["a", "b"], n_resamples=100, **kw)
    text = visible(page)
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)
    cells = re.findall(r'<span class="v">undefined</span>( <span class="why">\(([^)<]+)\))?', page)
    assert all(reason for _, reason in cells), cells
    if how.startswith("zero_weight"):
        assert "zero total weight" in text


def test_gauc_with_no_group_holding_both_classes_is_a_sentence():
    rng = np.random.default_rng(1)
    y = rng.random(100) < 0.4
    frame = pd.DataFrame({"label": y.astype(int), "a": rng.random(100), "b": rng.random(100),
                          "user": np.where(y, "p", "n")})  # fmt: skip
    with pytest.raises(BadInput, match="no group of user holds both classes"):
        metrics_lens.report_html(frame, label="label", score=["a", "b"], group="user",
                                 n_resamples=100)  # fmt: skip
