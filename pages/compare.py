"""Every model against every metric, with paired bootstrap intervals and DeLong tests."""

from __future__ import annotations

import streamlit as st

from metrics_lens import report
from ui.compute import thresholds, uncertainty
from ui.frame import presentation, shell
from ui.views import (
    compare_bands,
    compare_costs,
    compare_head,
    compare_many_view,
    compare_multiclass,
    compare_operating,
    compare_pairs,
    compare_rows,
    compare_scores,
    compare_table,
)

ds, model = shell.page_context()
# In presentation mode the title, the models and a settings popover share the first row, and
# the first screen holds the table of every model's numbers and the ROC and PR curves with
# their bands; the sections follow below (the ↓ key goes from one to the next).
head = presentation.PageHead("Compare models")
if shell.drawn_by_source(ds, "compare"):  # a server dataset: from the engine's sums
    st.stop()
if ds.mapping.per_class:  # whole multi-class / multi-label models; a table's classes never
    compare_multiclass.render(ds)
    st.stop()

contents = compare_head.Contents(head.presenting)
with head.cell:
    models = shell.model_picker("Models", "compare_models", ds)
if not models:
    st.info("Pick at least one model.")
    st.stop()

s = compare_head.settings(head, ds, models)
probabilities = thresholds.probabilities(ds, models)  # read once: three sections use it
table, pairs, found, helps, family = uncertainty.model_table(
    ds.key, models, s.n_resamples if s.wanted else 0, s.interval == "BCa", s.max_fpr or None, ds,
    s.clustered, probabilities, s.family,
)  # fmt: skip
fb = uncertainty.curves(ds.key, models, s.curve_resamples, ds, s.clustered) if s.wanted else None
compare_head.grouping_banner(s)

compare_table.numbers(table, found, helps, family)
band_kind = "pointwise"
if head.presenting and s.wanted:  # the first screen: the curves and their bands under the table
    band_kind = compare_bands.first_screen(s, fb, head.setting())
compare_table.verdicts(s, found, helps, family)
compare_table.downloads(
    table,
    lambda: report.dataset_report(
        ds, models, uncertainty.cluster_of(ds, s.clustered),
        {m: float(thresholds.current(ds, m)) for m in models}, s.n_resamples or 1000, s.family,
    ),
)  # fmt: skip

if len(models) >= 2:
    contents.section("Are the differences real?", "differences")
    compare_pairs.differences(s, pairs)
if len(models) >= 3:
    contents.section(f"{len(models)} models at once: ranks, critical difference, McNemar",
                     "many-models")  # fmt: skip
    compare_many_view.many_models(s, pairs, fb)

contents.section("At the operating point", "operating-point")
compare_operating.operating_point(s)
if s.wanted:
    contents.section("How sure are the curves?", "curve-bands")
    compare_bands.curve_bands(s, fb, band_kind)
contents.section("Gains, lift and KS", "gains")
compare_costs.gains(s, fb)
contents.section("Cost and benefit", "cost")
compare_costs.costs(s)
if probabilities:
    contents.section("Decision curve", "decision-curve")
    compare_costs.decision_curve(s, fb)

if len(models) >= 2:
    contents.section("Where do the models disagree?", "disagreements")
    compare_rows.disagreements(s)
if ds.mapping.slices and ds.slice is None:
    contents.section("Slices: where is each model weak?", "slices")
    compare_rows.slices(s, shell.choose_slice)

contents.section("Score distributions by class", "distributions")
compare_scores.distributions(s)
if probabilities:
    contents.section("Calibration", "calibration")
    compare_scores.calibration(s)
else:
    st.caption(
        "Scores outside [0, 1] are not probabilities: no calibration diagram or Brier score."
    )
