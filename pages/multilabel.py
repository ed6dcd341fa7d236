"""Multi-label and multi-class: per-class AP and AUC, the averages, LRAP, and the N x N matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from ui.analyses import cost_matrix as cm
from ui.analyses import decision_rules as dr
from ui.figures import multilabel_charts as mc
from ui.frame import presentation, shell
from ui.tables.roles import default_threshold, infer_scale
from ui.views.explain import explain, num
from ui.views.show import chart
from ui.words.numbers import decimals

ds, model = shell.page_context()

CURRENT = "Current data"

INTRO = (
    "One binary problem per class, then an average: the averaging mode decides what the single "
    "number weighs."
)
# In presentation mode the first screen holds the data choice, the averaging mode, its numbers
# and the per-class bar chart (beside them); the rest follows below.
presenting = presentation.on()
if presenting:
    head_col, data_col = st.columns([1, 1.6], vertical_alignment="bottom")
    head_col.subheader("Multi-class & multi-label", anchor=False, help=INTRO)
else:
    st.header("Multi-class & multi-label")
    st.caption(INTRO)
    data_col = st.container()


@st.cache_data(max_entries=8, show_spinner="Computing per-class metrics...")
def _summary(key: tuple, _problem: mc.ClassScores) -> mc.AveragingSummary:
    return mc.summarize_averaging(_problem)


preset = (
    data_col.segmented_control(
        "Data",
        [CURRENT, *mc.PRESETS],
        default=CURRENT,
        key="multilabel_preset",
        help="Worked examples from scikit-learn's documentation, or the dataset in the sidebar.",
    )
    or CURRENT
)
if preset == CURRENT:
    if shell.needs(
        ds, "rows", "Multi-label averaging",
        "It pairs each class's label with its score row by row (one label and one score column "
        "per class), and per-score counts of one label column hold neither. The worked examples "
        "above work here.",
    ):  # fmt: skip
        st.stop()
    problem = mc.problem_from_dataset(ds, model)  # several models: the sidebar's
    if problem is None:
        st.info(
            f"{ds.name} has one score column per model, not one per class. Pick the sample "
            "dataset 'Digits: 6 overlapping labels' (multi-label) or 'Wine: 3 cultivars "
            "(multi-class)', or upload a table with label_<class> and score_<class> column pairs "
            "(multi-label) or one label column plus a score_<class> column per class "
            "(multi-class) and choose that layout under Columns. Or pick a worked example above."
        )
        shell.offer_samples("digits_multilabel", "wine_multiclass")
        st.stop()
    sm = _summary((ds.key, ds.prepared.n_dropped), problem)  # dropping rows keeps ds.key
else:
    problem = mc.PRESETS[preset]
    sm = mc.summarize_averaging(problem)

# Intervals resample rows, or whole users when the table maps a group column.
groups = ds.prepared.groups if preset == CURRENT else None
grouped = groups is not None
unit = f"whole {ds.mapping.group} values" if grouped else "rows"
RESAMPLES = [0, 200, 500, 1000, 2000]


@st.cache_data(max_entries=8, show_spinner="Resampling the averages of AP and AUC...")
def _averaged_intervals(key: tuple, _problem: mc.ClassScores, n: int, _groups):
    truth = _problem.true_labels() if _problem.multiclass else _problem.y
    return metrics.compare_multiclass_models(
        truth, {_problem.name: _problem.scores}, classes=list(_problem.classes) if
        _problem.multiclass else None, sample_weight=_problem.weight, groups=_groups,
        n_resamples=n, probabilities=False,
    )  # fmt: skip


kind = "multi-class (one label per row)" if problem.multiclass else "multi-label"
st.markdown(
    f"**{problem.name}**: {problem.n_rows:,} row{'s' * (problem.n_rows != 1)} × "
    f"{problem.n_classes} classes, {kind}" + (", sample-weighted" if sm.weighted else "") + "."
)


def _notes(*keys: tuple[str, str]) -> None:
    """The library's warnings for these calls, shown once each instead of in the console."""
    seen = dict.fromkeys(msg for key in keys for msg in sm.notes.get(key, ()))
    for msg in seen:
        st.caption(f":material/warning: {msg}")
    if seen:
        numbered = ", ".join(f"{i} = {c}" for i, c in enumerate(sm.classes))
        st.caption(
            "Positions count from 0, as in numpy: row position 0 is the table's first row; class "
            f"positions {numbered}."
        )


# --- 1. the averaging mode ------------------------------------------------------------------

if presenting:
    average_col, bar_col = st.columns([1, 1.9])
else:
    st.subheader("Averaging")
    average_col = bar_col = st.container()
with average_col:
    mode = (
        st.segmented_control(
            "Average AP and AUC by",
            [*mc.MODES, "per class"],
            default="macro",
            key="multilabel_average",
        )
        or "macro"
    )
    st.markdown(f"**{mode}**: {mc.MODE_LINES[mode]}")
    cards = [st.container(key=presentation.CARDS)] * 3 if presenting else st.columns(3)
    if mode == "per class":
        chosen = cards[0].selectbox("Class", sm.classes, key="multilabel_class")
        c = sm.classes.index(chosen)
        ap_value, auc_value = sm.ap_per_class[c], sm.auc_per_class[c]
        label = chosen
        cards = cards if presenting else st.columns(3)
    else:
        ap_value, auc_value, label = sm.ap[mode], sm.auc[mode], mode
    cards[0].metric(f"AP ({label})", mc.fmt(ap_value))
    cards[1].metric(f"AUC ({label})", mc.fmt(auc_value))
    cards[2].metric("mAP (macro AP)", mc.fmt(sm.ap["macro"]), help="The mean of the per-class APs.")
    # The resamples are chosen with the decision rule's averages (section 5); off a projector's
    # first screen, the averages of AP and AUC show their intervals here too.
    n_resamples = st.session_state.get("multilabel_resamples", 200) if preset == CURRENT else 0
    if n_resamples and mode in ("macro", "micro", "weighted") and not presenting:
        band = _averaged_intervals(
            (ds.key, ds.prepared.n_dropped, problem.name, n_resamples, grouped), problem,
            n_resamples, groups,
        )  # fmt: skip
        ap_iv, auc_iv = (band.results[f"{mode} {m}"].models[0] for m in ("AP", "AUC"))
        st.caption(
            f"95% intervals ({n_resamples:,} resamples of {unit}): AP ({mode}) "
            f"[{decimals(ap_iv.ci_low)}, {decimals(ap_iv.ci_high)}], AUC ({mode}) "
            f"[{decimals(auc_iv.ci_low)}, {decimals(auc_iv.ci_high)}]; "
            "metrics.compare_multiclass_models."
        )


def _bars(where, height: int | None = None) -> None:
    """The per-class bars with the four averages as lines (AP or AUC)."""
    with where:
        metric = (
            st.segmented_control("Bars", ["AP", "AUC"], default="AP", key="multilabel_bar_metric")
            or "AP"
        )
        fig = mc.per_class_bar_figure(sm, metric)
        chart(fig.update_layout(height=height) if height else fig, key="multilabel_bars")


if presenting:
    _bars(bar_col, height=365)
_notes(("AP", mode), ("AUC", mode))
st.caption(mc.LEFT_OUT)
if mode == "samples" and sm.n_rows_without_label:
    st.caption(
        f"{sm.n_rows_without_label:,} of {sm.n_rows:,} rows have no relevant label, so their AP "
        "and AUC are undefined and this average leaves them out. scikit-learn's "
        "`average_precision_score(average='samples')` counts such a row's AP as 0 instead: "
        f"**{mc.fmt(sm.samples_ap_sklearn)}** here; its `roc_auc_score(average='samples')` "
        "refuses them (one class in a row)."
    )

for m in mc.MODES:
    lines, notes = [], []
    for metric in ("AP", "AUC"):
        got, sentences = mc.average_explain_lines(sm, metric, m)
        lines += got
        notes += [s for s in sentences if s not in notes]
    explain(f"{m} average", lines, " ".join(notes) or None)

# --- 2. per class ---------------------------------------------------------------------------

st.subheader("Per class")
table_col, chart_col = st.columns([2, 3])
with table_col:
    st.dataframe(
        mc.per_class_table(sm),
        hide_index=True,
        width="stretch",
        column_config={
            "positives": st.column_config.NumberColumn(
                format="%.0f" if not sm.weighted else "%.3f",
                help="Rows with this label (their total sample weight when weighted).",
            ),
            "weight w_c": st.column_config.NumberColumn(
                format="%.4f", help="Positives of the class / positives of all classes."
            ),
            "AP": st.column_config.NumberColumn(format="%.4f"),
            "AUC": st.column_config.NumberColumn(format="%.4f"),
        },
        key="multilabel_class_table",
    )
    st.dataframe(
        mc.averages_table(sm),
        hide_index=True,
        width="stretch",
        column_config={
            "AP": st.column_config.NumberColumn(format="%.4f"),
            "AUC": st.column_config.NumberColumn(format="%.4f"),
        },
        key="multilabel_average_table",
    )
    st.caption("None = undefined: AP with no positives, AUC with one class only.")
with chart_col:
    if not presenting:  # (presentation mode drew them on the first screen)
        _bars(st.container())
    st.caption(
        "Bars: each class alone, its weight w_c under its name. Lines: the four averages; a rare "
        "class moves macro as much as a frequent one, but barely moves weighted."
    )

# --- 3. curves ------------------------------------------------------------------------------

st.subheader("Per-class curves and the micro curve")
curve = st.segmented_control("Curve", ["PR", "ROC"], default="PR", key="multilabel_curve") or "PR"
chart(mc.curves_figure(sm, "pr" if curve == "PR" else "roc"), key="multilabel_curves")
per_class = sm.ap_per_class if curve == "PR" else sm.auc_per_class
missing = [c for c, v in zip(sm.classes, per_class, strict=True) if not np.isfinite(v)]
st.caption(
    f"The thick curve ranks all {problem.n_rows * problem.n_classes:,} (row, class) cells together;"
    f" its area is the micro {'AP' if curve == 'PR' else 'AUC'}. "
    "Thin curves are the classes alone; at most about 2,000 points each are drawn."
    + (f" Not drawn (undefined): {', '.join(missing)}." if missing else "")
)

# --- 4. multi-class: the N x N matrix and top-k ---------------------------------------------

if problem.multiclass and sm.confusion is not None and sm.top_k is not None:
    st.subheader("Multi-class: arg-max confusion matrix and top-k accuracy")
    NORMALIZE = {
        "counts": "counts",
        "by true class": "true",
        "by predicted class": "pred",
        "of all rows": "all",
    }
    matrix_col, topk_col = st.columns([3, 2])
    with matrix_col:
        shown = (
            st.segmented_control(
                "Confusion matrix", list(NORMALIZE), default="counts", key="multilabel_normalize"
            )
            or "counts"
        )
        chart(mc.confusion_figure(sm, NORMALIZE[shown]), key="multilabel_matrix")
        st.caption(
            "Each row is predicted as its highest-scoring class (a tie goes to the first column). "
            "By true class, the diagonal is each class's recall; by predicted class, its "
            "precision."
        )
    with topk_col:
        topk = pd.DataFrame({"k": np.arange(1, sm.top_k.size + 1), "top-k accuracy": sm.top_k})
        st.dataframe(
            topk,
            hide_index=True,
            width="stretch",
            column_config={"top-k accuracy": st.column_config.NumberColumn(format="%.4f")},
            key="multilabel_topk_table",
        )
        chart(mc.top_k_figure(sm), key="multilabel_topk")
    counts = sm.confusion["counts"]
    explain(
        "top-k accuracy",
        [
            r"\text{top-}k = \frac{\sum_i v_i\,[\text{true class of } i \text{ among its } k"
            r"\text{ highest scores}]}{\sum_i v_i}",
            rf"\text{{top-1}} = \frac{{\text{{diagonal}}}}{{n}} = \frac{{{num(np.trace(counts))}}}"
            rf"{{{num(counts.sum())}}} = {mc.tex(np.trace(counts) / counts.sum())},\qquad"
            rf"\text{{library: }} {mc.tex(sm.top_k[0])}",
        ],
        "v_i: sample weight (1 without weights). Top-k ranks a tied class further right higher "
        "(as scikit-learn), the matrix gives a tie to the first column: with ties the two top-1 "
        f"values can differ. Top-{sm.top_k.size} is 1: every class is among the "
        f"{sm.top_k.size} highest.",
    )

    if problem.weight is None:
        labels_1d = np.argmax(problem.y, axis=1)
        ovo = {
            avg: metrics.roc_auc_score(labels_1d, problem.scores, multi_class="ovo", average=avg)
            for avg in ("macro", "weighted")
        }
        ovr = metrics.roc_auc_score(labels_1d, problem.scores, average="macro")
        st.markdown(
            f"**One-vs-one AUC** (Hand & Till): macro **{decimals(ovo['macro'])}**, weighted by "
            "the "
            f"pairs' rows **{decimals(ovo['weighted'])}**; one-vs-rest macro {decimals(ovr)}."
        )
        st.caption(
            "One-vs-one averages, over every pair of classes, the AUC of telling those two apart "
            "(each direction, on the rows of the two classes only), so a class that is easy to "
            "tell from the rest but hard to tell from one neighbour counts that difficulty; "
            "scikit-learn's multi_class='ovo'."
        )

# --- 5. a decision rule: confusion matrices, per-class metrics, averages --------------------

st.subheader("A decision rule: per-class confusion, metrics and their averages")
st.caption(
    "AP and AUC above use every threshold. Precision, recall, F1 and Jaccard need one decision "
    "per row and class: choose the rule that turns the scores into predictions."
)
_sig = (problem.name, problem.classes, problem.n_rows, ds.key if preset == CURRENT else preset)
if st.session_state.get("multilabel_rule_for") != _sig:  # a new table starts afresh
    st.session_state["multilabel_rule_for"] = _sig
    for _k in ("multilabel_threshold", "multilabel_abstain", "multilabel_k"):
        st.session_state.pop(_k, None)
    st.session_state.pop("multilabel_thr_editor", None)
    st.session_state.pop("multilabel_cut_editor", None)
    st.session_state["multilabel_thr_values"] = None
    for _k in (
        "multilabel_cost_editor",
        "multilabel_cost_row",
        "multilabel_cost_row_for",
        "multilabel_cost_class",
    ):
        st.session_state.pop(_k, None)
    st.session_state["multilabel_cost_values"] = None
    st.session_state["multilabel_cost_current"] = None
_finite = problem.scores[np.isfinite(problem.scores)]
_scale = infer_scale(_finite) if _finite.size else infer_scale(np.array([0.5]))
_lo, _hi = (float(_finite.min()), float(_finite.max())) if _finite.size else (0.0, 1.0)
if _scale.kind == "probability":
    _range, _step = (0.0, 1.0), 0.01
elif _scale.kind == "percent":
    _range, _step = (0.0, 100.0), 1.0
else:
    _range = (_lo, _hi if _hi > _lo else _lo + 1.0)
    _step = float(f"{(_range[1] - _range[0]) / 200:.2g}")
_default_thr = float(
    np.clip(
        default_threshold(
            _scale.kind,
            problem.y.ravel(),
            problem.scores.ravel(),
            None if problem.weight is None else np.repeat(problem.weight, problem.n_classes),
        ),
        *_range,
    )
)

rule_cols = [st.container(), *st.columns([5, 1])]  # the rule on a row of its own
if problem.multiclass:
    rule_name = (
        rule_cols[0].segmented_control(
            "Decision rule", dr.MULTICLASS_RULES, default="argmax", key="multilabel_rule_mc"
        )
        or "argmax"
    )
else:
    rule_name = (
        rule_cols[0].segmented_control(
            "Decision rule",
            dr.MULTILABEL_RULES,
            default="one shared threshold",
            key="multilabel_rule_ml",
        )
        or "one shared threshold"
    )
kind_ = dr.rule_kind(rule_name)
beta = float(
    rule_cols[2].number_input(
        "β of F-beta",
        min_value=0.1,
        max_value=10.0,
        value=1.0,
        step=0.5,
        key="multilabel_beta",
        help="β > 1 weighs recall more, β < 1 precision; β = 1 is F1.",
    )
)
if kind_ == "abstain":
    _abstain_default = 0.5 if _scale.kind == "probability" else float(np.median(_finite))
    rule = dr.Rule(
        "abstain",
        threshold=float(
            rule_cols[1].slider(
                "Abstain when the top score is below",
                *_range,
                value=float(np.clip(_abstain_default, *_range)),
                step=_step,
                key="multilabel_abstain",
            )
        ),
    )
elif kind_ == "top-k":
    rule = dr.Rule(
        "top-k",
        k=int(
            rule_cols[1].number_input(
                "k", 1, problem.n_classes, min(2, problem.n_classes), 1, key="multilabel_k"
            )
        ),
    )
elif kind_ == "shared":
    rule = dr.Rule(
        "shared",
        threshold=float(
            rule_cols[1].slider(
                "Threshold (every class)",
                *_range,
                value=_default_thr,
                step=_step,
                key="multilabel_threshold",
                help=f"Scores read as {_scale.kind}: {_scale.reason}.",
            )
        ),
    )
elif kind_ == "per-class":
    _values = st.session_state.get("multilabel_thr_values") or [_default_thr] * problem.n_classes
    with rule_cols[1]:
        edited = st.data_editor(
            pd.DataFrame({"class": list(problem.classes), "threshold": _values}),
            hide_index=True,
            disabled=["class"],
            width="stretch",
            height=min(35 * problem.n_classes + 38, 300),
            column_config={
                "threshold": st.column_config.NumberColumn(format="%.4g", required=True)
            },
            key="multilabel_thr_editor",
        )
    _thr = pd.to_numeric(edited["threshold"], errors="coerce").to_numpy(float)
    _thr = np.where(np.isnan(_thr), _default_thr, _thr)
    rule = dr.Rule("per-class", thresholds=tuple(float(t) for t in _thr))
elif kind_ == "cut-offs":  # multi-class: each class's own cut-off, from the lowest score
    _floor = float(min(_range[0], _lo))
    with rule_cols[1]:
        edited = st.data_editor(
            pd.DataFrame({"class": list(problem.classes), "cut-off": [_floor] * problem.n_classes}),
            hide_index=True,
            disabled=["class"],
            width="stretch",
            height=min(35 * problem.n_classes + 38, 300),
            column_config={"cut-off": st.column_config.NumberColumn(format="%.4g", required=True)},
            key="multilabel_cut_editor",
        )
    _cut = pd.to_numeric(edited["cut-off"], errors="coerce").to_numpy(float)
    rule = dr.Rule(
        "cut-offs", thresholds=tuple(float(t) for t in np.where(np.isnan(_cut), _floor, _cut))
    )
else:
    rule = dr.Rule("argmax")
st.markdown(f"**{rule_name}**: {dr.RULE_LINES[rule_name]}")
if not problem.multiclass:
    st.caption(
        f"Scores read as {_scale.kind} ({_scale.reason}); the first threshold is "
        f"{_default_thr:g}. Each class is scored on its own: a row's scores need not sum to 1."
    )

# Bad input, said once, and nothing dropped.
_sums = problem.scores.sum(axis=1)
if (
    problem.multiclass
    and _scale.kind == "probability"
    and problem.n_rows
    and not np.allclose(_sums, 1, atol=1e-3)
):
    st.caption(
        f":material/info: Rows' scores sum to {_sums.min():.3g}–{_sums.max():.3g}, not 1: "
        "allowed. The rules compare the scores as they are (argmax is unchanged by scaling a "
        "row; an abstention cut-off is not)."
    )
_no_pos = [c for c, n in zip(problem.classes, problem.y.sum(axis=0), strict=True) if n == 0]
if _no_pos:
    st.caption(
        f":material/warning: {', '.join(_no_pos)} ha{'ve' if len(_no_pos) > 1 else 's'} no true "
        "row: its recall and F1 are 0/0, set to 0 (zero_division) and kept in macro; micro "
        "and weighted are unaffected by its missing positives, but its false positives count."
    )
if np.isnan(problem.scores).any():
    st.caption(
        ":material/warning: Some scores are missing (NaN): such a cell is never >= a threshold "
        "(thresholds and top-k treat it as not predicted)."
    )
if preset == CURRENT and ds.prepared.n_dropped:
    st.caption(
        f"{ds.prepared.n_dropped:,} row{'s' * (ds.prepared.n_dropped != 1)} with a missing or "
        "bad label or score were dropped when loading (see the sidebar)."
    )


@st.cache_data(max_entries=16, show_spinner="Scoring the decision rule...")
def _evaluate(key: tuple, _problem: mc.ClassScores, _rule: dr.Rule, beta: float) -> dr.Evaluation:
    return dr.evaluate(_problem, _rule, beta=beta)


ev = _evaluate((_sig, rule), problem, rule, beta)


@st.cache_data(max_entries=16, show_spinner="Resampling the decision's averages...")
def _rule_intervals(
    key: tuple, _problem: mc.ClassScores, _rule: dr.Rule, beta: float, n: int, _groups
) -> metrics.DecisionIntervals:
    return metrics.decision_intervals(
        _problem.y, dr.indicator(_problem, _rule), beta=beta, sample_weight=_problem.weight,
        groups=_groups, n_resamples=n,
    )  # fmt: skip


cards = st.columns(5)
for col, avg in zip(cards, dr.AVERAGES, strict=False):
    col.metric(f"F1 ({avg})", dr.fmt(ev.averages[("F1", avg)]), help=dr.AVERAGE_LINES[avg])
if problem.multiclass and rule.kind == "top-k" and rule.k > 1:
    # k labels predicted for one true class: subset accuracy is 0 by construction; the number
    # wanted is whether the true class is among the k (micro recall, with one class per row).
    cards[4].metric(
        f"top-{rule.k} accuracy",
        dr.fmt(ev.averages[("recall", "micro")]),
        help=f"The share of rows whose true class is among the {rule.k} predicted (micro "
        f"recall, as every row has one class). Subset accuracy is {dr.fmt(ev.accuracy)}: with "
        f"{rule.k} labels predicted the set never equals the one true class.",
    )
else:
    cards[4].metric(
        "accuracy" if rule.single else "subset accuracy",
        dr.fmt(ev.accuracy),
        help="metrics.accuracy_score: for sets of labels, the share of rows whose predicted set "
        "is exactly the true set.",
    )
for line in dr.lessons(ev, problem.multiclass):
    st.markdown(line)

avg_col, explain_col = st.columns([3, 2])
with avg_col:
    st.dataframe(
        dr.averages_table(ev),
        hide_index=True,
        width="stretch",
        column_config={a: st.column_config.NumberColumn(format="%.4f") for a in dr.AVERAGES},
        key="multilabel_rule_averages",
    )
    st.caption(
        "Each cell is metrics.precision_score / recall_score / f1_score / jaccard_score with "
        "that average."
        + (" None: samples averaging is not defined for one label per row." if rule.single else "")
    )
    for msg in dict.fromkeys(
        m for key in ("per class", *dr.AVERAGES) for m in ev.notes.get(key, ())
    ):
        st.caption(f":material/warning: {msg}")
    if preset == CURRENT:
        n_resamples = st.selectbox(
            "Intervals: resamples",
            RESAMPLES,
            index=RESAMPLES.index(200),
            key="multilabel_resamples",
            help="Bootstrap resamples behind the 95% intervals of the averages here and of AP "
            "and AUC above (0: none). "
            + (f"Whole {ds.mapping.group} values are resampled." if grouped else "Rows are "
               "resampled."),
        )  # fmt: skip
    if n_resamples:
        spread = _rule_intervals((_sig, rule, beta, n_resamples, grouped), problem, rule, beta,
                                 n_resamples, groups)  # fmt: skip
        st.dataframe(
            dr.intervals_table(spread, single=rule.single),
            hide_index=True,
            width="stretch",
            key="multilabel_rule_intervals",
        )
        st.caption(
            f"95% bootstrap intervals of each average; "
            f"{'accuracy' if rule.single else 'subset accuracy'} {dr.fmt(spread.accuracy)} "
            f"{dr.interval(spread.accuracy_interval)}. The rule's predictions fixed, "
            f"{n_resamples:,} resamples of {unit}; metrics.decision_intervals."
        )
with explain_col:
    for avg in dr.AVERAGES:
        lines, note = dr.explain_lines(ev, avg)
        explain(f"F1 ({avg})", lines, note)

st.dataframe(
    dr.per_class_table(ev),
    hide_index=True,
    width="stretch",
    column_config={
        **{
            name: st.column_config.NumberColumn(format="%.0f" if not sm.weighted else "localized")
            for name in ("support", "TP", "FP", "FN", "TN")
        },
        **{
            name: st.column_config.NumberColumn(format="%.4f")
            for name in ("precision", "recall", f"F{beta:g}", "F1", "Jaccard", "MCC")
        },
    },
    key="multilabel_rule_table",
)
st.caption(
    ("Support and TP/FP/FN/TN are sums of sample weight. " if sm.weighted else "")
    + "Support: true rows of the class. TP/FP/FN/TN: metrics.multilabel_confusion_matrix, each "
    "class against the rest; Jaccard = TP / (TP + FP + FN); MCC: metrics.matthews_corrcoef on "
    "the class's column."
)

st.markdown("**Each class's 2 × 2 confusion matrix** (rows: truth; columns: prediction)")
chart(dr.class_matrices_figure(ev), key="multilabel_rule_matrices")
_columns = ds.mapping.class_columns(ds.mapping.class_model_of(model))  # the model shown
if preset == CURRENT and all(m in ds.models for m in _columns):

    def _pick_model(model_name: str) -> None:
        st.session_state["model"] = model_name  # the sidebar's model: Threshold shows it

    st.caption(
        "Pick a class to study it alone on the Threshold page (it becomes the sidebar's model):"
    )
    per_row = 6
    for start in range(0, problem.n_classes, per_row):
        buttons = st.columns(per_row)
        for c in range(start, min(start + per_row, problem.n_classes)):
            buttons[c - start].button(
                str(problem.classes[c]),
                key=f"multilabel_open_{c}",
                icon=":material/tune:",
                on_click=_pick_model,
                args=(_columns[c],),
                width="stretch",
                type="primary" if model == _columns[c] else "secondary",
            )
    if model in _columns:
        picked = problem.classes[list(_columns).index(model)]
        st.page_link(
            "pages/threshold.py",
            label=f"Open {picked} on the Threshold page",
            icon=":material/arrow_forward:",
        )

if rule.single:
    if rule.kind == "abstain":
        _norm = {
            "counts": None,
            "by true class": "true",
            "by predicted class": "pred",
            "of all rows": "all",
        }
        shown_as = (
            st.segmented_control(
                "N × N matrix of this rule",
                list(_norm),
                default="counts",
                key="multilabel_rule_normalize",
            )
            or "counts"
        )
        chart(dr.rule_confusion_figure(ev, _norm[shown_as]), key="multilabel_rule_matrix")
        st.caption(
            "The last column holds the abstained rows: misses of their true class, predicted as "
            "nothing."
        )
    else:
        st.caption("The N × N matrix of argmax is in the multi-class section above.")

# --- 5b. multi-class: a cost matrix and the minimum-expected-cost decision -------------------

if problem.multiclass and problem.n_rows:
    st.subheader("Costs: the minimum-expected-cost decision against argmax")
    st.markdown(
        "Not every mistake costs the same. Say what predicting each class costs when the truth "
        "is each class; the rule then predicts, for each row, the class with the lowest "
        "**expected cost** Σᵢ P(true class i) × cost(i → j). The default, 0 on the diagonal "
        "and 1 elsewhere, counts every mistake alike: its minimum-expected-cost decision is "
        "argmax (Elkan 2001, *The foundations of cost-sensitive learning*)."
    )
    n_cls = problem.n_classes
    _base = st.session_state.get("multilabel_cost_values")
    _base = (
        np.asarray(_base, dtype=float)
        if _base is not None and np.shape(_base) == (n_cls, n_cls)
        else cm.default_cost(n_cls)
    )

    def _set_cost(values) -> None:
        st.session_state["multilabel_cost_values"] = values
        st.session_state.pop("multilabel_cost_editor", None)  # the editor restarts from values

    def _set_missing() -> None:
        current = st.session_state.get("multilabel_cost_current")
        start = np.asarray(current if current is not None else _base, dtype=float)
        c = list(problem.classes).index(st.session_state["multilabel_cost_class"])
        value = float(st.session_state["multilabel_cost_miss"])
        _set_cost(cm.missing_cost(start, c, value).tolist())

    matrix_col, fill_col = st.columns([3, 2])
    with matrix_col:
        if n_cls <= cm.MAX_EDITABLE:
            st.markdown("**Cost matrix** (rows: true class; columns: predicted class; editable)")
            edited = st.data_editor(
                cm.editor_frame(problem.classes, _base),
                hide_index=True,
                disabled=[cm.CORNER],
                width="stretch",
                height=min(35 * n_cls + 38, 400),
                column_config={
                    c: st.column_config.NumberColumn(format="%g", width="small")
                    for c in problem.classes
                },
                key="multilabel_cost_editor",
            )
            cost, cost_problem = cm.parse_cost(edited, problem.classes)
        else:
            st.markdown("**Cost matrix** (rows: true class; columns: predicted class)")
            st.dataframe(
                cm.editor_frame(problem.classes, _base),
                hide_index=True,
                width="stretch",
                height=300,
                key="multilabel_cost_view",
            )
            st.caption(
                f"With {n_cls} classes ({cm.MAX_EDITABLE} at most for cell-by-cell editing) the "
                "matrix is set with the shortcut on the right, one class at a time. For any "
                "matrix, call metrics.compare_cost_decisions(y_true, proba, cost) in Python."
            )
            cost, cost_problem = _base, ""
    with fill_col:
        st.markdown("**Shortcut: the cost of missing a class**")
        st.selectbox("Class", problem.classes, key="multilabel_cost_class")
        st.number_input(
            "Cost of every wrong prediction for a true row of it",
            min_value=0.0,
            value=5.0,
            step=1.0,
            key="multilabel_cost_miss",
        )
        set_col, reset_col = st.columns(2)
        set_col.button(
            "Set that row", key="multilabel_cost_set", on_click=_set_missing, width="stretch"
        )
        reset_col.button(
            "Reset to 0-1",
            key="multilabel_cost_reset",
            on_click=_set_cost,
            args=(None,),
            width="stretch",
            help="0 on the diagonal, 1 elsewhere: the rule is then argmax.",
        )
        st.caption(
            "Sets the class's row of the matrix (every prediction but itself) and keeps the "
            "other rows; edit any cell afterwards."
        )

    if cost is None:
        st.warning(cost_problem, icon=":material/warning:")
    else:
        st.session_state["multilabel_cost_current"] = cost.tolist()
        for sentence in cm.dominated(cost, problem.classes):
            st.caption(f":material/info: {sentence}")
        prob = cm.probabilities(problem.scores, _scale.kind, _scale.reason)
        st.info(
            "**The rule assumes calibrated probabilities**: a row's expected cost weighs each "
            "cost by the probability that the row is of that class, so the rule is the cheapest "
            "on average only if those probabilities are right (of the rows scored 0.8 for a "
            "class, 8 in 10 belong to it). Summing to 1 is not enough: over-confident scores "
            "make every cost but the top class's look negligible. Check a class's calibration "
            "on the Calibration page (its button above makes it the sidebar's model).",
            icon=":material/info:",
        )
        if prob.refusal:
            st.warning(prob.refusal, icon=":material/block:")
        else:
            if prob.normalised:
                st.caption(f":material/info: {prob.note}")

            @st.cache_data(max_entries=16, show_spinner="Weighing the costs...")
            def _costs(key: tuple, _problem: mc.ClassScores, _proba: np.ndarray, _cost: np.ndarray):
                return cm.compare(_problem, _proba, _cost)

            res = _costs((_sig, cost.tobytes()), problem, prob.proba, cost)
            cmp = res.comparison
            cost_cards = st.columns(5)
            cost_cards[0].metric(
                "total cost, argmax",
                f"{res.argmax_total:,.6g}",
                help="Σ cost(true class → argmax class) over the rows"
                + (" (× sample weight)." if problem.weight is not None else "."),
            )
            cost_cards[1].metric(
                "total cost, min cost",
                f"{res.min_cost_total:,.6g}",
                delta=f"{-res.saving_total:+,.4g} vs argmax" if res.saving_total else None,
                delta_color="inverse",
                help="Σ cost(true class → the minimum-expected-cost class) over the rows: "
                "'min cost' is the minimum-expected-cost rule.",
            )
            cost_cards[2].metric("mean cost, argmax", dr.fmt(cmp.argmax_mean))
            cost_cards[3].metric(
                "mean cost, min cost",
                dr.fmt(cmp.min_cost_mean),
                help="metrics.compare_cost_decisions: the realised mean cost per row.",
            )
            cost_cards[4].metric(
                "rows changing decision",
                f"{cmp.changed:,}",
                help=f"Of {problem.n_rows:,} rows.",
            )
            st.markdown(cm.summary(res))

            cost_norm = {"counts": None, "by true class": "true"}
            shown_cost = (
                st.segmented_control(
                    "Both N × N matrices",
                    list(cost_norm),
                    default="counts",
                    key="multilabel_cost_normalize",
                )
                or "counts"
            )
            left, right = st.columns(2)
            for col, title, counts_, key in (
                (left, "argmax", res.confusion_argmax, "multilabel_cost_matrix_argmax"),
                (
                    right,
                    "minimum expected cost",
                    res.confusion_min_cost,
                    "multilabel_cost_matrix_min",
                ),
            ):
                with col:
                    chart(
                        dr.matrix_figure(
                            counts_,
                            problem.classes,
                            problem.classes,
                            cost_norm[shown_cost],
                            title=title,
                        ),
                        key=key,
                    )
            st.dataframe(
                cm.class_table(res),
                hide_index=True,
                width="stretch",
                column_config={
                    **{
                        name: st.column_config.NumberColumn(format="%.4f")
                        for name in ("recall, argmax", "recall, min cost")
                    },
                    "recall change": st.column_config.NumberColumn(format="%+.4f"),
                    **{
                        name: st.column_config.NumberColumn(format="%.4g")
                        for name in ("cost, argmax", "cost, min cost")
                    },
                },
                key="multilabel_cost_table",
            )
            st.caption(
                "Per true class: its recall under each rule (None: no true row), how many rows "
                "each rule predicts as it, and the cost its rows run up. Raising the cost of "
                "missing a class (the shortcut) can only move rows into its column: its recall "
                "can only rise, the others' only fall."
            )

            changed = res.changed_rows
            if st.session_state.get("multilabel_cost_row_for") != cost.tobytes().hex():
                # a new matrix: unfold the first row whose decision it changes
                st.session_state["multilabel_cost_row_for"] = cost.tobytes().hex()
                st.session_state["multilabel_cost_row"] = int(changed[0]) + 1 if changed.size else 1
            row_col, rows_col = st.columns([1, 3], vertical_alignment="bottom")
            cost_row = (
                int(
                    row_col.number_input(
                        "Row to unfold (from 1)",
                        1,
                        problem.n_rows,
                        step=1,
                        key="multilabel_cost_row",
                    )
                )
                - 1
            )
            cost_row = min(cost_row, problem.n_rows - 1)
            rows_col.caption(
                (
                    "Rows whose decision changes: "
                    + ", ".join(str(i + 1) for i in changed[:12])
                    + (f", … ({changed.size:,} in all)" if changed.size > 12 else "")
                    + "."
                )
                if changed.size
                else "No row's decision changes with these costs."
            )
            lines, note = cm.explain_lines(res, cost_row)
            explain(f"the expected costs of row {cost_row + 1}", lines, note)
            st.dataframe(
                cm.row_table(res, cost_row),
                hide_index=True,
                width="stretch",
                column_config={
                    "probability": st.column_config.NumberColumn(format="%.4g"),
                    "expected cost if predicted": st.column_config.NumberColumn(format="%.4g"),
                },
                key="multilabel_cost_row_table",
            )
# --- 6. choosing per-class thresholds (multi-label) -------------------------------------------

if not problem.multiclass and problem.n_rows >= 2:
    st.subheader("Choosing thresholds")

    @st.cache_data(max_entries=8, show_spinner="Searching thresholds...")
    def _choices(key: tuple, _problem: mc.ClassScores, beta: float):
        y, s, w = _problem.y, _problem.scores, _problem.weight
        best = metrics.optimise_thresholds(y, s, objective="macro", beta=beta, sample_weight=w)
        micro = metrics.optimise_thresholds(y, s, objective="micro", beta=beta, sample_weight=w)
        return best, micro

    @st.cache_data(max_entries=8, show_spinner="Choosing on half the rows...")
    def _halves(key: tuple, _problem: mc.ClassScores, beta: float, seed: int):
        y, s, w = _problem.y, _problem.scores, _problem.weight
        return {
            obj: metrics.choose_on_half(y, s, objective=obj, beta=beta, sample_weight=w, seed=seed)
            for obj in ("macro", "micro")
        }

    fb = f"F{beta:g}"
    best, micro_choice = _choices(_sig, problem, beta)
    st.markdown(
        f"Per class, the threshold that maximises its own {fb} (one sweep over its scores). "
        f"Each class's {fb} depends on its threshold only, so these are also **the exact "
        f"maximum of macro-{fb}**. **Micro-{fb}** pools the counts, so the classes interact: "
        "the search starts from the macro optimum and moves one class's threshold at a time "
        "while that helps (coordinate ascent) — a **local optimum**: no single move improves it, "
        "a joint move might."
    )
    choose_cols = st.columns(4)
    choose_cols[0].metric(
        f"macro-{fb}, per-class thresholds",
        dr.fmt(best.macro),
        delta=f"{decimals(best.gain, plus=True)} vs one shared",
        delta_color="off" if best.gain == 0 else "normal",
    )
    choose_cols[1].metric(
        f"macro-{fb}, shared threshold",
        dr.fmt(best.shared_value),
        help=f"One threshold for every class: {best.shared_threshold:g}.",
    )
    choose_cols[2].metric(
        f"micro-{fb}, per-class thresholds",
        dr.fmt(micro_choice.micro),
        delta=f"{decimals(micro_choice.gain, plus=True)} vs one shared",
        delta_color="off" if micro_choice.gain == 0 else "normal",
    )
    choose_cols[3].metric(
        f"micro-{fb}, shared threshold",
        dr.fmt(micro_choice.shared_value),
        help="One threshold for every class: "
        f"{dr.typed_cut(problem.scores, micro_choice.shared_threshold):g}.",
    )
    st.caption(
        f"Best shared threshold: {dr.typed_cut(problem.scores, best.shared_threshold):g} for "
        f"macro, {dr.typed_cut(problem.scores, micro_choice.shared_threshold):g} for micro. "
        "Thresholds are written with the fewest digits that predict the same rows. "
        "The micro ascent took "
        f"{micro_choice.rounds} pass{'es' * (micro_choice.rounds != 1)}."
        + (
            " A threshold of inf predicts the class for no row."
            if any(
                np.isinf(c.thresholds).any() or np.isinf(c.shared_threshold)
                for c in (best, micro_choice)
            )
            else ""
        )
    )
    choice_table = dr.thresholds_table(problem, best, micro_choice)
    cut_columns = (choice_table.columns[1], choice_table.columns[3])  # the two thresholds
    st.dataframe(
        choice_table,
        hide_index=True,
        width="stretch",
        column_config={
            c: st.column_config.NumberColumn(format="plain" if c in cut_columns else "%.4f")
            for c in choice_table.columns[1:]
        },
        key="multilabel_choice_table",
    )
    st.warning(
        "Thresholds chosen on the rows they are then scored on **overstate**: they fit this "
        "sample's noise. Choose on one half of the rows and report on the other to see by how "
        "much.",
        icon=":material/warning:",
    )
    halves = st.toggle(
        "Choose on a random half, report on the other half", key="multilabel_choose_half"
    )
    chosen_best, chosen_micro = best, micro_choice
    if halves:
        split = _halves(_sig, problem, beta, 0)
        chosen_best, chosen_micro = split["macro"].choice, split["micro"].choice
        half_cols = st.columns(4)
        for i, (obj, h) in enumerate(split.items()):
            half_cols[2 * i].metric(f"{obj}-{fb}, choosing half", dr.fmt(h.choice.value))
            half_cols[2 * i + 1].metric(
                f"{obj}-{fb}, held-out half",
                dr.fmt(h.report_value),
                delta=f"{decimals(-h.optimism, plus=True)} vs in-sample",
                help=f"The shared threshold, chosen on the same half, scores "
                f"{decimals(h.report_shared_value)} here: a held-out gain of "
                f"{decimals(h.report_gain, plus=True)}.",
            )
        st.caption(
            f"Rows split at random (seed 0): {split['macro'].chosen_rows.size:,} to choose, "
            f"{split['macro'].report_rows.size:,} to report. Held out, per-class thresholds "
            + " and ".join(
                f"{'beat' if g > 0 else 'lose to' if g < 0 else 'tie'} the shared one"
                + (f" by {decimals(abs(g))}" if g else "")
                + f" ({obj})"
                for obj, g in (
                    ("macro", split["macro"].report_gain),
                    ("micro", split["micro"].report_gain),
                )
            )
            + "."
        )

    def _apply(thresholds: np.ndarray) -> None:
        st.session_state["multilabel_thr_values"] = [float(t) for t in thresholds]
        st.session_state.pop("multilabel_thr_editor", None)
        st.session_state["multilabel_rule_ml"] = "per-class thresholds"

    where = " (chosen on the half)" if halves else ""
    apply_cols = st.columns(2)
    apply_cols[0].button(
        f"Use the macro-optimal thresholds{where}",
        key="multilabel_apply_macro",
        on_click=_apply,
        args=(dr.finite_thresholds(problem, chosen_best.thresholds),),
        icon=":material/done_all:",
    )
    apply_cols[1].button(
        f"Use the micro-optimal thresholds{where}",
        key="multilabel_apply_micro",
        on_click=_apply,
        args=(dr.finite_thresholds(problem, chosen_micro.thresholds),),
        icon=":material/done_all:",
    )
    st.caption(
        "The buttons fill the per-class rule's table above (inf becomes a number just above "
        "the class's highest score: the same predictions)."
    )


# --- 7. LRAP against samples-averaged AP ----------------------------------------------------

st.subheader("Label ranking AP vs samples-averaged AP")
lrap_cols = st.columns(4)
lrap_cols[0].metric("LRAP", mc.fmt(sm.lrap), help="metrics.label_ranking_average_precision_score")
lrap_cols[1].metric(
    "samples AP",
    mc.fmt(sm.ap["samples"]),
    help="metrics.average_precision_score(average='samples')",
)
lrap_cols[2].metric(
    "LRAP, rows with a label",
    mc.fmt(sm.lrap_labelled),
    help=f"LRAP over the {sm.n_rows_with_label:,} rows with at least one relevant label.",
)
lrap_cols[3].metric(
    "samples AP, trapezoid",
    mc.fmt(sm.samples_ap_trapezoid),
    help="The same per-row AP with the PR curve read by the trapezoid rule (scikit-learn "
    "before 0.19).",
)
_notes(("AP", "samples"), ("LRAP", "all"))
st.markdown(
    "**LRAP** takes each row's relevant labels *j* and the share of relevant labels among the "
    "labels scoring at least as high as *j*; a tie counts against *j* (every tied label is at "
    "least as high). It averages that over the row's relevant labels, then over rows.  \n"
    "**Samples AP** makes each row a binary problem and sums recall gain × precision over the "
    "row's distinct scores: a tie run is one point, with precision counted after the whole run. "
    "That is the same number, so on a row with a relevant label the two agree, ties included.  \n"
    "They differ on **rows with no relevant label**: LRAP scores such a row 1 and keeps it; "
    "samples AP is undefined there and leaves the row out (scikit-learn's samples AP counts it "
    f"as 0, which gives {mc.fmt(sm.samples_ap_sklearn)} here). A row with every label relevant "
    "is 1 in both.  \n"
    "The **trapezoid** rule of scikit-learn before 0.19 averages the precision at both ends of "
    "each recall step, so it usually differs once a negative label scores at least as high as a "
    "relevant one (labels 1, 0, 1, 0 scored 1, 0.8, 0.6, 0.4: trapezoid 0.7917 against the "
    "step sum's 5/6)."
)
st.caption(
    f"Here: {sm.n_rows_without_label:,} of {sm.n_rows:,} row{'s' * (sm.n_rows != 1)} without a "
    f"relevant label, {sm.n_rows_all_labels:,} with every label relevant."
)
row = (
    int(
        st.number_input(
            "Row to take apart (from 1)", 1, max(problem.n_rows, 1), 1, 1, key="multilabel_row"
        )
    )
    - 1
)
row = min(row, problem.n_rows - 1)
breakdown, _ = mc.row_breakdown(problem, row)
lines, note = mc.row_explain_lines(problem, row)
explain(f"LRAP and AP of row {row + 1}", lines, note, expanded=problem.n_rows == 1)
st.dataframe(
    breakdown,
    hide_index=True,
    width="stretch",
    column_config={"precision": st.column_config.NumberColumn(format="%.4f")},
    key="multilabel_row_table",
)
