"""AP lab: average precision computed five ways on one ranking, with what each way sums.

In presentation mode (larger text) the five values and the chart of the areas they sum come
first, side by side, on one 1280x720 screen; a worked example's tables and the rest follow.
"""

from __future__ import annotations

import streamlit as st

from metrics import AP_METHOD_SOURCES, AP_METHODS
from ui.compute import data, labs
from ui.figures import ap_charts
from ui.figures.ap_charts import METHOD_LABELS, PRESETS
from ui.frame import presentation, shell
from ui.teaching import ap_lab_notes as notes
from ui.views import ap_lab_view as view
from ui.views.explain import explain
from ui.views.show import chart
from ui.words.conventions import voc_tie_sentence
from ui.words.numbers import decimals
from ui.words.safe import md

CURRENT = "Current data"
SMALL = 30  # distinct thresholds up to which the step table is shown whole
POINTS_LIMIT = 2000  # rows of a method's points table sent to the browser
CHART_HEIGHT = 430  # presentation mode: the areas' chart under the title and pills at 720 px

ds, model = shell.page_context()


def _show_pills() -> list[str]:
    return st.pills(
        "Show",
        AP_METHODS,
        selection_mode="multi",
        default=["step", "voc_all"],
        format_func=METHOD_LABELS.get,
        key="aplab_show",
    )


presenting = presentation.on()
if presenting:  # the title and the data on one row; the values and the chart right under them
    head_col, preset_col = st.columns([1, 2.2], vertical_alignment="bottom")
    head_col.subheader("AP lab", anchor=False, help=notes.INTRO)
    top = st.container()
else:
    st.header("AP lab")
    st.caption(notes.INTRO)
    preset_col, top = st, None

preset_name = preset_col.selectbox(
    "Data",
    [CURRENT, *PRESETS],
    key="aplab_preset",
    help="A worked example from scikit-learn's documentation or the AP literature, as a small "
    "inline dataset; "
    f"'{CURRENT}' is the dataset and model chosen in the sidebar.",
)
preset = PRESETS.get(preset_name)

if preset is None:
    y, scores, weight = data.binary_rows(ds, model)
    if ds.mapping.per_class:
        name = ds.mapping.classes[ds.mapping.class_of(model)]
        what = f"class **{md(name)}** (scores {md(model)}) against the rest"
    else:
        what = f"model **{md(model)}**"
    st.caption(f"{what} on {md(ds.name)}, {len(y):,} rows.")
else:
    st.caption(preset.source)
    data_col, claims_col = st.columns([3, 2] if preset.multilabel else [2, 3])
    with data_col:
        st.dataframe(preset.frame(), hide_index=True, key="aplab_preset_data")
    with claims_col:
        st.dataframe(ap_charts.claims_frame(preset), hide_index=True, key="aplab_claims")
    cls = 0
    if preset.multilabel:
        st.dataframe(
            ap_charts.per_class_frame(preset.y, preset.scores, preset.weight, preset.classes),
            hide_index=True,
            key="aplab_preset_classes",
        )
        chosen = st.selectbox(
            "Class to take apart (one-vs-rest)", preset.classes, key="aplab_class"
        )
        cls = preset.classes.index(chosen)
    y, scores, weight = preset.arrays(cls)

if not ap_charts.has_positives(y, weight):
    st.info(
        "AP needs at least one positive row, and this "
        + ("class" if preset is not None or ds.mapping.per_class else "label column")
        + " has none. Pick another class or dataset in the sidebar, or a worked example above."
    )
    st.stop()

lab = labs.ap_lab(ds.key, model, ds) if preset is None else ap_charts.ap_lab(y, scores, weight)

# --- 1. five methods ----------------------------------------------------------------------------
methods = ap_charts.methods_frame(lab)
METHOD_COLUMNS = {
    "AP": st.column_config.NumberColumn(format="%.4f"),
    "minus step": st.column_config.NumberColumn(format="%+.4g"),
}
if top is not None:  # presentation: the values beside the chart of the areas they sum
    with top:
        show = _show_pills()
    values_col, chart_col = top.columns([1.2, 2])
    with values_col:  # a plain table: its text grows with the mode (a data grid's does not)
        st.table(notes.values_table(methods), hide_index=True)
    with chart_col:
        chart(
            ap_charts.ap_regions_figure(lab, show or []).update_layout(height=CHART_HEIGHT),
            key="aplab_chart",
        )
st.subheader("Five methods, one ranking")
if top is None:  # (presentation mode shows the values in a table beside the chart)
    for col, m in zip(st.columns(len(AP_METHODS)), AP_METHODS, strict=True):
        with col.container(border=True):
            st.metric(
                METHOD_LABELS[m],
                f"{decimals(lab.values[m])}",
                delta="the default"
                if m == "step"
                else ap_charts.diff_text(lab.values[m], lab.values["step"]),
                delta_color="off",
                delta_arrow="off",
                help=AP_METHOD_SOURCES[m],
            )
            exact = ap_charts.exact_fraction(lab.values[m])
            if exact is not None and exact.denominator > 1:
                st.markdown(f"= {exact.numerator}/{exact.denominator} exactly")
    st.dataframe(
        methods,
        hide_index=True,
        key="aplab_methods",
        column_order=notes.method_columns(methods),
        column_config=METHOD_COLUMNS,
    )
if preset is None and ds.mapping.per_class:
    with st.expander("Every class, every method"):
        st.dataframe(
            labs.ap_per_class(ds.key, ds.mapping.class_model_of(model), ds),
            hide_index=True,
            key="aplab_classes",
        )
        st.caption(notes.PER_CLASS)
st.markdown(notes.when_they_differ())
st.markdown(
    labs.voc_tie_words(ds.key, model, ds) if preset is None else voc_tie_sentence(y, scores, weight)
)
for m in AP_METHODS:
    explain(
        f"{METHOD_LABELS[m]} AP with your numbers",
        ap_charts.method_latex(lab, m),
        note=notes.NOTES[m],
    )

# --- 2. the regions -----------------------------------------------------------------------------
st.subheader("The area each method sums")
if top is None:
    show = _show_pills()
    chart(ap_charts.ap_regions_figure(lab, show or []), key="aplab_chart")
st.caption(notes.regions_caption(lab.n_thresholds))

# --- 3. step by step ----------------------------------------------------------------------------
st.subheader("Step by step")
n = lab.n_thresholds
if n <= SMALL:
    n_rows = n
else:
    n_rows = int(
        st.number_input(
            "Distinct thresholds to show",
            min_value=1,
            max_value=n,
            value=min(20, n),
            step=10,
            key="aplab_rows",
        )
    )
st.dataframe(
    ap_charts.step_frame(lab.step, n_rows),
    hide_index=True,
    key="aplab_step",
    column_config={
        "threshold": st.column_config.NumberColumn(format="%.8g"),
        **{
            c: st.column_config.NumberColumn(format="%.4f")
            for c in ("precision", "recall", "running AP")
        },
        **{c: st.column_config.NumberColumn(format="%.6f") for c in ("Δ recall", "contribution")},
    },
)
st.markdown(notes.step_sentence(lab, n_rows))

with st.expander("The points each method sums"):
    method = st.selectbox(
        "Method", AP_METHODS, format_func=METHOD_LABELS.get, key="aplab_points_method"
    )
    points, n_terms = ap_charts.points_frame(lab.breakdowns[method], POINTS_LIMIT)
    st.dataframe(
        points,
        hide_index=True,
        key="aplab_points",
        column_config={
            c: st.column_config.NumberColumn(
                format="%.4f" if c in ("precision used", "running sum") else "%.6f"
            )
            for c in points.columns
        },
    )
    st.caption(notes.points_caption(lab, method, n_terms, POINTS_LIMIT))

# --- 4. "11-point" as fixed score thresholds vs VOC's 11 recall levels ---------------------
st.subheader('"11-point": fixed score thresholds vs VOC\'s 11 recall levels')
view.eleven_points(lab)
