"""Compare on a server dataset: what the engine's sums can test without the rows in memory.

AUC: DeLong's interval of each model from its per-score counts, and DeLong's paired test of
every pair from one more pass of the engine (each row joined to its placement under each model).
With a user or query column, that pass also sums each user's placements, and the intervals and
tests are Obuchowski's clustered ones (rows of one user are not independent).
GAUC: a cluster bootstrap of the per-user AUCs the engine returned. AP: the value only; its
bootstrap resamples rows, which a server dataset does not hold.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from metrics.significance import P_FLOOR, format_p
from metrics.sql import DeLongSummary
from ui.analyses import summaries
from ui.compute import server_source
from ui.tables.dataset import Dataset
from ui.views.show import csv_download
from ui.words.numbers import decimals
from ui.words.safe import md

# Rows up to which the paired DeLong pass runs without asking (two models at 1e7 rows: 13 s on
# two busy cores).
AUTO_ROWS = 10_000_000
GAUC_RESAMPLES = 1000
CLUSTERED_TEST = "Obuchowski, clustered"
HELPS = {
    "AUC": "higher is better; 95% DeLong interval (normal, from the placement values); with a "
    "user column, Obuchowski's clustered interval (Student t, G* − 1 degrees of freedom).",
    "AP": "higher is better; step sum, exact. No interval: its bootstrap needs the rows.",
    "GAUC": "higher is better; impressions-weighted, 95% cluster-bootstrap interval over users.",
}


def _spec(name: str) -> summaries.MetricSpec:
    return summaries.MetricSpec(name, fn=lambda *a, **k: math.nan, higher_is_better=True, help="")


@st.cache_data(max_entries=8, show_spinner="Resampling users...")
def _gauc_bootstrap(key: tuple, models: tuple[str, ...], _tables: list) -> metrics.BootstrapResult:
    return metrics.cluster_bootstrap(
        np.column_stack([t.auc for t in _tables]),
        np.column_stack([t.weights("impressions") for t in _tables]),
        n_resamples=GAUC_RESAMPLES,
    )


def comparison(
    key: tuple, summary, models: list[str], paired: DeLongSummary | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(models, pairs) in the layout of :func:`ui.analyses.summaries.model_table`: per model each
    metric with ``low``/``high`` where an interval exists; per pair and metric the difference,
    its interval, p-value and test."""
    ms = [summary.models[m] for m in models]
    table = pd.DataFrame({"model": models, "AUC": [m.auc for m in ms]})
    # Rows of one user are not independent: with the engine's per-user sums the interval and
    # test are Obuchowski's clustered ones; without them DeLong's row-level ones are shown
    # beside the values, labelled, never as the verdict.
    clustered = paired is not None and paired.clusters is not None
    grouped = summary.group is not None and not clustered
    intervals = []
    for name, m in zip(models, ms, strict=True):
        if clustered:
            r = paired.clustered(name, small_sample=True)
            intervals.append(metrics.AUCInterval(r.auc_a, r.std_error_a, r.ci_low_a, r.ci_high_a,
                                                 r.alpha, r.n_pos, r.n_neg))  # fmt: skip
        elif paired is not None:
            intervals.append(paired.interval(name))
        elif summary.weight is None and m.table is not None:
            intervals.append(DeLongSummary.from_table(name, m.table).interval(name))
        else:
            intervals.append(None)
    if all(iv is not None for iv in intervals):
        low = "AUC row-level low" if grouped else "AUC low"
        table[low] = [iv.ci_low for iv in intervals]
        table[low.replace("low", "high")] = [iv.ci_high for iv in intervals]
    table["AP"] = [m.average_precision for m in ms]
    boot = None
    if all(m.groups is not None for m in ms):
        table["GAUC"] = [m.gauc for m in ms]
        if all(np.array_equal(ms[0].groups.group, m.groups.group) for m in ms):
            boot = _gauc_bootstrap(key, tuple(models), [m.groups for m in ms])
            table["GAUC low"] = [iv.ci_low for iv in boot.models]
            table["GAUC high"] = [iv.ci_high for iv in boot.models]
    pairs = []
    for i, j in itertools.combinations(range(len(models)), 2):
        for metric in [c for c in ("AUC", "AP", "GAUC") if c in table]:
            row = {"metric": metric, "model A": models[i], "model B": models[j],
                   "A − B": table.at[i, metric] - table.at[j, metric], "low": np.nan,
                   "high": np.nan, "p-value": np.nan, "test": "none",
                   "row-level p": np.nan}  # fmt: skip
            if metric == "AUC" and clustered:
                r = paired.clustered(models[i], models[j], small_sample=True)
                row.update(low=r.ci_low, high=r.ci_high, test=CLUSTERED_TEST)
                row["p-value"] = r.p_value
            elif metric == "AUC" and paired is not None and grouped:
                row["row-level p"] = paired.test(models[i], models[j]).p_value
            elif metric == "AUC" and paired is not None:
                r = paired.test(models[i], models[j])
                row.update(low=r.ci_low, high=r.ci_high, test="DeLong")
                row["p-value"] = r.p_value
            elif metric == "GAUC" and boot is not None:
                d = boot.differences[(i, j)]
                row.update(low=d.ci_low, high=d.ci_high, test="cluster bootstrap")
                row["p-value"] = boot.difference_p_value(i, j)
            pairs.append(row)
    columns = ["metric", "model A", "model B", "A − B", "low", "high", "p-value", "test",
               "row-level p"]  # fmt: skip
    return table, pd.DataFrame(pairs, columns=columns)


def _paired_delong(ds: Dataset, models: list[str]) -> DeLongSummary | None:
    """The engine's DeLong pass over the files: automatic up to ``AUTO_ROWS`` rows, else on a
    click; None where it cannot run (a summary file, weights, one model), after saying why."""
    source = ds.engine
    s = source.summary
    if len(models) < 2 and s.group is None:
        return None
    if not source.has_rows:
        st.caption(
            "A summary file holds per-score counts, not rows: DeLong's paired test of two AUCs "
            "needs both models' placements of the same row. Open the Parquet or CSV files "
            "themselves for it."
        )
        return None
    if s.weight is not None:
        st.caption("DeLong's test is unweighted; with a weight column only the values show.")
        return None
    asked = st.session_state.get("compare_server_delong") == (ds.engine.paths, tuple(models))
    test = "Obuchowski's clustered test" if s.group is not None else "DeLong's paired test"
    if s.rows > AUTO_ROWS and not asked:
        st.write(
            f"{test} reads the {s.rows:,} rows once more, joining each to its placement under "
            "every model" + (f" and summing them per {md(s.group)}." if s.group else ".")
        )
        if st.button(f"Run {test}", key="compare_server_run"):
            st.session_state["compare_server_delong"] = (ds.engine.paths, tuple(models))
            st.rerun()
        return None
    try:
        with st.spinner(f"{s.engine} pairs the models' placements, row by row..."):
            return server_source.delong(
                source.paths, source.stamps, s.label, tuple(models), source.pos_label, s.group
            )
    except ValueError as exc:  # SQLInputError: the files changed since the summary, say
        st.error(md(f"DeLong's pass failed: {exc}", limit=400))
        return None


def show(ds: Dataset) -> None:
    """The Compare page for a server dataset."""
    s = ds.engine.summary
    models = st.multiselect(
        "Models", list(s.models), default=list(s.models), key="compare_server_models"
    )
    if not models:
        st.info("Pick at least one model.")
        return
    st.caption(
        f"{s.rows:,} rows reduced by {s.engine}: the page has each model's per-score counts "
        "(and per-user AUCs), not the rows. AUC intervals are "
        + (
            f"Obuchowski's, from each {md(s.group)}'s placement sums (rows of one "
            f"{md(s.group)} are not independent)"
            if s.group is not None
            else "DeLong's, from those counts"
        )
        + "; GAUC's come from resampling whole users; AP shows its exact value only, since its "
        "bootstrap resamples rows. Upload a sample of the table for every metric's interval."
    )
    paired = _paired_delong(ds, models)
    table, pairs = comparison(ds.key, s, models, paired)
    specs = [_spec(name) for name in ("AUC", "AP", "GAUC") if name in table]
    # Every tested metric is in the family (AP is not tested here): Holm across metrics × pairs.
    found, pairs, family = summaries.verdicts_in_family(table, pairs, specs, family="all")

    def cell(row, name: str) -> str:
        text = f"{decimals(row[name])}"
        if f"{name} low" in row:
            text += f"  [{row[f'{name} low']:.4f}, {row[f'{name} high']:.4f}]"
        elif f"{name} row-level low" in row:  # labelled: not the interval of grouped rows
            text += f"  (row-level [{row[f'{name} row-level low']:.4f}, "
            text += f"{row[f'{name} row-level high']:.4f}])"
        return ("★ " if found[name].best == row.name else "") + text

    shown = table[["model"]].copy()
    for spec in specs:
        shown[spec.name] = table.apply(cell, axis=1, args=(spec.name,))
    st.dataframe(
        shown,
        hide_index=True,
        width="stretch",
        column_config={
            spec.name: st.column_config.TextColumn(spec.name, help=HELPS[spec.name])
            for spec in specs
        },
        key="compare_server_table",
    )
    csv_download("Download the table (CSV)", table, "model_comparison.csv",
                 key="compare_server_download")  # fmt: skip
    if len(models) < 2:
        return
    st.subheader("Are the differences real?")
    for row in pairs.to_dict("records"):
        tested = not math.isnan(row["p-value"])
        text = md(row["verdict"], limit=300)
        if tested:
            # A bootstrap of B resamples cannot tell p below 1 / B from 0.
            floor = 1 / GAUC_RESAMPLES if row["test"] == "cluster bootstrap" else P_FLOOR
            p = format_p(row["p-value"], floor=floor)
            holm = format_p(row["Holm p"], floor=floor, name="Holm p")
            text += f" · {p}, {holm} ({row['test']})"
        elif not math.isnan(row["row-level p"]):
            text += (
                f": rows of one {md(s.group)} are not independent, and the engine has no test "
                "that resamples them whole (GAUC's does) · row-level DeLong, for reference "
                f"only: {format_p(row['row-level p'], floor=P_FLOOR)}"
            )
        st.markdown(f"- {text}")
    auc_pairs = (
        f"AUC pairs: Obuchowski's clustered test (Biometrics 53, 1997): each {md(s.group)}'s "
        "placement sums under both models, from one more pass of the engine in exact integers, "
        "with a Student t reference of G* − 1 degrees of freedom (G* the effective number of "
        f"{md(s.group)} values), so rows of one {md(s.group)} count as one unit."
        if paired is not None and paired.clusters is not None
        else f"AUC pairs are not tested: rows of one {md(s.group)} are not independent, and "
        "DeLong's row-level test (shown for reference) would be too confident."
        if s.group is not None
        else "AUC pairs: DeLong's test, whose covariance needs each row's placement under both "
        "models: the engine joins every row to its models' per-score placements and sums them "
        "in exact integers (metrics.sql.delong)."
    )
    st.caption(
        "★ marks a model only where it is significantly best within the family of tests: "
        f"{md(family.description, limit=600)} {auc_pairs} GAUC pairs: both models' per-user "
        f"AUCs over the same {GAUC_RESAMPLES} resamples of users. AP pairs are not tested here."
    )
    csv_download("Download the pairs (CSV)", pairs, "model_pairs.csv",
                 key="compare_server_pairs_download")  # fmt: skip
