"""What an engine returns: exact sufficient statistics per model, and the metrics they give.

Nothing here imports an engine: a :class:`Summary` can be written by the CLI (``--out``) on one
machine and opened by the dashboard on another.
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import dataclass, field, fields
from fractions import Fraction
from pathlib import Path

import numpy as np

from metrics.average_precision import AP_METHODS, ap_breakdown
from metrics.clustered import clustered_result, obuchowski_variance
from metrics.compare import auc_interval_from_variance, delong_from_variances
from metrics.curves import ThresholdCounts
from metrics.groups import GroupAUC
from metrics.sql._files import check_tables
from metrics.sql._users import PAIRED, StateError, UserScoreTable, UserTable, _starts

FORMAT = "metrics-lens-summary/1"
STATE_FORMAT = "metrics-lens-summary/2"  # a state that merges: metrics.sql._state
_USER_COLUMNS = ("group", "rows", "pos", "neg", "twice_u")
_PAIR_COLUMNS = ("group", "scores", "rows", "pos", "neg")
_GROUP_COLUMNS = ("group", "rows", "positives", "negatives", "auc", "reason")


@dataclass
class ScoreTable:
    """Per distinct score, descending: positives and negatives (integers, or weight sums)."""

    scores: np.ndarray
    pos: np.ndarray
    neg: np.ndarray

    @classmethod
    def from_unsorted(cls, scores, pos, neg) -> ScoreTable:
        order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
        return cls(
            np.asarray(scores, dtype=np.float64)[order],
            np.asarray(pos)[order],
            np.asarray(neg)[order],
        )

    def counts(self) -> ThresholdCounts:
        """Confusion counts at every threshold, as :func:`metrics.threshold_counts` gives them."""
        return ThresholdCounts.from_runs(self.scores, self.pos, self.neg)

    def weighted_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(label, score, weight) rows that reproduce every metric of the table with the numpy
        library: one positive and one negative row per score, weighted by its count."""
        y = np.concatenate((np.ones(self.scores.size, bool), np.zeros(self.scores.size, bool)))
        s = np.concatenate((self.scores, self.scores))
        w = np.concatenate((self.pos, self.neg)).astype(np.float64)
        keep = w > 0
        return y[keep], s[keep], w[keep]


@dataclass
class ModelSummary:
    """One score column's exact statistics and metrics.

    ``twice_u``, ``n_pos`` and ``n_neg`` are exact integers (unweighted); ``auc`` is
    ``twice_u / (2 n_pos n_neg)`` rounded once. ``table`` is the exact per-score table when the
    distinct scores were at most the cap; otherwise ``binned`` is a table of score ranges (its
    ``scores`` the lowest score of each range) and ``bin_error`` the largest share of either
    class's weight in one range: no rate read off the binned table is off by more.

    With a group column, ``gauc`` is the impressions-weighted GAUC, ``gauc_by`` holds it in the
    three weightings of :func:`metrics.group_auc_score` ("impressions", "positives", "uniform"),
    ``groups_skipped_by`` counts the skipped groups by reason ("only positives", "only
    negatives", "zero weight"), and ``groups`` is the per-group table
    (:class:`metrics.groups.GroupAUC`) when there were at most ``cap`` groups.
    """

    score: str
    n_pos: int | float
    n_neg: int | float
    twice_u: int | float
    auc: float
    average_precision: float
    distinct_scores: int
    table: ScoreTable | None = None
    binned: ScoreTable | None = None
    bin_error: float = 0.0
    gauc: float | None = None
    groups_used: int | None = None
    groups_skipped: int | None = None
    gauc_by: dict | None = None
    groups_skipped_by: dict | None = None
    groups: GroupAUC | None = None
    users: UserTable | None = None  # a state's per-user sums (see metrics.sql._state)
    user_scores: UserScoreTable | None = None  # a state's per-(user, score) counts

    def auc_interval(self, alpha: float = 0.05):
        """DeLong's interval of the AUC (:class:`metrics.AUCInterval`), from the exact per-score
        table: a merged state gives it as one pass does."""
        return auc_interval(self, alpha)

    def clustered_interval(self, alpha: float = 0.05, *, small_sample: bool = True):
        """Obuchowski's clustered interval of the AUC (:class:`metrics.ClusteredAUC`), from
        the per-score and per-(user, score) tables of a state, equal to
        ``metrics.clustered_auc_test(y, s, groups=users, small_sample=...)`` on the rows."""
        return cluster_sums(self).clustered(self.score, alpha=alpha, small_sample=small_sample)

    def ap(self, method: str = "step") -> float:
        """Average precision by any of the five methods (the exact table is needed but for
        ``"step"``, which the engine sums itself)."""
        if method == "step":
            return self.average_precision
        if self.table is None:
            raise ValueError(
                f"AP by {method!r} needs every distinct score, and this summary has "
                f"{self.distinct_scores:,} of them, more than its cap: rerun with a larger "
                "--cap (memory grows by 24 bytes per distinct score)."
            )
        if method not in AP_METHODS:
            raise ValueError(f"method must be one of {AP_METHODS}, got {method!r}.")
        return float(
            ap_breakdown(np.cumsum(self.table.pos), np.cumsum(self.table.neg), method).value
        )

    def display_table(self) -> ScoreTable:
        """The exact table, or the binned one above the cap."""
        return self.table if self.table is not None else self.binned

    @property
    def exact(self) -> bool:
        """True when :meth:`display_table` is the exact per-score table (not score ranges)."""
        return self.table is not None

    def weighted_frame(self):
        """A pandas frame of weighted rows ``(label, score, weight)``: one positive and one
        negative row per score, weighted by its count, so that ``metrics.roc_auc_score(
        f.label, f.score, sample_weight=f.weight)`` equals :attr:`auc` (and so on for every
        metric of the numpy library that takes sample weights). Above the cap the rows are the
        binned table's and only the threshold views are right (within :attr:`bin_error`)."""
        import pandas as pd

        y, s, w = self.display_table().weighted_rows()
        return pd.DataFrame({"label": y.astype(np.int8), "score": s, "weight": w})

    def confusion_at(self, threshold: float):
        """The confusion matrix (:class:`metrics.Confusion`) for ``score >= threshold``.

        Exact with the per-score table; above the cap, exact at the binned table's scores (the
        lowest score of each range) and within :attr:`bin_error` of the true rates elsewhere."""
        return self.display_table().counts().at(threshold)

    def roc_curve(self, max_points: int = 2000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(fpr, tpr, thresholds)`` thinned to about ``max_points`` points for display (the
        areas use every point)."""
        fpr, tpr, thr = self.display_table().counts().roc()
        keep = _thin(fpr + tpr, max_points)
        return fpr[keep], tpr[keep], thr[keep]

    def precision_recall_curve(
        self, max_points: int = 2000
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(precision, recall, thresholds)`` thinned to about ``max_points`` points for
        display, in the order of :func:`metrics.precision_recall_curve` (increasing thresholds,
        ``thresholds`` one shorter: the last point, recall 0, has none)."""
        precision, recall, thr = self.display_table().counts().precision_recall()
        along = (1.0 - recall) + np.linspace(0.0, 1.0, recall.size)  # recall decreases
        keep = _thin(along, max_points)
        return precision[keep], recall[keep], thr[keep[keep < thr.size]]


@dataclass
class Summary:
    """What the engine read and computed for every score column."""

    source: str
    engine: str
    label: str
    positive: str
    rows: int
    dropped: int
    models: dict[str, ModelSummary]
    group: str | None = None
    weight: str | None = None
    cap: int = 0
    extra: dict = field(default_factory=dict)
    state: bool = False  # saved as a state that merges (format 2: metrics.sql._state)

    def delong_test(self, a: str, b: str, alpha: float = 0.05):
        """Refused with the reason: DeLong's (or Obuchowski's) test of two models cannot be
        computed from per-model counts; :func:`metrics.sql.delong` computes it from the rows."""
        raise StateError(f"{a} against {b}: {PAIRED}")

    def to_json(self) -> dict:
        """``{"rows", "dropped", "models": {column: {"auc", "average_precision", "gauc"?}}}``."""
        models = {}
        for name, m in self.models.items():
            entry = {"auc": m.auc, "average_precision": m.average_precision}
            if m.gauc is not None:
                entry["gauc"] = m.gauc
            models[name] = entry
        return {"rows": self.rows, "dropped": self.dropped, "models": models}

    def save(self, path: str | Path) -> Path:
        """Write a compact ``.npz``: the per-score tables and a JSON header; a state
        (``state=True``) in format 2, which merges (:func:`metrics.sql.merge`)."""
        if self.state:
            return save_state(self, path)
        path = Path(path)
        arrays = {}
        header = {f.name: getattr(self, f.name) for f in fields(self)
                  if f.name not in ("models", "state")}  # fmt: skip
        header["format"] = FORMAT
        header["models"] = {}
        for i, (name, m) in enumerate(self.models.items()):
            meta = {k: getattr(m, k) for k in _META if k not in _TABLES}
            header["models"][name] = meta
            for kind in ("table", "binned"):
                t = getattr(m, kind)
                if t is not None:
                    arrays[f"{i}_{kind}_scores"] = t.scores
                    arrays[f"{i}_{kind}_pos"] = t.pos
                    arrays[f"{i}_{kind}_neg"] = t.neg
            if m.groups is not None:
                for column in _GROUP_COLUMNS:
                    arrays[f"{i}_groups_{column}"] = getattr(m.groups, column)
        arrays["header"] = np.frombuffer(json.dumps(header, default=_plain).encode(), np.uint8)
        write_npz(path, arrays)
        return path


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``arrays`` as a compressed ``.npz`` at ``path``: built in memory, then written in one
    go, so a disk that fails mid-write (full, /dev/full) raises its OSError once; numpy 2.0's
    savez onto the file itself also left a half-closed zip that printed a traceback later."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    with path.open("wb") as f:
        f.write(buffer.getbuffer())


_META = [f.name for f in fields(ModelSummary)]
_TABLES = ("table", "binned", "groups", "users", "user_scores")


def _thin(along: np.ndarray, max_points: int) -> np.ndarray:
    """Indices of about ``max_points`` points spread along a curve: ``along`` is a non-decreasing
    position on it (0 to 2); the first and last points are always kept."""
    n = along.size
    if n <= max_points:
        return np.arange(n)
    cell = np.floor(along / along[-1] * (max_points - 2)) if along[-1] > 0 else np.zeros(n)
    keep = np.flatnonzero(np.concatenate(([True], cell[1:] != cell[:-1])))
    return np.union1d(keep, [0, n - 1])


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot write {type(value).__name__} in a summary")


MAX_SUMMARY_BYTES = 1 << 30  # uncompressed; 2e6 distinct scores cost 48 MB a model


_NUMBER = (int, float)


def _is_number(v) -> bool:
    return isinstance(v, _NUMBER) and not isinstance(v, bool)


def _is_count(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


# What Summary.save writes: header key -> check of its value.
_HEADER = {
    "format": lambda v: v == FORMAT,
    "source": lambda v: isinstance(v, str),
    "engine": lambda v: v in ("duckdb", "spark"),
    "label": lambda v: isinstance(v, str),
    "positive": lambda v: isinstance(v, str),
    "rows": _is_count,
    "dropped": _is_count,
    "group": lambda v: v is None or isinstance(v, str),
    "weight": lambda v: v is None or isinstance(v, str),
    "cap": _is_count,
    "extra": lambda v: isinstance(v, dict),
    "models": lambda v: isinstance(v, dict) and len(v) > 0,
}
_MODEL = {
    "score": lambda v: isinstance(v, str),
    "n_pos": lambda v: _is_number(v) and v >= 0,
    "n_neg": lambda v: _is_number(v) and v >= 0,
    "twice_u": _is_number,
    "auc": _is_number,
    "average_precision": _is_number,
    "distinct_scores": _is_count,
    "bin_error": _is_number,
    "gauc": lambda v: v is None or _is_number(v),
    "groups_used": lambda v: v is None or _is_count(v),
    "groups_skipped": lambda v: v is None or _is_count(v),
    "gauc_by": lambda v: (
        v is None or (isinstance(v, dict) and all(x is None or _is_number(x) for x in v.values()))
    ),
    "groups_skipped_by": lambda v: (
        v is None or (isinstance(v, dict) and all(_is_count(x) for x in v.values()))
    ),
}
_TABLE_KINDS = {"scores": "f", "pos": "iuf", "neg": "iuf"}
_GROUP_KINDS = {"group": "iufUSb", "rows": "iu", "positives": "iuf", "negatives": "iuf",
                "auc": "f", "reason": "U"}  # fmt: skip
_ARRAY = re.compile(r"^(\d+)_(table|binned|groups)_(\w+)$")


def _check_summary(name: str, header, arrays: dict[str, np.ndarray]) -> None:
    """Raise ValueError (a sentence) unless ``header`` and ``arrays`` are as save writes them."""

    def refuse(what: str) -> None:
        raise ValueError(f"{name} is not a summary written by metrics.sql --out: {what}.")

    if not isinstance(header, dict):
        refuse("its header is not a JSON object")
    if header.get("format") != FORMAT:
        refuse(f"its format is {str(header.get('format'))[:40]!r}, not {FORMAT!r}")
    keys = set(header)
    if keys != set(_HEADER):
        extra, missing = sorted(keys - set(_HEADER)), sorted(set(_HEADER) - keys)
        refuse(
            "its header has "
            + "; ".join(
                p
                for p in (
                    f"unknown keys {', '.join(repr(k[:40]) for k in extra[:5])}" if extra else "",
                    f"no {', '.join(repr(k) for k in missing)}" if missing else "",
                )
                if p
            )
        )
    for key, ok in _HEADER.items():
        if not ok(header[key]):
            refuse(f"{key!r} is {str(header[key])[:40]!r}, which is not what it should hold")
    models = header["models"]
    for i, (model, meta) in enumerate(models.items()):
        if not isinstance(meta, dict) or set(meta) != set(_MODEL):
            refuse(f"model {model[:40]!r} does not have exactly the fields a summary writes")
        for key, ok in _MODEL.items():
            if not ok(meta[key]):
                refuse(f"model {model[:40]!r}: {key!r} is {str(meta[key])[:40]!r}")
        kinds = []
        for kind, columns in (("table", _TABLE_KINDS), ("binned", _TABLE_KINDS),
                              ("groups", _GROUP_KINDS)):  # fmt: skip
            present = [c for c in columns if f"{i}_{kind}_{c}" in arrays]
            if not present:
                continue
            if len(present) != len(columns):
                refuse(f"model {model[:40]!r}'s {kind} lacks some of its arrays")
            length = None
            for c, allowed in columns.items():
                a = arrays[f"{i}_{kind}_{c}"]
                if a.ndim != 1 or a.dtype.kind not in allowed:
                    refuse(f"array {i}_{kind}_{c} is {a.dtype} of shape {a.shape}")
                if length is not None and a.size != length:
                    refuse(f"model {model[:40]!r}'s {kind} arrays differ in length")
                length = a.size
            kinds.append(kind)
        if "table" not in kinds and "binned" not in kinds:
            refuse(f"model {model[:40]!r} has no per-score table")
    for key in arrays:
        m = _ARRAY.match(key)
        known = (
            m
            and int(m.group(1)) < len(models)
            and (m.group(3) in (_GROUP_KINDS if m.group(2) == "groups" else _TABLE_KINDS))
        )
        if not known:
            refuse(f"it holds an unknown array {key[:40]!r}")
    check_tables(refuse, header, arrays)


def nan_to_none(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


@dataclass(frozen=True)
class ClusterSums:
    """Per-cluster placement sums reduced to their products, from one pass of the engine
    (:func:`metrics.sql.delong` with ``group``): ``products[(u, v)]`` is the sum over clusters
    of ``x_u * x_v`` for the vectors ``m``, ``n`` (the cluster's positives and negatives) and
    ``p<k>``, ``q<k>`` (model ``k``'s twice-placements summed over the cluster's positives,
    negatives), exact integers, ``u`` before ``v`` in that order."""

    clusters: int
    with_pos: int
    with_neg: int
    products: dict[tuple[str, str], int]

    def __call__(self, u: str, v: str) -> int:
        return self.products[(u, v)] if (u, v) in self.products else self.products[(v, u)]


class _ClusterComponents:
    """What :func:`metrics.clustered.clustered_result` reads, from the engine's exact sums:
    the deviations' sums of squares are expanded in the products of the per-cluster sums and
    evaluated in fractions, so nothing cancels in floating point."""

    def __init__(self, summary: DeLongSummary, models: list[int]) -> None:
        self.c = summary.clusters
        self.n_groups = self.c.clusters
        self.big_m, self.big_n = summary.n_pos, summary.n_neg
        self.models = models
        self.theta = {k: Fraction(summary.sums[1][k], 2 * self.big_m * self.big_n) for k in models}
        self.aucs = [summary.sums[1][k] / (2 * self.big_m * self.big_n) for k in models]

    def _sum(self, coef: dict[int, int], x: str, y: str, sx: int, sy: int, cx: str, cy: str):
        """Σ_i (Σ_k c_k (x_k,i / sx - θ_k cx_i)) (Σ_l c_l (y_l,i / sy - θ_l cy_i))."""
        g, t = self.c, self.theta
        total = Fraction(0)
        for k, ck in coef.items():
            for l, cl in coef.items():  # noqa: E741
                total += (
                    ck
                    * cl
                    * (
                        Fraction(g(f"{x}{k}", f"{y}{l}"), sx * sy)
                        - t[l] * Fraction(g(f"{x}{k}", cy), sx)
                        - t[k] * Fraction(g(cx, f"{y}{l}"), sy)
                        + t[k] * t[l] * g(cx, cy)
                    )
                )
        return float(total)

    def variance(self, i: int, j: int | None = None) -> float:
        coef = {self.models[i]: 1} if j is None else {self.models[i]: 1, self.models[j]: -1}
        two_n, two_m = 2 * self.big_n, 2 * self.big_m
        return obuchowski_variance(
            self._sum(coef, "p", "p", two_n, two_n, "m", "m"),
            self._sum(coef, "q", "q", two_m, two_m, "n", "n"),
            self._sum(coef, "p", "q", two_n, two_m, "m", "n"),
            n_pos=self.big_m, n_neg=self.big_n, groups=self.c.clusters,
            groups_pos=self.c.with_pos, groups_neg=self.c.with_neg,
        )  # fmt: skip

    def kish(self) -> tuple[float, float]:
        g = self.c
        return self.big_m**2 / g("m", "m"), self.big_n**2 / g("n", "n")


@dataclass
class DeLongSummary:
    """DeLong's placement sums for every score column, from one pass of the engine: exact
    integers, so each AUC, its variance and every pairwise covariance are as the numpy library
    computes them from the rows (:func:`metrics.roc_auc_ci`, :func:`metrics.delong_test`).

    ``sums[c][i]`` is the sum of model ``i``'s twice-placements over the rows of class ``c``
    (1 positive, 0 negative) and ``products[c][(i, j)]`` the sum of the products of models
    ``i`` and ``j``'s, ``i <= j``.
    """

    models: list[str]
    n_pos: int
    n_neg: int
    sums: dict[int, list[int]]
    products: dict[int, dict[tuple[int, int], int]]
    clusters: ClusterSums | None = None  # with a group column: Obuchowski's variance

    @classmethod
    def from_table(cls, model: str, table: ScoreTable) -> DeLongSummary:
        """One model's DeLong sums from its exact per-score table (integer counts): the
        placements depend on the score only, so no pass over the rows is needed. (Pairs of
        models do need one: see :func:`metrics.sql.delong`.)"""
        pos = np.asarray(table.pos)
        neg = np.asarray(table.neg)
        if pos.dtype.kind not in "iu" or neg.dtype.kind not in "iu":
            raise ValueError("DeLong's variance needs integer counts: this table is weighted.")
        n_pos, n_neg = int(pos.sum()), int(neg.sum())
        # Exact integers: int64 while the largest sum fits, Python integers past it.
        big = max(n_pos, n_neg) * (2 * (n_pos + n_neg)) ** 2 >= 2**62
        pos, neg = (pos.astype(object), neg.astype(object)) if big else (pos, neg)
        t10 = 2 * (n_neg - np.cumsum(neg)) + neg
        t01 = 2 * np.cumsum(pos) - pos
        sums = {1: [int((pos * t10).sum())], 0: [int((neg * t01).sum())]}
        products = {1: {(0, 0): int((pos * t10 * t10).sum())},
                    0: {(0, 0): int((neg * t01 * t01).sum())}}  # fmt: skip
        return cls([model], n_pos, n_neg, sums, products)

    def _index(self, model: str) -> int:
        if model not in self.models:
            raise KeyError(f"no score column {model!r}; the summary has {self.models}.")
        return self.models.index(model)

    def auc(self, model: str) -> float:
        # The positives' twice-placements sum to 2U; one integer division, rounded once.
        return self.sums[1][self._index(model)] / (2 * self.n_pos * self.n_neg)

    def _class_variance(self, c: int, i: int, j: int | None) -> int | float:
        n = self.n_pos if c == 1 else self.n_neg
        if n < 2:
            return math.nan
        p = self.products[c]
        if j is None:
            total, squares = self.sums[c][i], p[(i, i)]
        else:
            total = self.sums[c][i] - self.sums[c][j]
            squares = p[(i, i)] - 2 * p[(min(i, j), max(i, j))] + p[(j, j)]
        return (n * squares - total * total) / (n * (n - 1))  # exact integers, divided once

    def variance(self, a: str, b: str | None = None) -> float:
        """DeLong variance of AUC ``a``, or of AUC ``a`` minus AUC ``b``."""
        i = self._index(a)
        j = None if b is None else self._index(b)
        s10 = self._class_variance(1, i, j) / (4.0 * self.n_neg**2)
        s01 = self._class_variance(0, i, j) / (4.0 * self.n_pos**2)
        return s10 / self.n_pos + s01 / self.n_neg

    def interval(self, model: str, alpha: float = 0.05):
        """The AUC with DeLong's standard error and interval (:class:`metrics.AUCInterval`)."""
        return auc_interval_from_variance(
            self.auc(model), self.variance(model), self.n_pos, self.n_neg, alpha=alpha
        )

    def clustered(
        self, a: str, b: str | None = None, *, alpha: float = 0.05, small_sample: bool = False
    ):
        """Obuchowski's clustered-data interval of AUC ``a`` and, with ``b``, the test of
        ``a`` against ``b`` (:class:`metrics.ClusteredAUC`), equal to
        :func:`metrics.clustered_auc_test` on the rows; needs the sums of a pass with ``group``.
        """
        if self.clusters is None:
            raise ValueError(
                "no per-cluster sums: run metrics.sql.delong with group=<the user column>."
            )
        models = [self._index(a)] + ([] if b is None else [self._index(b)])
        counts = {
            "alpha": alpha,
            "n_pos": self.n_pos,
            "n_neg": self.n_neg,
            "n_groups": self.clusters.clusters,
            "n_groups_pos": self.clusters.with_pos,
            "n_groups_neg": self.clusters.with_neg,
        }
        return clustered_result(
            _ClusterComponents(self, models), counts, b is not None, alpha, small_sample
        )

    def test(self, a: str, b: str, alpha: float = 0.05):
        """DeLong's test of AUC ``a`` against AUC ``b`` (:class:`metrics.DeLongResult`)."""
        return delong_from_variances(
            self.auc(a), self.auc(b), self.variance(a), self.variance(b), self.variance(a, b),
            self.n_pos, self.n_neg, alpha=alpha,
        )  # fmt: skip


# --- a state's intervals and its file (metrics.sql._state merges states) ----------------------


def _weighted(m: ModelSummary) -> bool:
    return m.table is not None and np.asarray(m.table.pos).dtype.kind == "f"


def auc_interval(m: ModelSummary, alpha: float = 0.05):
    """DeLong's interval of ``m``'s AUC from its per-score table (rows independent)."""
    if m.table is None:
        raise StateError(
            f"{m.score}: DeLong's interval needs the exact per-score table, and this state has "
            f"{m.distinct_scores:,} distinct scores, more than its cap: write it again with a "
            "larger --cap."
        )
    if _weighted(m):
        raise StateError(f"{m.score}: DeLong's interval is unweighted; this state is weighted.")
    return DeLongSummary.from_table(m.score, m.table).interval(m.score, alpha=alpha)


def cluster_sums(m: ModelSummary) -> DeLongSummary:
    """DeLong's sums of ``m`` with Obuchowski's per-user sums, from the per-score and the
    per-(user, score) tables: a positive's placement depends on its score only, so each user's
    sums of placements are its counts per score times the placements of the whole table."""
    if m.user_scores is None:
        have = "a per-user table only" if m.users is not None else "no per-user table"
        raise StateError(
            f"{m.score}: Obuchowski's clustered interval needs each user's counts per score "
            f"(placements change with every row added), and this state has {have}: write the "
            "states again with a --cap above the number of (user, score) pairs."
        )
    auc_interval(m)  # the same refusals
    d = DeLongSummary.from_table(m.score, m.table)
    t, us = m.table, m.user_scores
    n_neg = d.n_neg
    t10 = 2 * (n_neg - np.cumsum(t.neg)) + t.neg  # twice a positive's placement, per score
    t01 = 2 * np.cumsum(t.pos) - t.pos
    at = np.searchsorted(-t.scores, -us.scores)
    if not np.array_equal(t.scores[at], us.scores):
        raise StateError(f"{m.score}: the per-user scores are not in the per-score table.")
    starts = _starts(us.group)
    vectors = {
        "m": np.add.reduceat(us.pos, starts),
        "n": np.add.reduceat(us.neg, starts),
        "p0": np.add.reduceat(us.pos * t10[at], starts),
        "q0": np.add.reduceat(us.neg * t01[at], starts),
    }
    exact = {k: v.astype(object) for k, v in vectors.items()}  # products past int64
    names = list(vectors)
    products = {
        (u, v): int(np.dot(exact[u], exact[v])) for i, u in enumerate(names) for v in names[i:]
    }
    d.clusters = ClusterSums(
        clusters=int(starts.size),
        with_pos=int(np.count_nonzero(vectors["m"])),
        with_neg=int(np.count_nonzero(vectors["n"])),
        products=products,
    )
    return d


def save_state(s: Summary, path: str | Path) -> Path:
    """Write ``s`` as a state file (see the module's description of what it holds)."""
    path = Path(path)
    header = {f.name: getattr(s, f.name) for f in fields(s) if f.name not in ("models", "state")}
    header["format"] = STATE_FORMAT
    header["models"] = {}
    arrays = {}
    for i, (name, m) in enumerate(s.models.items()):
        header["models"][name] = {k: getattr(m, k) for k in _MODEL_KEYS}
        for kind in ("table", "binned"):
            t = getattr(m, kind)
            if t is not None:
                for c in ("scores", "pos", "neg"):
                    arrays[f"{i}_{kind}_{c}"] = getattr(t, c)
        if m.user_scores is not None:
            for c in _PAIR_COLUMNS:
                arrays[f"{i}_pairs_{c}"] = getattr(m.user_scores, c)
        elif m.users is not None:
            for c in _USER_COLUMNS:
                arrays[f"{i}_users_{c}"] = getattr(m.users, c)
    arrays["header"] = np.frombuffer(json.dumps(header, default=_plain_state).encode(), np.uint8)
    write_npz(path, arrays)
    return path


def _plain_state(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot write {type(value).__name__} in a state")


# The model fields a state's header keeps: those of a format-1 summary.
_MODEL_KEYS = (
    "score", "n_pos", "n_neg", "twice_u", "auc", "average_precision", "distinct_scores",
    "bin_error", "gauc", "groups_used", "groups_skipped", "gauc_by", "groups_skipped_by",
)  # fmt: skip
