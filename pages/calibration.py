"""Calibration: reliability diagrams with bootstrap bands (pointwise or simultaneous), the
debiased calibration error with an interval that covers the truth, ECE, MCE and the Brier
decomposition, and cross-fitted recalibration shown before and after."""

from __future__ import annotations

import streamlit as st

from ui.compute import decision_compute, uncertainty
from ui.frame import presentation, shell
from ui.views import calibration_view as view
from ui.words import calibration_text as words

ds, model = shell.page_context()
# In presentation mode the title, the models and a settings popover share the first row, and
# the reliability diagrams and their table fill the rest of the first screen.
head = presentation.PageHead("Calibration")
PRESENT_HEIGHT = 300
if shell.needs(ds, "rows", "Calibration", say=words.NEEDS_ROWS):
    st.stop()

with head.cell:
    models = shell.model_picker("Models", "calibration_models", ds)
if not models:
    st.info("Pick at least one model.")
    st.stop()
if head.presenting:
    pass  # (the first screen has no room for the notes on the data; the bar names it)
elif ds.mapping.per_class:
    st.caption(
        "Per-class data: each class is read one-vs-rest (its score as the probability of "
        '"this class"); pick the classes to compare above.'
    )
elif ds.mapping.graded:
    st.caption("Graded relevance: a row counts as positive when its relevance is above 0.")

n_rows = len(ds.labels_for(models[0]))
group_column = ds.mapping.group if ds.prepared.groups is not None else None
# The settings: a bordered row, or the popover in presentation mode.
left, middle, right = head.settings((2, 2, 2))
n_bins = left.select_slider(
    "Bins", options=[5, 8, 10, 15, 20], value=10, key="calibration_bins",
    help="Reliability bins. ECE and MCE depend on them: fewer bins average more rows.",
)  # fmt: skip
strategy = middle.radio(
    "Bin edges", ["uniform", "quantile"], key="calibration_strategy", horizontal=True,
    help="uniform: equal widths over [0, 1]; quantile: equal numbers of rows (edges at the "
    "quantiles of the predictions, kept fixed across resamples).",
)  # fmt: skip
n_resamples = right.select_slider(
    "Bootstrap resamples", options=[0, 100, 200, 500, 1000], value=500,
    key="calibration_resamples",
    help="Every resample draws each row (or each group) a Poisson(1) number of times and "
    "recomputes each bin's observed rate, ECE, MCE and the Brier decomposition.",
)  # fmt: skip
independent = group_column is not None and left.toggle(
    "Rows are independent", value=False, key="calibration_rows_independent",
    help=f"Off (the default): rows of one {group_column} are not independent, so the "
    f"bands and intervals resample whole {group_column} values (a cluster bootstrap).",
)  # fmt: skip
clustered = group_column is not None and not independent
if n_resamples and decision_compute.bootstrap_cells(n_rows, 1, n_bins) > (
    decision_compute.MAX_BOOTSTRAP_CELLS
):
    st.caption(
        f"{n_rows:,} rows are too many for the bands here: the values below have no intervals."
    )
    n_resamples = 0
resampled = words.resampled(group_column, clustered)

probabilistic = [m for m in models if decision_compute.is_probability(ds.score(m))]
for m in models:
    if m not in probabilistic:
        st.warning(words.not_probabilities(m, ds.score(m)), icon=":material/warning:")

# --- reliability ----------------------------------------------------------------------------
if not head.presenting:
    st.subheader("Reliability")
band_kind = "pointwise"
if probabilistic and n_resamples:
    band_kind = head.setting().radio(
        "Bands", list(uncertainty.BAND_KINDS), format_func=uncertainty.BAND_KINDS.get,
        key="calibration_band_kind", horizontal=True, help=words.BAND_HELP,
    )  # fmt: skip
setting = view.Setting(
    ds, models, n_bins, strategy, n_resamples, clustered, band_kind,
    PRESENT_HEIGHT if head.presenting else 520,
)  # fmt: skip
before = view.reliability(setting, probabilistic, resampled) if probabilistic else {}
if not probabilistic:
    st.info("None of the chosen models has probability scores: recalibrate them below.")

# --- recalibration --------------------------------------------------------------------------
st.subheader("Recalibration, cross-fitted")
view.recalibration(setting, before)
