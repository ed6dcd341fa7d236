"""One model's per-score state: what every threshold view, curve and area of a page reads.

A dataset's source produces the state; pages read it and never ask where it came from. Rows held
in memory produce it with one sort (:func:`from_rows`, cached by :mod:`ui.compute.data`); a server
dataset's engine produces it with one GROUP BY over the whole table (:func:`from_summary`, the
engine's per-score table), as Spark MLlib's ``BinaryClassificationMetrics`` keeps one
cumulative-count state per dataset. The two agree to the last bit on the counts, and the
threshold rules (the scale read from the scores, the default threshold, the slider's range) are
functions of the state alone, so they agree too.

Rows of weight 0 are not in the state (as in scikit-learn, they change no metric).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import metrics
from metrics.areas import partial_auc_from_roc
from ui.tables.roles import Scale, default_threshold, infer_scale

__all__ = ["ScoreState", "below_chance", "from_rows", "from_summary", "inverted_hint"]


@dataclass(frozen=True)
class ScoreState:
    """Counts at every distinct score (descending) and the model's exact areas.

    ``exact`` is False when an engine kept score ranges rather than every distinct score (more
    of them than its cap); then no rate read off the counts is off by more than ``bin_error``
    (a share of either class's weight), and the areas are still the engine's exact ones.
    """

    counts: metrics.ThresholdCounts
    auc: float
    ap: float
    exact: bool = True
    bin_error: float = 0.0
    weighted: bool = False  # the counts are sums of sample weights, not numbers of rows

    def runs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(distinct scores, positive weight, negative weight) per score, descending."""
        c = self.counts
        return c.thresholds, np.diff(c.tps, prepend=0), np.diff(c.fps, prepend=0)

    def weighted_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(labels, scores, weights): one row per distinct score and class, weighted by its
        count (classes absent at a score left out), for the library's row-based functions;
        every metric that sums over rows comes out as on the rows themselves."""
        scores, pos, neg = self.runs()
        y = np.concatenate((np.ones(scores.size, bool), np.zeros(scores.size, bool)))
        s = np.concatenate((scores, scores))
        w = np.concatenate((pos, neg)).astype(np.float64)
        keep = w > 0
        return y[keep], s[keep], w[keep]

    def finite_scores(self) -> np.ndarray:
        """The distinct finite scores, descending."""
        t = np.asarray(self.counts.thresholds, dtype=np.float64)
        return t[np.isfinite(t)]

    def scale(self, name: str = "") -> Scale:
        """The scale the scores are read on (probability, percent, margin, rank): a function of
        the distinct scores and the model's name, so the state is enough."""
        return infer_scale(self.finite_scores(), name)

    def default_threshold(self, kind: str) -> float:
        """:func:`ui.tables.roles.default_threshold` from the state: each distinct score stands for
        its
        rows, weighted by their count, which gives the same threshold (it is a distinct score
        where the cumulative weight first reaches the positives')."""
        return default_threshold(kind, *self.weighted_rows())

    def partial_auc(self, max_fpr: float) -> float:
        """The McClish-standardised partial AUC over FPR in [0, ``max_fpr``], as
        :func:`metrics.roc_auc_score` gives it with ``max_fpr``."""
        if max_fpr == 1:
            return self.auc
        if not (self.counts.n_pos > 0 and self.counts.n_neg > 0):
            return float("nan")
        fpr, tpr, _ = self.counts.roc(drop_intermediate=True)
        return partial_auc_from_roc(fpr, tpr, max_fpr)


def from_rows(y: np.ndarray, scores: np.ndarray, weight: np.ndarray | None) -> ScoreState:
    """The state of binary labels ``y`` and ``scores``: one sort for the counts; the areas as
    :func:`metrics.roc_auc_score` and :func:`metrics.average_precision_score` give them."""
    return ScoreState(
        counts=metrics.threshold_counts(y, scores, sample_weight=weight),
        auc=metrics.roc_auc_score(y, scores, sample_weight=weight),
        ap=metrics.average_precision_score(y, scores, sample_weight=weight),
        weighted=weight is not None,
    )


def from_summary(model, weighted: bool = False) -> ScoreState:
    """The state an engine produced for one model (a :class:`metrics.sql.ModelSummary`): its
    per-score table (or, above the cap, its table of score ranges) and its exact areas;
    ``weighted`` when the engine summed a weight column."""
    return ScoreState(
        counts=model.display_table().counts(),
        auc=float(model.auc),
        ap=float(model.average_precision),
        exact=bool(model.exact),
        bin_error=float(model.bin_error),
        weighted=weighted,
    )


# A weighted AUC has no row counts to judge chance by: below this it is far from chance anyway.
WEIGHTED_MARGIN = 0.1


def below_chance(auc: float, n_pos: float, n_neg: float, *, weighted: bool = False) -> bool:
    """Whether an AUC is below 0.5 by more than chance explains: by more than three standard
    deviations of the AUC of scores that ignore the label (Mann-Whitney's null variance,
    ``(n_pos + n_neg + 1) / (12 n_pos n_neg)``, without ties; ties only shrink it). With
    sample weights (no row counts), by more than :data:`WEIGHTED_MARGIN`."""
    if not (np.isfinite(auc) and n_pos > 0 and n_neg > 0) or auc >= 0.5:
        return False
    if weighted:
        return auc < 0.5 - WEIGHTED_MARGIN
    null_sd = float(np.sqrt((n_pos + n_neg + 1) / (12.0 * n_pos * n_neg)))
    return (0.5 - auc) > 3 * null_sd


def inverted_hint(
    model: str, auc: float, positive: str, negative: str, fix: str | None = None
) -> str:
    """The sentence for a model whose scores rank the negative class higher (see
    :func:`below_chance`): it names the classes and, given ``fix`` (how this source turns the
    label around), says what to do."""
    head = (
        f"{model} ranks {negative} above {positive}: AUC {auc:.4f}, further below 0.5 than "
        "chance explains."
    )
    if fix is None:
        return head
    return (
        f"{head} Its scores may rate the other class: if higher scores mean {negative}, {fix}; "
        f"if lower scores mean {positive} (a distance, a rank), negate the column in the file."
    )
