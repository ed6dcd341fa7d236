"""Compare's head: the table of contents the sections fill as they are drawn, the settings row,
and the banner on rows grouped by a user column."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ui.analyses import compare_setup
from ui.analyses.compare_setup import CompareSettings
from ui.compute import thresholds, uncertainty
from ui.tables.dataset import Dataset

__all__ = ["Contents", "grouping_banner", "settings"]


class Contents:
    """The table of contents of the sections this run draws (the page is long): each heading
    adds its link as it is drawn, so the list is right even where the page stops early. It
    sticks under the app's header while the page scrolls, on an opaque band; on a phone it is
    one line that scrolls sideways. A followed link, like every other scroll the browser makes
    to a heading or a table, stops below the band. Presentation mode has none."""

    def __init__(self, presenting: bool):
        self._toc = st.container(key="compare_toc").empty() if not presenting else None
        self._sections: list[tuple[str, str]] = []
        st.html(compare_setup.contents_css(st.context.theme.type == "dark"))

    def section(self, title: str, anchor: str) -> None:
        """A section's heading, and its link in the contents."""
        st.subheader(title, anchor=anchor)
        self._sections.append((title, anchor))
        if self._toc is not None:
            self._toc.caption(compare_setup.contents_caption(self._sections))


def settings(head, ds: Dataset, models: tuple[str, ...]) -> CompareSettings:
    """The settings row (``head``'s bordered box, or its popover in presentation mode), and a
    button to run the bootstrap on a table too large to resample without asking."""
    n_rows = len(ds.labels_for(models[0]))
    left, middle, right = head.settings((2, 1, 2))
    n_resamples = left.select_slider(
        "Bootstrap resamples", options=[0, 100, 200, 500, 1000, 2000], value=1000,
        key="compare_resamples",
        help="Paired: every resample draws each row a Poisson(1) number of times (as TFMA "
        "does) and scores every model on the same rows; GAUC resamples whole users. "
        "0 shows the values only.",
    )  # fmt: skip
    interval = middle.radio(
        "Interval", ["percentile", "BCa"], key="compare_interval", horizontal=True,
        help="BCa (bias-corrected and accelerated) applies to AUC and its differences, whose "
        "jackknife is cheap; the other metrics keep the percentile interval.",
    )  # fmt: skip
    max_fpr = middle.number_input(
        "Partial AUC up to FPR", min_value=0.0, max_value=1.0, value=0.1, step=0.05,
        key="compare_max_fpr",
        help="Adds the McClish-standardised partial AUC over FPR in [0, this] (0.5 = chance, "
        "1 = perfect), as medicine and fraud teams report it; 0 leaves it out.",
    )  # fmt: skip
    group_column = ds.mapping.group if ds.prepared.groups is not None else None
    independent = group_column is not None and right.toggle(
        "Rows are independent",
        value=False,
        key="compare_rows_independent",
        help=f"Off (the default): rows of one {group_column} are not independent, so every "
        f"interval and test resamples whole {group_column} values (a cluster bootstrap). On: "
        "treat every row as independent, only if you know the column does not group them.",
    )  # fmt: skip
    choices = compare_setup.family_choices(
        max_fpr, ds.prepared.groups is not None, thresholds.probabilities(ds, models)
    )
    chosen = right.selectbox(
        "Stars rest on", list(choices), key="compare_family",
        help="Declare before looking which tests a star may come from. One primary metric "
        "(AUC unless you choose another): only its pairs are tested for a star, Holm-corrected "
        "across them; the other metrics are exploratory, shown with unadjusted p-values and "
        "never starred. Or every metric: Holm across metrics × pairs. Either way the chance "
        "of any wrong star is at most 5%; starring wherever some metric is significant is not "
        "(two equal models, eleven metrics: about 13%).",
    )  # fmt: skip
    this_run = (ds.key, models, n_resamples)
    asked_for = st.session_state.get("compare_run_bootstrap_for")
    wanted = compare_setup.bootstrap_wanted(n_rows, len(models), n_resamples, asked_for, this_run)
    if n_resamples and not wanted:
        ask = st.container() if head.presenting else right  # (not hidden in the popover)
        ask.write(compare_setup.slow_sentence(n_rows, n_resamples, len(models)))
        if ask.button("Compute the intervals", key="compare_run"):
            st.session_state["compare_run_bootstrap_for"] = this_run
            st.rerun()
    return CompareSettings(
        ds, models, n_rows, n_resamples, interval, max_fpr, group_column, independent, wanted,
        min(n_resamples, uncertainty.CURVE_RESAMPLES), head.presenting, choices[chosen],
    )  # fmt: skip


def grouping_banner(s: CompareSettings) -> None:
    """On rows with a group column, whether the intervals resample whole groups (an info) or
    rows the user declared independent (a warning)."""
    if s.group_column is None:
        return
    kind, text = compare_setup.grouping_banner(s, np.unique(s.ds.prepared.groups).size)
    if kind == "info":
        st.info(text)
    else:
        st.warning(text, icon=":material/warning:")
