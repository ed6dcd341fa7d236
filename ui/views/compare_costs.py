"""Compare on what the calls are worth: cumulative gains, KS and a lift table; the total cost
over the thresholds; and the decision curve's net benefit."""

from __future__ import annotations

import numpy as np
import streamlit as st

import metrics
from ui.analyses import compare_costs as words
from ui.analyses.compare_setup import CompareSettings
from ui.compute import compare_compute, thresholds, uncertainty
from ui.figures import charts
from ui.views.show import chart, csv_download

__all__ = ["costs", "decision_curve", "gains"]


def gains(s: CompareSettings, fb: metrics.FastBootstrap | None) -> None:
    """Cumulative gains and KS curves in tabs; beside them KS per model and a lift table."""
    ds, models = s.ds, s.models
    curves = {m: compare_compute.gains(ds.key, m, ds) for m in models}
    prevalence = float(np.average(s.y, weights=ds.weight))
    gains_col, ks_col = st.columns([3, 2])
    with gains_col:
        gains_tab, ks_tab = st.tabs(["Cumulative gains", "KS"])
        with gains_tab:
            chart(
                charts.gains_figure({m: g[:2] for m, g in curves.items()}, prevalence),
                key="compare_gains",
                name="cumulative-gains",
            )
        with ks_tab:
            ks_curves = {m: compare_compute.ks(ds.key, m, ds) for m in models}
            chart(charts.ks_figure(ks_curves), key="compare_ks", name="ks")
    with ks_col:
        st.dataframe(
            words.ks_table(ks_curves, fb.results["ks"].models if s.wanted else None),
            hide_index=True,
            width="stretch",
            column_config={"at threshold": st.column_config.NumberColumn(format="%.4g")},
        )
        st.caption(words.ks_caption(s.curve_resamples, s.wanted))
        lift_model = st.selectbox("Lift table of", models, key="compare_lift_model")
        lift = compare_compute.lift(ds.key, lift_model, 10, ds)
        st.dataframe(
            lift,
            hide_index=True,
            width="stretch",
            column_config={
                c: st.column_config.NumberColumn(format="%.3f") for c in words.LIFT_RATES
            },
        )
        csv_download("Download the lift table (CSV)", lift, f"lift_{lift_model}.csv",
                     key="compare_lift_download")  # fmt: skip


def costs(s: CompareSettings) -> None:
    """The four costs and benefits, the total cost against the threshold, and each model's
    least cost."""
    ds = s.ds
    cols = st.columns(4)
    cost_fp = cols[0].number_input("Cost of a FP", 0.0, value=1.0, key="compare_cost_fp")
    cost_fn = cols[1].number_input("Cost of a FN", 0.0, value=5.0, key="compare_cost_fn")
    gain_tp = cols[2].number_input("Benefit of a TP", 0.0, value=0.0, key="compare_gain_tp")
    gain_tn = cols[3].number_input("Benefit of a TN", 0.0, value=0.0, key="compare_gain_tn")
    totals = {
        m: compare_compute.costs(ds.key, m, cost_fp, cost_fn, gain_tp, gain_tn, ds)
        for m in s.models
    }
    chart(
        charts.cost_figure({m: (c.thresholds, c.cost, c.best) for m, c in totals.items()}),
        key="compare_cost",
        name="cost-vs-threshold",
    )
    least = {
        m: (c.cost[c.best], thresholds.label(ds, m, c.best_threshold)) for m, c in totals.items()
    }
    st.caption(words.cost_caption(least))


def decision_curve(s: CompareSettings, fb: metrics.FastBootstrap | None) -> None:
    """Each model's net benefit against treat-all and treat-none, with its band."""
    nets = {}
    for m in s.models:
        nets[m], treat_all = compare_compute.net_benefit(s.ds.key, m, s.ds)
    bands = uncertainty.decision_bands(fb, s.models) if s.wanted else None
    chart(
        charts.decision_curve_figure(uncertainty.DECISION_GRID, nets, treat_all, bands),
        key="compare_decision_curve",
        name="decision-curve",
    )
    st.caption(words.decision_caption(s.curve_resamples, s.resampled, s.wanted))
