"""The Calibration page's sections: the reliability diagrams with their numbers, and the
recalibration, before and after."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from ui.analyses import calibration_tables as tables
from ui.compute import decision_compute, thresholds
from ui.figures import calibration_charts
from ui.tables.dataset import Dataset
from ui.views.explain import explain
from ui.views.show import chart
from ui.words import calibration_text as words
from ui.words.safe import md

__all__ = ["Setting", "recalibration", "reliability"]

Stats = dict[str, decision_compute.CalibrationStats]


@dataclass(frozen=True)
class Setting:
    """The Calibration page's settings: the data, the models, the bins, the resamples (of rows or
    of whole groups), the band shown and the diagrams' height."""

    ds: Dataset
    models: tuple[str, ...]
    n_bins: int
    strategy: str
    n_resamples: int
    clustered: bool
    band_kind: str
    height: int


def _stats(s: Setting, method: str | None, names) -> Stats:
    return {
        m: decision_compute.model_calibration(
            s.ds.key, (m,), method, 5, s.n_bins, s.strategy, s.n_resamples, s.clustered, s.ds
        )[m]
        for m in names
    }


def _panels(s: Setting, lines, key: str, name: str, *, pairs: bool = False) -> None:
    """One reliability diagram per model (with its "before" line when ``pairs``), up to three
    side by side: overlaid bands of several models hide each other."""
    groups: dict[int, list] = {}
    for line in lines:
        groups.setdefault(line.color, []).append(line)
    columns = st.columns(min(len(groups), 3))
    for i, (color, group) in enumerate(groups.items()):
        title = s.models[color] + (" before and after" if pairs and len(group) > 1 else "")
        figure = calibration_charts.reliability_figure(
            group, title=title, band_label=words.BAND_LABEL[s.band_kind], height=s.height
        )
        with columns[i % len(columns)]:
            chart(figure, key=f"{key}_{i}", name=f"{name}-{s.models[color]}")


def reliability(s: Setting, probabilistic: list[str], resampled: str) -> Stats:
    """The reliability diagrams of the models with probabilities, their numbers, and the first
    one's formulas. Returns their calibration numbers."""
    before = _stats(s, None, probabilistic)
    lines = tables.reliability_lines(before, s.models, s.band_kind)
    _panels(s, lines, "calibration_reliability", "reliability-diagram")
    st.dataframe(tables.stats_frame(before), hide_index=True, width="stretch")
    st.caption(words.reliability_caption(resampled, s.n_resamples, s.band_kind))
    st.caption(words.ERRORS)
    m0, s0, ds = probabilistic[0], before[probabilistic[0]], s.ds
    d0, sq0 = tables.ece_numbers(ds.labels_for(m0), ds.score(m0), ds.weight, s.n_bins, s.strategy)
    share, gaps = s0.size / s0.size.sum(), abs(s0.prob_true - s0.prob_pred)
    rms, ece = s0.stats["RMS calibration error"].estimate, s0.stats["ECE"].estimate
    explain(
        "ECE, MCE and the Brier decomposition",
        words.ece_lines(m0, d0, sq0, rms, ece, share, gaps),
        note=words.ECE_NOTE,
    )
    return before


def recalibration(s: Setting, before: Stats) -> None:
    """The method, each model's reliability before and after, the numbers recalibration changes
    and the ones it keeps."""
    method = st.radio(
        "Method", list(words.METHODS), format_func=words.METHODS.get, key="calibration_method",
        horizontal=True, help=words.METHOD_HELP,
    )  # fmt: skip
    after: Stats = {}
    problems = []
    for m in s.models:
        try:
            after[m] = _stats(s, method, [m])[m]
        except ValueError as error:  # one class too small for five folds; beta on non-probabilities
            problems.append(f"**{md(m)}**: {md(error, limit=400)}")
    for problem in problems:
        st.warning(problem)
    if not after:
        return
    lines = tables.before_after_lines(after, before, s.models, method, s.band_kind)
    _panels(s, lines, "calibration_recalibrated", "reliability-before-after", pairs=True)
    ds, rows = s.ds, []
    for m in after:
        ece_before = before[m].stats["ECE"].estimate if m in before else None
        rows.append(
            tables.recalibration_row(
                m, ds.labels_for(m), ds.score(m), ds.weight,
                decision_compute.recalibrated(ds.key, m, method, 5, ds),
                decision_compute.in_sample_map(ds.key, m, method, ds),
                (ece_before, after[m].stats["ECE"].estimate), thresholds.current(ds, m),
            )
        )  # fmt: skip
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.dataframe(tables.stats_frame(after), hide_index=True, width="stretch")
    st.markdown(words.WHAT_CHANGES)
    st.caption(words.OUT_OF_FOLD)
    explain("the recalibration maps", words.MAP_LINES, note=words.MAP_NOTE)
