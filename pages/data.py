"""The table behind every page: each column's role and why, each model's scale, the first rows.

For an upload the roles are editable here: pick label, score, group, weight, slice or ignore
for any column and the sidebar's mapping follows.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import metrics
from ui import sources
from ui.compute import thresholds
from ui.frame import shell
from ui.tables import agreement_table
from ui.tables.loading import column_summary, mapping_roles
from ui.tables.roles import ROLES, infer_roles
from ui.words.numbers import decimals, plural
from ui.words.safe import md

ds, _ = shell.page_context(require_usable=False)
if shell.drawn_by_source(ds, "data"):  # a server dataset: the engine's columns and counts
    st.stop()
source = sources.of(ds)

st.header("Data")
n_rows, n_cols = ds.frame.shape
st.markdown(f"**{md(ds.name)}**: {plural(n_rows, 'row')}, {plural(n_cols, 'column')}.")
shown = shell.shown_dataset(ds)
if shown is not ds:  # this table cannot be used yet: the other pages keep the last usable one
    st.info(
        f"{md(ds.name)} cannot be used yet (the sidebar says what to fix; the roles below can "
        f"fix it too). Until it can, the other pages show {md(shown.name)}.",
        icon=":material/info:",
    )
if ds.description:
    st.caption(ds.description)
# A label of shares in [0, 1] (ui.tables.loading.soft_labels).
if ds.holds_rows and ds.prepared.soft:
    st.info(
        f"**Soft labels**: {md(ds.mapping.label)} holds shares between 0 and 1 (annotators' "
        "votes, a judge's probability). Every page counts each row as positive with weight q "
        "and negative with weight 1 − q, so each metric is its expected value over the label's "
        "uncertainty (the weighted metric of the rows taken twice); counts are sums of weight.",
        icon=":material/percent:",
    )
if source.data_page is not None:  # the source's own part: a typed table is edited here, wide
    source.data_page()


@st.cache_data(max_entries=8, show_spinner=False)
def _guesses(source_id: str, _frame: pd.DataFrame) -> dict[str, tuple[str, str]]:
    return {c: (r.role, r.reason) for c, r in infer_roles(_frame).items()}


guesses = _guesses(ds.source_id, ds.frame)
roles = mapping_roles(ds.frame, ds.mapping)
summary = column_summary(ds.frame, ds.mapping)
# A text column has no min or max: a dash, not "None". The long "why" goes last, so the
# short columns stay in view at 1280 px and only the explanation runs off to the right.
for bound in ("min", "max"):
    if bound in summary:
        summary[bound] = ["—" if v is None or v != v else f"{v:.6g}" for v in summary[bound]]
summary["why"] = [
    guesses[c][1]
    if guesses[c][0] == roles[c]
    else ("chosen by you" if source.roles_editable else "set by the dataset")
    + f" (the guess was {guesses[c][0]}: {guesses[c][1]})"
    for c in summary["column"]
]
editable = source.roles_editable and not ds.mapping.per_class


st.subheader("Columns")
st.caption(
    "Each column's role and why it was guessed. Ids, row numbers, timestamps, constant columns "
    "and categories are never taken as models; categories are offered as slices."
    + (" Change a role here or in the sidebar." if editable else "")
)
if error := st.session_state.pop("data_roles_error", None):
    st.warning(error)
column_config = {
    "role": st.column_config.SelectboxColumn(
        options=list(ROLES), required=True, help="What the column is used for."
    ),
    "why": st.column_config.TextColumn(help="Why the role was guessed."),
    "min": st.column_config.TextColumn(help="The smallest value of a numeric column."),
    "max": st.column_config.TextColumn(help="The largest value of a numeric column."),
    "missing": st.column_config.NumberColumn(help="Empty cells."),
}
if editable:
    st.data_editor(
        summary,
        hide_index=True,
        width="stretch",
        disabled=[c for c in summary.columns if c != "role"],
        column_config=column_config,
        key="data_roles",
        on_change=shell.apply_role_edits,
        args=(summary["column"].tolist(), roles),
    )
else:
    st.dataframe(summary, hide_index=True, width="stretch", column_config=column_config)

if ds.models and ds.prepared.ok:
    st.subheader("Score scales")
    st.caption(
        "The scale decides each model's first threshold: 0.5 for probabilities, 50 for "
        "percentages, and otherwise the score that predicts as many rows positive as there are "
        "positives. Change a scale in the sidebar under 'Score scales and thresholds'."
    )
    rows = []
    for m in ds.models:
        sc = thresholds.scale(ds, m)
        value, rule = thresholds.default(ds, m)
        rows.append(
            {
                "model": m,
                "scale": sc.title,
                "default threshold": value,
                "threshold now": thresholds.current(ds, m),
                "rule": rule,
                "why": sc.reason,
            }
        )
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        width="stretch",
        column_config={
            "default threshold": st.column_config.NumberColumn(format="%.4g"),
            "threshold now": st.column_config.NumberColumn(format="%.4g"),
        },
    )


@st.cache_data(max_entries=8, show_spinner=False)
def _agreement(key: tuple, columns: tuple[str, ...], cuts: tuple, _frame: pd.DataFrame):
    """The annotators' agreement and each model (at its threshold) against every annotator."""
    r = agreement_table.ratings(_frame, list(columns))
    report = metrics.annotator_agreement(r)
    scores = {
        m: metrics.score_against_annotators(
            r, pd.to_numeric(_frame[m], errors="coerce").to_numpy() >= t, names=list(columns)
        )
        for m, t in cuts
    }
    return report, scores


@st.cache_data(max_entries=8, show_spinner=False)
def _long_agreement(key: tuple, columns: tuple[str, str], cuts: tuple, _ds):
    """The same from a long table of judgements: one row per item and annotator."""
    item, annotator = columns
    long = agreement_table.long_ratings(
        _ds.frame, item, annotator, _ds.mapping.label, _ds.mapping.pos_label
    )
    names = [f"{annotator} {a}" for a in long.annotators]
    report = metrics.annotator_agreement(long.ratings)
    scores, mixed = {}, 0
    for m, t in cuts:
        predicted, differs = agreement_table.item_predictions(_ds.frame, item, m, t)
        mixed = max(mixed, differs)
        scores[m] = metrics.score_against_annotators(long.ratings, predicted, names=names)
    return report, scores, names, mixed


def _show_agreement(report, scores, names: list[str]) -> None:
    st.dataframe(
        pd.DataFrame(agreement_table.agreement_rows(report, names)),
        hide_index=True,
        width="stretch",
    )
    if scores:
        st.dataframe(agreement_table.scores_table(scores), hide_index=True, width="stretch")
        st.caption(
            "'soft label' is a model's expected accuracy against an annotator drawn at "
            f"random; no model can expect more than the ceiling, "
            f"{decimals(report.ceiling, 3)}. A "
            "model near it is as good as the annotators' agreement lets any model be "
            "(Fleiss 1971; Krippendorff 2011)."
        )


annotators = agreement_table.annotator_columns(ds.frame) if ds.holds_rows else []
long = (
    agreement_table.long_columns(ds.frame)
    if ds.holds_rows
    and len(annotators) < 2
    and not ds.mapping.per_class
    and not ds.mapping.graded
    and ds.mapping.label is not None
    else None
)


def _cuts() -> tuple[tuple[str, float], ...]:
    """Each model and its current threshold (read only where annotators are shown)."""
    return tuple((m, float(thresholds.current(ds, m))) for m in ds.models)


if len(annotators) >= 2:  # several people (or judges) labelled the same rows
    st.subheader("Annotators")
    st.caption(
        f"{', '.join(md(c) for c in annotators)} each hold one annotator's 0/1 labels. How "
        "much they agree caps what any model can score against one of them: the ceiling is "
        "the accuracy of each row's majority label against an annotator drawn at random. Each "
        "model predicts positive at its current threshold; intervals resample rows (items)."
    )
    try:
        report, scores = _agreement(ds.key, tuple(annotators), _cuts(), ds.frame)
    except ValueError as error:  # labels other than 0/1: the library's sentence
        st.info(md(str(error)))
    else:
        _show_agreement(report, scores, annotators)
elif long is not None:  # a long table: one row per item and annotator
    item, annotator = long
    st.subheader("Annotators")
    try:
        report, scores, names, mixed = _long_agreement(ds.key, long, _cuts(), ds)
    except ValueError as error:  # a pair labelled twice: the library's sentence
        st.info(md(str(error)))
    else:
        st.caption(
            f"Each row is one judgement: {md(annotator)} labelled {md(item)} "
            f"({report.n_items:,} items, {report.n_annotators:,} annotators). Here the "
            "judgements are pivoted to one row per item; the other pages count every "
            "judgement as a row, so an item weighs as many times as it was labelled. Each "
            "model predicts an item from its first row's score, at the current threshold; "
            "intervals resample items."
            + (
                f" {mixed:,} items carry different scores on their rows: the first is used."
                if mixed
                else ""
            )
        )
        _show_agreement(report, scores, names)

if source.data_page is None:  # the source's part above shows the rows
    st.subheader("First rows")
    st.caption("Row numbers count from 1, as in the messages about bad rows.")
    preview = ds.frame.head(200).copy()
    preview.index = preview.index + 1
    st.dataframe(preview, width="stretch")
