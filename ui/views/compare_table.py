"""Compare's first table: every model's numbers with their intervals and stars, the verdicts
and what a bracket is under it, and the table and the HTML report to download."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd
import streamlit as st

from metrics.families import FamilyResult
from ui.analyses import compare_table
from ui.analyses.compare_setup import CompareSettings
from ui.views.explain import explain
from ui.views.show import csv_download

__all__ = ["downloads", "numbers", "verdicts"]

REPORT_HELP = (
    "One self-contained HTML file that opens offline: every model's AUC, AP, partial AUC "
    "and Brier with intervals, ROC and PR with the operating points, the confusion at each "
    "model's current threshold, the AP methods, GAUC when grouped, and the verdicts "
    "(the same report as metrics-lens report)."
)


def numbers(
    table: pd.DataFrame,
    found: Mapping,
    helps: Mapping[str, str],
    family: FamilyResult | None = None,
) -> None:
    """Every model's metrics, each with its interval, starred where significantly best within
    the family; each header says whether its metric is the primary one or exploratory."""
    st.dataframe(
        compare_table.starred_table(table, found, helps),
        hide_index=True,
        width="stretch",
        column_config={
            name: st.column_config.TextColumn(
                compare_table.column_label(name, family), help=helps[name]
            )
            for name in helps
        },
    )


def verdicts(
    s: CompareSettings,
    found: Mapping,
    helps: Mapping[str, str],
    family: FamilyResult | None = None,
) -> None:
    """Each metric's verdict (two models or more), what a star and a bracket mean and which
    family of tests the stars rest on, and how the intervals are drawn."""
    if len(s.models) >= 2:
        st.markdown(compare_table.verdict_list(found, helps))
    st.caption(compare_table.star_caption(s, family if len(s.models) >= 2 else None))
    if s.wanted:
        explain(
            "the intervals",
            compare_table.interval_lines(s.n_resamples),
            note=compare_table.interval_note(s),
        )


def downloads(table: pd.DataFrame, build_report: Callable[[], str]) -> None:
    """The table as CSV, and a button that builds the HTML report (``build_report``) and
    offers it."""
    table_col, report_col = st.columns(2)
    with table_col:
        csv_download(
            "Download the table (CSV)", table, "model_comparison.csv", key="compare_download"
        )
    if report_col.button(
        "Build the HTML report", key="compare_report", icon=":material/description:",
        help=REPORT_HELP,
    ):  # fmt: skip
        with st.spinner("Writing the report..."):
            html = build_report()
        report_col.download_button(
            "Download the report (HTML)", html, file_name="metrics_lens_report.html",
            mime="text/html", key="compare_report_download", icon=":material/download:",
        )  # fmt: skip
