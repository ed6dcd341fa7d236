"""Every model against every metric, with paired bootstrap intervals and DeLong tests."""

from __future__ import annotations

import streamlit as st

from metrics.calibration import calibration_curve
from ui import charts, data, shell
from ui.explain import explain, num
from ui.safe import neutralise_csv

ds, model = shell.page_context()
st.header("Compare models")

models = tuple(st.multiselect("Models", ds.models, default=list(ds.models), key="compare_models"))
if not models:
    st.info("Pick at least one model.")
    st.stop()

n_rows = len(ds.labels_for(models[0]))
AUTO_LIMIT = 20_000  # rows up to which the bootstrap runs without asking
with st.container(border=True):
    left, right = st.columns([1, 2])
    n_resamples = left.select_slider(
        "Bootstrap resamples", options=[0, 100, 200, 500, 1000], value=200, key="compare_resamples",
        help="Paired: every resample draws the same rows for every model, stratified by class. "
        "0 shows the values only.",
    )  # fmt: skip
    wanted = n_resamples > 0 and (
        n_rows <= AUTO_LIMIT
        or st.session_state.get("compare_run_bootstrap_for") == (ds.key, models, n_resamples)
    )
    if n_resamples and not wanted:
        right.write(
            f"{n_rows:,} rows: {n_resamples} resamples x {len(models)} models take a while."
        )
        if right.button("Compute the intervals", key="compare_run"):
            st.session_state["compare_run_bootstrap_for"] = (ds.key, models, n_resamples)
            st.rerun()

table, best, helps = data.model_table(ds.key, models, n_resamples if wanted else 0, ds)
metric_names = list(best)


def _cell(row, name: str) -> str:
    value = row[name]
    text = f"{value:.4f}"
    if f"{name} low" in row:
        text += f"  [{row[f'{name} low']:.4f}, {row[f'{name} high']:.4f}]"
    return ("★ " if best.get(name) == row.name else "") + text


shown = table[["model"]].copy()
for name in helps:
    shown[name] = table.apply(_cell, axis=1, args=(name,))
st.dataframe(
    shown,
    hide_index=True,
    width="stretch",
    column_config={name: st.column_config.TextColumn(name, help=helps[name]) for name in helps},
)
if wanted:
    explain(
        "the intervals",
        [
            r"\text{CI}_{95\%} = \left[q_{2.5\%},\ q_{97.5\%}\right] \text{ of } "
            rf"\{{\,m(\text{{resample}}_b)\,\}}_{{b=1}}^{{{n_resamples}}}"
        ],
        note=f"Each of the {n_resamples} resamples draws {n_rows:,} rows with replacement, "
        "keeping each class's count, and scores every model on the same rows; the interval is "
        "the middle 95% of the metric's values over the resamples.",
    )
st.caption(
    "★ marks the best model per metric. "
    + (f"Brackets: 95% paired bootstrap interval ({n_resamples} resamples)." if wanted else "")
)
st.download_button(
    "Download the table (CSV)",
    data=neutralise_csv(table).to_csv(index=False).encode(),
    file_name="model_comparison.csv",
    mime="text/csv",
    key="compare_download",
    icon=":material/download:",
)

if len(models) >= 2:
    st.subheader("Are the AUC differences real? DeLong's test")
    pairs = data.delong_pairs(ds.key, models, ds)
    st.dataframe(
        pairs.style.format(
            {c: "{:.4f}" for c in pairs.columns if c not in ("model A", "model B", "p-value")}
            | {"p-value": "{:.3g}"}
        ),
        hide_index=True,
        width="stretch",
    )
    st.caption(
        "DeLong's test compares two AUCs on the same rows, accounting for their correlation. "
        "A small p-value says the difference is unlikely to be chance."
        + (" Sample weights are not used by this test." if ds.weight is not None else "")
    )
    first = pairs.iloc[0]
    explain(
        "DeLong's test",
        [
            r"z = \frac{\text{AUC}_A - \text{AUC}_B}{\text{SE}(\text{AUC}_A - \text{AUC}_B)}"
            rf" = \frac{{{num(first['AUC A'])} - {num(first['AUC B'])}}}{{\text{{SE}}}} = "
            rf"{num(first['z'])}",
            rf"p = 2\,(1 - \Phi(|z|)) = {first['p-value']:.3g},\qquad \text{{95\% CI}} = "
            rf"[{num(first['95% CI low'])},\ {num(first['95% CI high'])}]",
        ],
        note=f"For {first['model A']} against {first['model B']}. The standard error comes "
        "from each positive's and each negative's share of the AUC (DeLong's placement values, "
        "computed with one sort as Sun & Xu show), so it accounts for both models scoring the "
        "same rows.",
    )

st.subheader("Score distributions by class")
y = ds.labels_for(models[0])
scores = {m: ds.score(m) for m in models}
st.plotly_chart(
    charts.score_histograms_figure(
        scores, y, positive_name=ds.positive_name, negative_name=ds.negative_name
    ),
    width="stretch",
    key="compare_histograms",
)

if all(s.min() >= 0 and s.max() <= 1 for s in scores.values()):
    st.subheader("Calibration")
    chart_col, text_col = st.columns([3, 2])
    with text_col:
        bins = st.slider("Bins", 5, 30, 10, key="compare_bins")
        strategy = st.radio(
            "Bin edges", ["uniform", "quantile"], horizontal=True, key="compare_bin_strategy",
            help="Uniform: equal-width bins of predicted probability. Quantile: bins with equal "
            "numbers of rows, which keeps sparse regions from showing noise.",
        )  # fmt: skip
        st.caption(
            "Points on the diagonal are calibrated: of the rows predicted about 0.3, about 30% "
            "are positive. Above the diagonal the model is under-confident, below it "
            "over-confident. Marker size grows with the rows in the bin."
        )
    curves = {
        m: calibration_curve(y, s, n_bins=bins, strategy=strategy, sample_weight=ds.weight)
        for m, s in scores.items()
    }
    chart_col.plotly_chart(
        charts.reliability_figure(curves), width="stretch", key="compare_reliability"
    )
else:
    st.caption(
        "Scores outside [0, 1] are not probabilities: no calibration diagram or Brier score."
    )
