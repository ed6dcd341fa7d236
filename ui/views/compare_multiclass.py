"""Compare on a per-class table (multi-class or multi-label): whole models side by side, never
a table's classes against each other.

One model's ``score_<class>`` columns are not competing models (each answers a different
question), so with one model the page says in one sentence what it needs. With two or more
models (``<model>__<class>`` columns) it shows :func:`metrics.compare_multiclass_models`: each
averaged metric with its paired interval, a star only where a model is significantly best within
the family of tests declared in the settings (a primary metric, macro AUC by default, or every
metric under Holm), every pair's test and verdict (exploratory outside the family), and the
per-class values on demand. The verdicts are the library's; this module only lays them out.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import streamlit as st

import metrics
from metrics.multiclass_compare import PER_CLASS
from metrics.significance import format_p
from ui.analyses.compare_setup import FAMILY_ALL
from ui.compute.data import UPLOAD_TTL
from ui.tables.dataset import Dataset
from ui.views.show import csv_download
from ui.words.numbers import decimals
from ui.words.safe import md

__all__ = ["comparison", "pairs_frame", "per_class_frame", "render", "table_frame"]

RESAMPLES = [0, 100, 200, 500, 1000, 2000]
MULTI_PAGE = "pages/multilabel.py"


def class_model_scores(ds: Dataset, model: str) -> np.ndarray:
    """A per-class model's (n, C) scores, columns in the order of the classes."""
    return np.column_stack([ds.score(c) for c in ds.mapping.class_columns(model)])


def _truth(ds: Dataset):
    y = np.asarray(ds.prepared.y, dtype=bool)
    if ds.mapping.is_multiclass:  # one class per row, by name
        return np.asarray(ds.mapping.classes, dtype=object)[np.argmax(y, axis=1)]
    return y


@st.cache_data(max_entries=8, ttl=UPLOAD_TTL, show_spinner="Resampling every model...")
def comparison(
    key: tuple,
    models: tuple[str, ...],
    n_resamples: int,
    clustered: bool,
    threshold: float,
    _ds: Dataset,
    family: str = "macro AUC",
) -> metrics.MulticlassComparison:
    """The library's comparison of ``models`` (class models of ``_ds``), cached by the data."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        return metrics.compare_multiclass_models(
            _truth(_ds),
            {m: class_model_scores(_ds, m) for m in models},
            classes=_ds.mapping.classes,
            sample_weight=_ds.weight,
            groups=_ds.prepared.groups if clustered else None,
            threshold=threshold,
            n_resamples=n_resamples,
            family=family,
        )


def _cell(r: metrics.MulticlassComparison, name: str, i: int) -> str:
    value = r.values[name][i]
    if not math.isfinite(value):
        return "undefined"
    text = f"{decimals(value)}"
    if r.results is not None:
        iv = r.results[name].models[i]
        if math.isfinite(iv.ci_low):
            text += f"  [{decimals(iv.ci_low)}, {decimals(iv.ci_high)}]"
    return ("★ " if r.best[name].best == i else "") + text


def column_label(r: metrics.MulticlassComparison, name: str) -> str:
    """A metric's header: "(primary)", "(exploratory)", or "(= accuracy)" for a number that is
    another's; as it is when every metric is in the family."""
    if name in r.family.duplicates:
        return f"{name} (= {r.family.duplicates[name]})"
    if r.family.declared == "all":
        return name
    return f"{name} ({'primary' if r.family.in_family(name) else 'exploratory'})"


def family_options(kind: str, probabilities: bool) -> dict[str, str]:
    """What the stars can rest on: each metric as the primary one (macro AUC first, the
    default), or every metric. Label -> the family's name in the library."""
    names = list(metrics.multiclass_metric_names(kind, probabilities))
    names.remove("macro AUC")
    out = {f"{n} (primary)": n for n in ["macro AUC", *names]}
    out[FAMILY_ALL] = "all"
    return out


def table_frame(r: metrics.MulticlassComparison) -> pd.DataFrame:
    """One row per model, one column per metric: the value, its interval, a star where the
    model is significantly best (text, as shown)."""
    shown = pd.DataFrame({"model": list(r.models)})
    for spec in r.metrics:
        shown[spec.name] = [_cell(r, spec.name, i) for i in range(len(r.models))]
    return shown


def values_frame(r: metrics.MulticlassComparison) -> pd.DataFrame:
    """The same as numbers (value, low, high per metric), for the download."""
    out = pd.DataFrame({"model": list(r.models)})
    for spec in r.metrics:
        out[spec.name] = r.values[spec.name]
        if r.results is not None:
            out[f"{spec.name} low"] = [iv.ci_low for iv in r.results[spec.name].models]
            out[f"{spec.name} high"] = [iv.ci_high for iv in r.results[spec.name].models]
    return out


def pairs_frame(r: metrics.MulticlassComparison) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "metric": p.metric,
                "model A": p.model_a,
                "model B": p.model_b,
                "A − B": p.difference,
                "low": p.ci_low,
                "high": p.ci_high,
                "p-value": p.p_value,
                "Holm p": p.holm_p,
                "role": p.role,
                "verdict": p.verdict,
            }
            for p in r.pairs
        ]
    )


def per_class_frame(r: metrics.MulticlassComparison) -> pd.DataFrame:
    """One row per class and model: AUC, AP and F1 one-vs-rest, with intervals."""
    rows = []
    for c, cls in enumerate(r.classes):
        for i, model in enumerate(r.models):
            row = {"class": cls, "model": model, "positives": float(r.support[c])}
            for name in PER_CLASS:
                value = r.per_class[name][i, c]
                text = "undefined" if not math.isfinite(value) else f"{decimals(value)}"
                if r.per_class_intervals is not None and math.isfinite(value):
                    low, high = r.per_class_intervals[name][i, c]
                    if math.isfinite(low):
                        text += f"  [{decimals(low)}, {decimals(high)}]"
                row[name] = text
            rows.append(row)
    return pd.DataFrame(rows)


def _one_model_sentence(ds: Dataset) -> str:
    columns = ", ".join(md(c) for c in ds.mapping.class_columns()[:3])
    return (
        f"Compare ranks whole models, never the classes of one: this table holds one model's "
        f"scores per class ({columns}, ...), so comparing needs two or more models' per-class "
        "scores, in columns named <model>\\_\\_<class> (for example lr\\_\\_A and hgb\\_\\_A); "
        "this model's per-class and averaged metrics are on the Multi-class & multi-label page."
    )


def render(ds: Dataset) -> None:
    """Compare's section for a per-class table: the sentence, or the models side by side."""
    kind = "multi-class" if ds.mapping.is_multiclass else "multi-label"
    models_all = ds.mapping.class_models
    if len(models_all) < 2:
        st.info(_one_model_sentence(ds), icon=":material/info:")
        st.page_link(MULTI_PAGE, label="Open the Multi-class & multi-label page",
                     icon=":material/arrow_forward:")  # fmt: skip
        return
    st.subheader(f"{kind.capitalize()} models side by side", anchor="multiclass-models")
    group_column = ds.mapping.group if ds.prepared.groups is not None else None
    with st.container(border=True):
        left, middle, right, last = st.columns([2, 2, 2, 2])
        models = tuple(
            left.multiselect(
                "Models",
                list(models_all),
                default=list(models_all),
                key=f"compare_mc_models_{abs(hash(models_all)) % 10**8}",
            )
        )  # fmt: skip  (a key per set of models: a new table starts with all of its own)
        n_resamples = middle.select_slider(
            "Bootstrap resamples", options=RESAMPLES, value=1000, key="compare_mc_resamples",
            help="Paired: every resample draws each row a Poisson(1) number of times and "
            "scores every model on the same rows. 0 shows the values only.",
        )  # fmt: skip
        probabilities = all(
            float(class_model_scores(ds, m).min()) >= 0
            and float(class_model_scores(ds, m).max()) <= 1
            for m in models_all
        )
        choices = family_options(
            "multiclass" if ds.mapping.is_multiclass else "multilabel", probabilities
        )
        chosen = last.selectbox(
            "Stars rest on", list(choices), key="compare_mc_family",
            help="Declare before looking which tests a star may come from. One primary metric "
            "(macro AUC unless you choose another): only its pairs are tested for a star, "
            "Holm-corrected across them; the other metrics are exploratory, shown with "
            "unadjusted p-values and never starred. Or every metric: Holm across metrics × "
            "pairs. Either way the chance of any wrong star is at most 5%; starring wherever "
            "one of eleven metrics is significant is not (two equal models: about 13%).",
        )  # fmt: skip
        threshold = 0.5 if probabilities else 0.0
        if ds.mapping.is_multilabel:
            threshold = right.number_input(
                "Decision threshold", value=threshold, step=0.05, key="compare_mc_threshold",
                help="A class is predicted where its score is at least this; accuracy and F1 "
                "are computed at it.",
            )  # fmt: skip
        independent = group_column is not None and right.toggle(
            "Rows are independent", value=False, key="compare_mc_rows_independent",
            help=f"Off (the default): rows of one {group_column} are not independent, so every "
            f"interval and test resamples whole {group_column} values.",
        )  # fmt: skip
    clustered = group_column is not None and not independent
    if len(models) < 2:
        st.info("Pick two or more models to compare.")
        return
    r = comparison(ds.key, models, n_resamples, clustered, float(threshold), ds, choices[chosen])
    how = (
        f"cluster bootstrap interval (whole {md(group_column)} values resampled)"
        if clustered
        else "paired bootstrap interval"
    )
    st.caption(
        f"{len(r.classes)} classes ({md(', '.join(r.classes[:8]))}"
        f"{', ...' if len(r.classes) > 8 else ''}), {len(ds.prepared.y):,} rows. Accuracy and "
        f"F1 at the decision rule: {md(r.rule)}."
    )
    st.dataframe(
        table_frame(r),
        hide_index=True,
        width="stretch",
        column_config={
            s.name: st.column_config.TextColumn(
                column_label(r, s.name),
                help=("higher" if s.higher_is_better else "lower") + f" is better; {s.help}",
            )
            for s in r.metrics
        },
        key="compare_mc_table",
    )
    st.markdown(
        "\n".join(
            f"- **{md(s.name)}**: " + ("★ " if r.best[s.name].best is not None else "")
            + md(r.best[s.name].verdict, limit=400)
            for s in r.metrics
        )
    )  # fmt: skip
    st.caption(
        "★ marks a model only where it is significantly best within the declared family of "
        "tests: better than each other model by a "
        + ("cluster " if clustered else "paired ")
        + "bootstrap test. "
        + md(r.family.description, limit=600) + " "
        + (f"Brackets: 95% {how}, {r.n_resamples} resamples." if r.results is not None else
           "With 0 resamples nothing is tested.")
    )  # fmt: skip
    for sentence in r.disagreements:
        st.info(md(sentence, limit=600), icon=":material/compare_arrows:")
    for note in r.notes:
        st.caption(f":material/info: {md(note, limit=400)}")
    csv_download("Download the table (CSV)", values_frame(r), "multiclass_models.csv",
                 key="compare_mc_download")  # fmt: skip

    st.subheader("Are the differences real?", anchor="multiclass-differences")
    st.caption(
        "Every pair of models on every metric: the difference A − B, its 95% interval and the "
        "paired bootstrap test's p-value; "
        + (
            "every test is in the family, so each also shows its Holm-adjusted p-value (across "
            "every metric × pair)."
            if r.family.declared == "all"
            else f"the {md(r.family.declared)} pairs (the primary metric) also show the "
            'Holm-adjusted p-value across them, and only they can be "better"; the other '
            "metrics are exploratory: their p-values are unadjusted and claim nothing."
        )
    )
    floor = 1 / r.n_resamples if r.n_resamples else 0
    lines = []
    for p in r.pairs:
        tested = math.isfinite(p.p_value) and math.isfinite(p.holm_p)  # exploratory: in words
        lines.append(
            f"- {md(p.verdict, limit=300)}"
            + (
                f" · {format_p(p.p_value, floor=floor)}, "
                f"{format_p(p.holm_p, floor=floor, name='Holm p')}"
                if tested
                else ""
            )
        )
    st.markdown("\n".join(lines))
    csv_download("Download the pairs (CSV)", pairs_frame(r), "multiclass_model_pairs.csv",
                 key="compare_mc_pairs_download")  # fmt: skip
    with st.expander("Per class: each model's AUC, AP and F1, one class against the rest"):
        st.dataframe(per_class_frame(r), hide_index=True, width="stretch",
                     key="compare_mc_per_class")  # fmt: skip
        st.caption(
            "Each class one-vs-rest; F1 at the decision rule. "
            + ("Positives: weight of the class's rows. " if ds.weight is not None else "")
            + (f"Brackets: 95% {how}." if r.per_class_intervals is not None else "")
            + " These rows compare models within a class, never classes with each other."
        )
