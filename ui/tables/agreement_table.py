"""Annotator columns of a table and the tables the Data page shows about them (no Streamlit).

Columns named ``annotator_1``, ``annotator_2``, ... (or ``rater_1``, ``judge_1``) hold one
person's (or one model judge's) 0/1 label per row; see :mod:`metrics.agreement`. A long table
of judgements instead holds one row per item and annotator: an item id column (``item``,
``item_id``, ``example``, ``doc_id``, ...), an annotator id column (``annotator``,
``rater_id``, ``judge``, ...) and the label, with the models' scores repeated on each of an
item's rows.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from metrics._bounds import MAX_KAPPA_ANNOTATORS
from metrics.agreement import AgreementReport, AnnotatorScores, LongRatings, ratings_from_long

__all__ = [
    "agreement_rows",
    "annotator_columns",
    "item_predictions",
    "long_columns",
    "long_ratings",
    "ratings",
    "scores_table",
]

_ANNOTATOR = re.compile(r"^(annotator|rater|judge|labeler|labeller)_?\d+$", re.IGNORECASE)
_ANNOTATOR_ID = re.compile(
    r"^(annotator|rater|judge|labeler|labeller|worker)(_?id)?$", re.IGNORECASE
)
_ITEM_ID = re.compile(r"^(item|example|doc|document|sample|text|prompt)(_?id)?$", re.IGNORECASE)


def annotator_columns(frame: pd.DataFrame) -> list[str]:
    """The columns named like one annotator's labels, in the table's order."""
    return [str(c) for c in frame.columns if _ANNOTATOR.match(str(c))]


def long_columns(frame: pd.DataFrame) -> tuple[str, str] | None:
    """(item column, annotator column) when the table is a long table of judgements: both
    named as such, and some item on several rows; else None."""
    annotator = next((c for c in frame.columns if _ANNOTATOR_ID.match(str(c))), None)
    item = next((c for c in frame.columns if _ITEM_ID.match(str(c))), None)
    if annotator is None or item is None or frame[item].nunique(dropna=True) == len(frame):
        return None
    return str(item), str(annotator)


def long_ratings(
    frame: pd.DataFrame, item: str, annotator: str, label: str, pos_label
) -> LongRatings:
    """The (n_items, n_annotators) 0/1 ratings of a long table (NaN: not labelled)."""
    raw = frame[label]
    labels = np.where(raw.isna(), np.nan, (raw == pos_label).to_numpy(dtype=np.float64))
    return ratings_from_long(frame[item].astype(str), frame[annotator].astype(str), labels)


def item_predictions(
    frame: pd.DataFrame, item: str, model: str, threshold: float
) -> tuple[np.ndarray, int]:
    """Each item's prediction (its first row's score >= ``threshold``), items in the order of
    :func:`long_ratings`; and how many items carry more than one score (the first is used)."""
    items = frame[item].astype(str).to_numpy()
    scores = pd.to_numeric(frame[model], errors="coerce").to_numpy(dtype=np.float64)
    _, first, inverse = np.unique(items, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    differs = np.bincount(inverse, weights=scores != scores[first][inverse]) > 0
    return scores[first] >= threshold, int(differs.sum())


def ratings(frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """The annotators' labels as floats (n_rows, n_annotators), NaN where a cell is empty or
    not a number (the library then says which values are not 0 or 1)."""
    return np.column_stack(
        [pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=np.float64) for c in columns]
    )


def agreement_rows(report: AgreementReport, columns: list[str]) -> list[dict[str, str]]:
    """Agreement statistics, one per row, with what each means."""
    rows = [
        {
            "statistic": "Fleiss' kappa",
            "value": _num(report.fleiss_kappa),
            "what it says": "agreement beyond chance of all annotators (needs every row rated "
            "by every annotator); 1 is perfect, 0 is chance",
        },
        {
            "statistic": "Krippendorff's alpha (nominal)",
            "value": _num(report.krippendorff_alpha),
            "what it says": "the same idea, missing ratings allowed",
        },
        {
            "statistic": "two annotators agree",
            "value": _num(report.pair_agreement),
            "what it says": "the chance that two different annotators give a row the same label",
        },
        {
            "statistic": "ceiling on accuracy",
            "value": _num(report.ceiling),
            "what it says": "the best any model can expect against one annotator drawn at "
            "random: each row's majority label, right for the share that agrees with it",
        },
    ]
    if not report.cohen_kappa and report.n_annotators > MAX_KAPPA_ANNOTATORS:
        pairs = report.n_annotators * (report.n_annotators - 1) // 2
        rows.append(
            {
                "statistic": "Cohen's kappa for each pair",
                "value": "—",
                "what it says": f"given for up to {MAX_KAPPA_ANNOTATORS} annotators; these "
                f"{report.n_annotators:,} make {pairs:,} pairs, so Fleiss' kappa and "
                "Krippendorff's alpha above say their agreement at once",
            }
        )
    for (i, j), kappa in report.cohen_kappa.items():
        rows.append(
            {
                "statistic": f"Cohen's kappa, {columns[i]} vs {columns[j]}",
                "value": _num(kappa),
                "what it says": "agreement beyond chance of these two",
            }
        )
    return rows


def scores_table(scores: dict[str, AnnotatorScores]) -> pd.DataFrame:
    """One row per model and reference: accuracy and its interval."""
    rows = []
    for model, s in scores.items():
        level = f"{s.confidence:.0%}"
        for name, acc, low, high in s.rows:
            rows.append(
                {
                    "model": model,
                    "against": name,
                    "accuracy": _num(acc),
                    f"{level} interval": f"{_num(low)} – {_num(high)}",
                }
            )
    return pd.DataFrame(rows)


def _num(x: float) -> str:
    return "—" if x != x else f"{x:.3f}"
