"""Multi-label and multi-class: per-class AP and AUC, the averages, LRAP, and the N x N matrix."""

from __future__ import annotations

import streamlit as st

from ui.analyses import multilabel_averages as ma
from ui.analyses.multilabel_rules import score_range
from ui.figures import multilabel_charts as mc
from ui.frame import presentation, shell
from ui.views import multilabel_averages as averages
from ui.views.multilabel_costs import cost_section
from ui.views.multilabel_data import CURRENT, MultilabelPage, choose_data, header, summary
from ui.views.multilabel_lrap import lrap_against_samples_ap
from ui.views.multilabel_multiclass import matrix_and_top_k
from ui.views.multilabel_rule import choose_rule, start_afresh
from ui.views.multilabel_rule_results import rule_results
from ui.views.multilabel_thresholds import choosing_thresholds

ds, model = shell.page_context()

# In presentation mode the first screen holds the data choice, the averaging mode, its numbers
# and the per-class bar chart (beside them); the rest follows below.
presenting = presentation.on()
preset = choose_data(header(presenting))
if preset == CURRENT:
    if shell.needs(ds, "rows", "Multi-label averaging", ma.NEEDS_ROWS):
        st.stop()
    problem = mc.problem_from_dataset(ds, model)  # several models: the sidebar's
    if problem is None:
        st.info(ma.not_per_class(ds.name))
        shell.offer_samples("digits_multilabel", "wine_multiclass")
        st.stop()
    sm = summary((ds.key, ds.prepared.n_dropped), problem)  # dropping rows keeps ds.key
else:
    problem = mc.PRESETS[preset]
    sm = mc.summarize_averaging(problem)
page = MultilabelPage(ds, model, preset, problem, sm, presenting)
st.markdown(ma.problem_line(problem, sm.weighted))

# --- AP and AUC at every threshold: the averages, per class, the curves, the N x N matrix ---
averages.averaging(page, presentation.CARDS)
averages.per_class(page)
averages.curves(page)
matrix_and_top_k(page)

# --- a decision rule: confusion matrices, per-class metrics, averages ---
st.subheader("A decision rule: per-class confusion, metrics and their averages")
st.caption(
    "AP and AUC above use every threshold. Precision, recall, F1 and Jaccard need one decision "
    "per row and class: choose the rule that turns the scores into predictions."
)
start_afresh(page)  # a new table starts afresh
scores = score_range(problem)
rule, beta = choose_rule(page, scores)
rule_results(page, rule, beta)

# --- multi-class: a cost matrix; multi-label: per-class thresholds; then LRAP ---
cost_section(page, scores)
choosing_thresholds(page, beta)
lrap_against_samples_ap(page)
