"""The Multi-label page's threshold-free numbers in words: what the page needs from a table,
the averages of AP and AUC with their intervals, the curves, the multi-class matrix and top-k,
one-vs-one AUC, and LRAP against samples AP.

Pure functions, no Streamlit (``ui.views.multilabel_*`` draws them). Every number comes from
the library (:mod:`metrics`) or from :class:`ui.figures.multilabel_charts.AveragingSummary`,
which holds the library's values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import metrics
from ui.figures.multilabel_charts import (
    AveragingSummary,
    ClassScores,
    average_explain_lines,
    fmt,
    tex,
)
from ui.words.numbers import decimals
from ui.words.text import num

INTERVAL_MODES = ("macro", "micro", "weighted")


def problem_line(p: ClassScores, weighted: bool) -> str:
    """The problem's name, its size and its kind, in one line of Markdown."""
    kind = "multi-class (one label per row)" if p.multiclass else "multi-label"
    return (
        f"**{p.name}**: {p.n_rows:,} row{'s' * (p.n_rows != 1)} × "
        f"{p.n_classes} classes, {kind}" + (", sample-weighted" if weighted else "") + "."
    )


def notes(sm: AveragingSummary, *keys: tuple[str, str]) -> list[str]:
    """The captions for the library's warnings of these calls (each once), then, if there were
    any, where the positions they name count from."""
    seen = dict.fromkeys(msg for key in keys for msg in sm.notes.get(key, ()))
    lines = [f":material/warning: {msg}" for msg in seen]
    if seen:
        numbered = ", ".join(f"{i} = {c}" for i, c in enumerate(sm.classes))
        lines.append(
            "Positions count from 0, as in numpy: row position 0 is the table's first row; class "
            f"positions {numbered}."
        )
    return lines


NEEDS_ROWS = (
    "It pairs each class's label with its score row by row (one label and one score column "
    "per class), and per-score counts of one label column hold neither. The worked examples "
    "above work here."
)


def not_per_class(name: str) -> str:
    """What the page needs when the dataset has one score column per model, not per class."""
    return (
        f"{name} has one score column per model, not one per class. Pick the sample "
        "dataset 'Digits: 6 overlapping labels' (multi-label) or 'Wine: 3 cultivars "
        "(multi-class)', or upload a table with label_<class> and score_<class> column pairs "
        "(multi-label) or one label column plus a score_<class> column per class "
        "(multi-class) and choose that layout under Columns. Or pick a worked example above."
    )


def resampled_unit(group: str | None) -> str:
    """What a bootstrap resample draws: whole values of the group column, or rows."""
    return f"whole {group} values" if group is not None else "rows"


def averaged_intervals(
    p: ClassScores, n_resamples: int, groups: np.ndarray | None
) -> metrics.MulticlassComparison:
    """The library's bootstrap of the averaged AP and AUC of ``p`` (one model)."""
    truth = p.true_labels() if p.multiclass else p.y
    return metrics.compare_multiclass_models(
        truth, {p.name: p.scores}, classes=list(p.classes) if p.multiclass else None,
        sample_weight=p.weight, groups=groups, n_resamples=n_resamples, probabilities=False,
    )  # fmt: skip


def averaged_intervals_caption(
    band: metrics.MulticlassComparison, mode: str, n_resamples: int, unit: str
) -> str:
    """The 95% intervals of AP and AUC averaged by ``mode``, in one caption."""
    ap_iv, auc_iv = (band.results[f"{mode} {m}"].models[0] for m in ("AP", "AUC"))
    return (
        f"95% intervals ({n_resamples:,} resamples of {unit}): AP ({mode}) "
        f"[{decimals(ap_iv.ci_low)}, {decimals(ap_iv.ci_high)}], AUC ({mode}) "
        f"[{decimals(auc_iv.ci_low)}, {decimals(auc_iv.ci_high)}]; "
        "metrics.compare_multiclass_models."
    )


def samples_caption(sm: AveragingSummary) -> str:
    """What samples averaging does with the rows that have no relevant label."""
    return (
        f"{sm.n_rows_without_label:,} of {sm.n_rows:,} rows have no relevant label, so their AP "
        "and AUC are undefined and this average leaves them out. scikit-learn's "
        "`average_precision_score(average='samples')` counts such a row's AP as 0 instead: "
        f"**{fmt(sm.samples_ap_sklearn)}** here; its `roc_auc_score(average='samples')` "
        "refuses them (one class in a row)."
    )


def mode_explain(sm: AveragingSummary, mode: str) -> tuple[list[str], str | None]:
    """The Explain lines of AP then AUC averaged by ``mode``, and their notes in one caption."""
    lines: list[str] = []
    sentences: list[str] = []
    for metric in ("AP", "AUC"):
        got, said = average_explain_lines(sm, metric, mode)
        lines += got
        sentences += [s for s in said if s not in sentences]
    return lines, " ".join(sentences) or None


def curves_caption(p: ClassScores, sm: AveragingSummary, curve: str) -> str:
    """What the PR or ROC curves show, and the classes whose curve is undefined."""
    per_class = sm.ap_per_class if curve == "PR" else sm.auc_per_class
    missing = [c for c, v in zip(sm.classes, per_class, strict=True) if not np.isfinite(v)]
    return (
        f"The thick curve ranks all {p.n_rows * p.n_classes:,} (row, class) cells together;"
        f" its area is the micro {'AP' if curve == 'PR' else 'AUC'}. "
        "Thin curves are the classes alone; at most about 2,000 points each are drawn."
        + (f" Not drawn (undefined): {', '.join(missing)}." if missing else "")
    )


def top_k_table(sm: AveragingSummary) -> pd.DataFrame:
    """Top-k accuracy for k = 1 .. the number of classes."""
    return pd.DataFrame({"k": np.arange(1, sm.top_k.size + 1), "top-k accuracy": sm.top_k})


def top_k_explain(sm: AveragingSummary) -> tuple[list[str], str]:
    """The Explain lines of top-k accuracy (top-1 from the matrix's diagonal) and its note."""
    counts = sm.confusion["counts"]
    return (
        [
            r"\text{top-}k = \frac{\sum_i v_i\,[\text{true class of } i \text{ among its } k"
            r"\text{ highest scores}]}{\sum_i v_i}",
            rf"\text{{top-1}} = \frac{{\text{{diagonal}}}}{{n}} = \frac{{{num(np.trace(counts))}}}"
            rf"{{{num(counts.sum())}}} = {tex(np.trace(counts) / counts.sum())},\qquad"
            rf"\text{{library: }} {tex(sm.top_k[0])}",
        ],
        "v_i: sample weight (1 without weights). Top-k ranks a tied class further right higher "
        "(as scikit-learn), the matrix gives a tie to the first column: with ties the two top-1 "
        f"values can differ. Top-{sm.top_k.size} is 1: every class is among the "
        f"{sm.top_k.size} highest.",
    )


def one_vs_one(p: ClassScores) -> tuple[dict[str, float], float]:
    """Hand & Till's one-vs-one AUC, macro and weighted, and the one-vs-rest macro AUC."""
    labels = np.argmax(p.y, axis=1)
    ovo = {
        avg: metrics.roc_auc_score(labels, p.scores, multi_class="ovo", average=avg)
        for avg in ("macro", "weighted")
    }
    return ovo, metrics.roc_auc_score(labels, p.scores, multi_class="ovr", average="macro")


def one_vs_one_line(ovo: dict[str, float], ovr: float) -> str:
    """The one-vs-one AUCs and the one-vs-rest macro AUC, in one line of Markdown."""
    return (
        f"**One-vs-one AUC** (Hand & Till): macro **{decimals(ovo['macro'])}**, weighted by "
        "the "
        f"pairs' rows **{decimals(ovo['weighted'])}**; one-vs-rest macro {decimals(ovr)}."
    )


def lrap_text(sm: AveragingSummary) -> str:
    """How LRAP and samples AP are computed, and where they differ, in Markdown."""
    return (
        "**LRAP** takes each row's relevant labels *j* and the share of relevant labels among "
        "the labels scoring at least as high as *j*; a tie counts against *j* (every tied label "
        "is at least as high). It averages that over the row's relevant labels, then over rows."
        "  \n"
        "**Samples AP** makes each row a binary problem and sums recall gain × precision over "
        "the row's distinct scores: a tie run is one point, with precision counted after the "
        "whole run. That is the same number, so on a row with a relevant label the two agree, "
        "ties included.  \n"
        "They differ on **rows with no relevant label**: LRAP scores such a row 1 and keeps it; "
        "samples AP is undefined there and leaves the row out (scikit-learn's samples AP counts "
        f"it as 0, which gives {fmt(sm.samples_ap_sklearn)} here). A row with every label "
        "relevant is 1 in both.  \n"
        "The **trapezoid** rule of scikit-learn before 0.19 averages the precision at both ends "
        "of each recall step, so it usually differs once a negative label scores at least as "
        "high as a relevant one (labels 1, 0, 1, 0 scored 1, 0.8, 0.6, 0.4: trapezoid 0.7917 "
        "against the step sum's 5/6)."
    )


def lrap_caption(sm: AveragingSummary) -> str:
    """How many rows have no relevant label and how many have every label relevant."""
    return (
        f"Here: {sm.n_rows_without_label:,} of {sm.n_rows:,} row{'s' * (sm.n_rows != 1)} "
        f"without a relevant label, {sm.n_rows_all_labels:,} with every label relevant."
    )
