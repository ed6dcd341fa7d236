"""The GAUC page's sections: the shift experiment, other libraries' GAUC and two models head to
head."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ui.compute import labs, uncertainty
from ui.figures import gauc_charts
from ui.tables.dataset import Dataset
from ui.teaching import gauc_explain
from ui.views.explain import explain
from ui.views.show import chart
from ui.words import conventions
from ui.words import gauc_text as words
from ui.words.numbers import decimals
from ui.words.safe import md

__all__ = ["head_to_head", "other_libraries", "shift"]

STRENGTHS = (-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0)


def shift(ds: Dataset, model: str, weighting: str) -> None:
    """Add one offset to every row of each user: global AUC moves, GAUC stays put."""
    with st.container(border=True):
        mode_col, strength_col = st.columns([1, 2])
        mode = mode_col.radio(
            "Offset per user", list(gauc_charts.OFFSET_MODES),
            format_func=gauc_charts.OFFSET_MODES.get, key="gauc_offset_mode",
        )  # fmt: skip
        strength = strength_col.slider(
            "Per-user offset strength", -2.0, 2.0, 1.0, step=0.25, key="gauc_offset_strength",
            help="Every row of a user gets the same offset: strength × the user's offset.",
        )  # fmt: skip
    sweep, k, overall = labs.gauc_offset_sweep(ds.key, model, mode, weighting, STRENGTHS, ds)
    base = sweep.set_index("strength").loc[0.0]
    if float(strength) in STRENGTHS:
        now = sweep.set_index("strength").loc[float(strength)]
    else:  # between grid points: one more shift, cached on its own so the grid is not redone
        now = labs.gauc_offset_sweep(ds.key, model, mode, weighting, (float(strength),), ds)[
            0
        ].iloc[0]
    for col, name in zip(st.columns(2), ("global AUC", "GAUC"), strict=True):
        delta = now[name] - base[name]
        col.metric(
            f"{'Global AUC' if name == 'global AUC' else f'GAUC ({weighting})'}, shifted",
            words.defined(now[name]),
            delta="unchanged" if delta == 0 else f"{decimals(delta, plus=True)} vs no offset",
            delta_color="off" if delta == 0 else "normal",
            delta_arrow="off" if delta == 0 else "auto",
        )
    st.caption(words.SHIFT)
    chart(gauc_charts.offset_sweep_figure(sweep, strength=strength), key="gauc_sweep")
    explain(
        "the offset",
        gauc_explain.offset(mode, overall, k),
        note=f"The click rate is the share of {md(ds.positive_name)} rows. Strength {strength:g}: "
        f"global AUC {words.defined(now['global AUC'])}, GAUC {words.defined(now['GAUC'])}.",
    )


def other_libraries(ds: Dataset, model: str, users: np.ndarray, weighted: bool) -> None:
    """GAUC under DIN's, RecBole's and TorchRec's conventions, and why they differ."""
    found = labs.gauc_conventions(ds.key, model, ds)
    st.dataframe(conventions.gauc_table(found, users), hide_index=True, key="gauc_conventions")
    nonpositive = int(np.sum(ds.score(model) <= 0))
    for sentence in conventions.gauc_reasons(
        found, weighted=weighted, nonpositive_scores=nonpositive
    ):
        st.markdown(sentence)
    st.caption(conventions.GAUC_SOURCES)


def head_to_head(ds: Dataset, results: dict, weighting: str) -> None:
    """Two models' AUC user by user, and their GAUC difference with a cluster-bootstrap
    interval."""
    col_a, col_b = st.columns(2)
    name_a = col_a.selectbox("Model A", list(results), key="gauc_h2h_a")
    name_b = col_b.selectbox("Model B", [m for m in results if m != name_a], key="gauc_h2h_b")
    a, b = results[name_a][1], results[name_b][1]
    chart(
        gauc_charts.head_to_head_figure(a, b, name_a, name_b),
        key="gauc_head_to_head", name=f"per-user-auc-{name_a}-vs-{name_b}",
    )  # fmt: skip
    st.caption(words.head_to_head(name_a, name_b, gauc_charts.head_to_head(a, b)))
    try:
        boot = uncertainty.gauc_difference(ds.key, name_a, name_b, weighting, 1000, (a, b))
    except ValueError as exc:  # a model with no user that has both classes
        st.info(md(f"No interval on the GAUC difference: {exc}", limit=400))
        return
    p = boot.difference_p_value(0, 1)
    n = boot.n_resamples
    st.markdown(words.difference(weighting, name_a, name_b, boot.differences[(0, 1)], p, n))
    st.caption(words.BOOTSTRAP.format(n=n))
