"""A fast paired bootstrap: sort once per model, draw every resample as counts, never re-sort.

:func:`metrics.paired_bootstrap` calls a metric once per resample and model, and each call sorts
the scores again. Here each model's rows are sorted once; a resample is a vector of counts (how
often each row is drawn), and every quantity a resample needs is a prefix sum of those counts in
the fixed sorted order: the true positives above each distinct positive score, the negatives
above it and tied with it. From these come, for a block of resamples at once:

* ROC AUC (ties count one half) and scikit-learn's step Average Precision;
* precision, recall, F1, FPR and accuracy at any fixed thresholds (a score ``>=`` the threshold
  is predicted positive), so operating points and metric-vs-threshold curves get intervals;
* the threshold that maximises F1 and Youden's J in each resample, to show how stable a chosen
  threshold is;
* ROC curves on an FPR grid (vertical averaging) and precision on a recall grid, for bands.

Unweighted counts of at most 31 (every Poisson and multinomial block in practice) take the byte
path (:class:`_BytePrefix`): the block's counts are transposed once (a row per data row, a
column per resample), each model gathers its sorted rows as whole rows of bytes, and the prefix
sums down each group of 8 rows fit a byte (8 x 31 = 248), so they are whole-row uint8 additions;
a uint16 level over groups of 64 and an int32 running total finish them, exact. The sums come
out resamples across, the order in which the AP terms are added. AUC and AP then take one pass
over the positive runs in chunks of about ``_AREA_CELLS`` (run, resample) cells, in float64
buffers that stay in cache (:func:`_area_sums`): each chunk's prefix rows, its AP terms summed
behind the running total (so each resample's terms are still added one after another) and its
share of AUC's exact integer sum; the whole (R, B) arrays of the other kernels are made only
when one reads them. Sample weights, or a count
above 31, take the float path (:class:`_FloatPrefix`): the counts, reshaped into runs of ``_K``
columns, times an upper-triangular matrix of ones, plus the running total of the runs, exact in
float32 while a resample holds fewer than 2**24 rows (float64 beyond, or with weights).

Each statistic is a kernel registered by name in ``_KERNELS`` (``roc_auc``,
``average_precision``, ``threshold_rates``, ``partial_auc``, ``ks``, ``best_thresholds``,
``threshold_curves``, ``roc_band``, ``pr_band``): a function of one model's block of
resamples; the options of :func:`fast_paired_bootstrap` choose which run, and each names the
intervals it fills.

Draws
-----
``counts="poisson"`` (the default, as TFMA does): every row is drawn a Poisson(1) number of
times, independently, so a resample's size and class balance vary around the original ones.
The counts come from 16 random bits per row through an exact inverse-CDF table (applied as
three comparisons of the high byte, with the table itself for the ~3% of rows whose high byte
leaves the count open); the few bit patterns that straddle two counts (about 2 in 10,000) are
settled with a second uniform double, so the counts follow Poisson(1) to double precision.

``counts="multinomial"``: ``n`` rows drawn with replacement, within each class when
``stratified`` (so each class keeps its row count): the very draws of
:func:`metrics.paired_bootstrap` with the same seed. That path is about as slow as drawing the
row indices, roughly three times the Poisson path.

For the same draws, AUC and AP here are bit-identical to :func:`metrics.paired_bootstrap` with
:func:`metrics.roc_auc_score` and :func:`metrics.average_precision_score` (unweighted rows): the
AUC numerator is an exact integer either way, and both paths add the AP terms one after another
in descending score. With sample weights the resample weights are counts times weights and the
two paths agree to rounding (about 1e-15).
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from statistics import NormalDist
from typing import Any

import numpy as np

from metrics._bounds import check_grids
from metrics._student_t import t_quantile
from metrics._validation import (
    UndefinedMetricWarning,
    as_real,
    check_binary_labels,
    check_sample_weight,
    check_scores,
)
from metrics.compare import (
    BootstrapInterval,
    BootstrapResult,
    _check_resampling,
    _Draws,
    _percentile_interval,
    _placements,
)

__all__ = [
    "FastBootstrap",
    "SmallGroups",
    "ap_jackknife",
    "auc_jackknife",
    "bca_interval",
    "cluster_bootstrap",
    "fast_paired_bootstrap",
    "small_groups_correction",
]

THRESHOLD_METRICS = ("precision", "recall", "f1", "fpr", "accuracy")
AREA_METRICS = ("roc_auc", "average_precision")
_K = 32  # columns per run of the blocked prefix sum
_BLOCK_CELLS = 1 << 23  # the most counts per block of resamples (8 MB of uint8, 32 MB of float32)
_MIN_BLOCK = 32  # resamples: narrower blocks gather the counts slowly (1e6 rows: 1.4x at 4)
_EXACT_FLOAT32 = 1 << 24
_AREA_CELLS = 1 << 15  # runs x resamples per chunk of the fused AUC/AP pass (256 KB float64)


# --- one model, sorted once ---------------------------------------------------------------------


class _SortedModel:
    """Where every quantity of a resample sits in the model's fixed sorted order.

    Positives and negatives are each sorted by descending score. ``ends`` are the exclusive
    prefix lengths that close each run of tied positive scores (``run_scores``, descending);
    ``ge`` and ``gt`` are how many negatives score at least / strictly above each run.
    """

    def __init__(self, y: np.ndarray, s: np.ndarray) -> None:
        # One scratch dict per class: the padded counts a block leaves in a buffer are read
        # after the other class's pass, so the two passes must never share one (they would,
        # keyed by shape alone, whenever positives and negatives are equally many).
        self.pos_buffers: dict = {}
        self.neg_buffers: dict = {}
        self.scratch: dict = {}  # work arrays of the scores, reused from block to block
        self.n = y.size
        pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
        self.pos_order = pos[np.argsort(-s[pos], kind="stable")]
        self.neg_order = neg[np.argsort(-s[neg], kind="stable")]
        ps, ns = s[self.pos_order], s[self.neg_order]
        last = np.ones(ps.size, dtype=bool)
        np.not_equal(ps[1:], ps[:-1], out=last[:-1])
        self.ends = np.flatnonzero(last) + 1
        self.run_scores = ps[self.ends - 1]
        self.neg_desc = -ns  # ascending, for searchsorted
        self.ge = np.searchsorted(self.neg_desc, -self.run_scores, side="right")
        self.gt = np.searchsorted(self.neg_desc, -self.run_scores, side="left")
        self.no_ties = bool(np.array_equal(self.ge, self.gt))  # no negative ties a positive
        self.pos_scores, self.neg_scores = ps, ns
        # The orders padded for _BytePrefix: at least one column past the end (E[m] is read)
        # up to a multiple of 8; the padding repeats a real index, never read as a prefix.
        self.pos_padded = _padded(self.pos_order)
        self.neg_padded = _padded(self.neg_order)

    def at_thresholds(self, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exclusive prefix lengths of positives and negatives scoring ``>= t``."""
        return (
            np.searchsorted(-self.pos_scores, -thresholds, side="right"),
            np.searchsorted(self.neg_desc, -thresholds, side="right"),
        )


_ONES = np.uint64(0x0101010101010101)
_BYTE_MAX_COUNT = 31  # eight counts of at most 31 sum to at most 248: a byte holds them
_LITTLE_ENDIAN = sys.byteorder == "little"


def _group_prefix(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Exclusive prefix sums down each group of 8 rows of ``x`` (rows a multiple of 8) into
    ``out``; returns each group's total, shape (rows / 8, B). Whole rows are added at once."""
    x3, e3 = x.reshape(-1, 8, x.shape[1]), out.reshape(-1, 8, x.shape[1])
    e3[:, 0] = 0
    for j in range(1, 8):
        np.add(e3[:, j - 1], x3[:, j - 1], out=e3[:, j])
    return e3[:, 7] + x3[:, 7]


class _BytePrefix:
    """Exact integer prefix sums of the counts in one class's sorted order, resamples across.

    ``counts_t`` holds the block's counts transposed, one row per data row and one column per
    resample (uint8, each at most ``_BYTE_MAX_COUNT``), so gathering the sorted rows copies
    whole rows of ``B`` bytes. Down each group of 8 sorted rows the exclusive prefix sums fit
    a byte (8 counts of at most 31 sum to at most 248) and are whole-row uint8 additions; the
    groups' totals take a second such level in uint16 (8 totals sum to at most 1,984) and a
    running total over every 64 rows (int32) completes it:
    ``E[k] = excl[k] + before[k // 8]``, the sum of the first ``k`` sorted rows' counts, for
    every resample at once. Results come out resamples across, shape (len(k), B), the order in
    which :func:`_average_precision` adds its terms; :meth:`at` gives them as (B, len(k)).
    """

    __slots__ = ("before", "counts", "excl")

    def __init__(self, counts_t: np.ndarray, order: np.ndarray, buffers: dict) -> None:
        # ``order`` is padded to a multiple of 64 beyond its last index (any row: padding
        # only ever adds to groups' ends and to totals after the last real row).
        m, b = order.size, counts_t.shape[1]
        key = ("bytes", b, m)
        if key not in buffers:
            buffers[key] = (
                np.empty((m, b), np.uint8),
                np.empty((m, b), np.uint8),
                np.empty((m // 8, b), np.uint16),
                np.empty((m // 8, b), np.uint16),
                np.zeros((m // 64, b), np.int32),
                np.empty((m // 8, b), np.int32),
            )
        x, excl, totals, excl2, top, before = buffers[key]
        np.take(counts_t, order, axis=0, out=x, mode="clip")  # indices are valid: no checks
        np.copyto(totals, _group_prefix(x, excl))
        totals2 = _group_prefix(totals, excl2)
        np.cumsum(totals2[:-1], axis=0, dtype=np.int32, out=top[1:])
        np.add(
            excl2.reshape(-1, 8, b), top[:, None, :], out=before.reshape(-1, 8, b), dtype=np.int32
        )
        self.counts, self.excl, self.before = x, excl, before

    def rows(self, k: np.ndarray) -> np.ndarray:
        """``E[k]`` for every resample, int32 of shape (len(k), B)."""
        out = np.take(self.before, k >> 3, axis=0)
        out += np.take(self.excl, k, axis=0)
        return out

    def at(self, k: np.ndarray) -> np.ndarray:
        """``E[k]`` for every resample, int32 of shape (B, len(k)) (a transposed view)."""
        return self.rows(k).T

    def run(self, stop: int) -> np.ndarray:
        """``E[1], ..., E[stop]`` as (B, stop), a transposed view of one broadcast sum."""
        b = self.before.shape[1]
        out = np.add(self.excl.reshape(-1, 8, b), self.before[:, None, :], dtype=np.int32).reshape(
            -1, b
        )
        return out[1 : stop + 1].T


class _FloatPrefix:
    """Blocked inclusive prefix sums of ``counts[:, order]`` (times weights) with a leading zero
    column, for sample weights and counts too large for :class:`_BytePrefix`.

    ``E[k]``, the sum of the first k ordered columns, is ``within[:, k] + before[:, k // _K]``:
    the counts, reshaped into runs of ``_K`` columns, times an upper-triangular matrix of ones,
    plus the running total of the runs. ``counts`` holds the padded ordered counts (B, m),
    valid until the next block. ``buffers`` keeps the zero-padded input between blocks of the
    same shape; it must belong to this ``order`` alone, since ``counts`` is read after other
    passes.
    """

    __slots__ = ("before", "counts", "within")

    def __init__(self, counts, order, weights, dtype, buffers: dict | None = None) -> None:
        b = counts.shape[0]
        m = -(-(order.size + 1) // _K) * _K
        key = (b, m, np.dtype(dtype).str, order.size)
        x = None if buffers is None else buffers.get(key)
        if x is None:
            x = np.zeros((b, m), dtype=dtype)
            if buffers is not None:
                buffers[key] = x
        taken = np.take(counts, order, axis=1)
        if weights is None:
            x[:, 1 : order.size + 1] = taken
        else:
            np.multiply(taken, weights[order], out=x[:, 1 : order.size + 1])
        within = x.reshape(-1, _K) @ _upper(dtype)
        totals = within[:, -1].reshape(b, -1)
        before = np.cumsum(totals, axis=1)  # exact: float32 only while totals stay below 2**24
        before -= totals
        self.counts, self.within, self.before = x, within.reshape(b, m), before

    def at(self, k: np.ndarray) -> np.ndarray:
        """``E[k]`` for every resample, shape (B, len(k)), in the prefix's (exact) float type."""
        if k.size > 1 and k[-1] - k[0] == k.size - 1 and (np.diff(k) == 1).all():
            part = self.within[:, k[0] : k[-1] + 1]  # a run of columns: a slice, not a gather
        else:
            part = np.take(self.within, k, axis=1)
        return part + np.take(self.before, k // _K, axis=1)

    def run(self, stop: int) -> np.ndarray:
        return self.at(np.arange(1, stop + 1))


def _padded(order: np.ndarray) -> np.ndarray:
    size = -(-(order.size + 1) // 64) * 64
    return np.concatenate((order, np.full(size - order.size, order[-1] if order.size else 0)))


def _prefix(counts, order, weights, dtype, buffers: dict | None = None) -> _FloatPrefix:
    """The float prefix sums of ``counts[:, order]`` (see :class:`_FloatPrefix`)."""
    return _FloatPrefix(counts, order, weights, dtype, buffers)


_UPPER: dict = {}


def _upper(dtype) -> np.ndarray:
    key = np.dtype(dtype).str
    if key not in _UPPER:
        _UPPER[key] = np.triu(np.ones((_K, _K), dtype=dtype))
    return _UPPER[key]


def _at(prefix, k: np.ndarray) -> np.ndarray:
    """``E[k]`` for every resample, shape (B, len(k)), exact (int32 or float)."""
    return prefix.at(k)


def _byte_counts(counts: np.ndarray, weights: np.ndarray | None, n: int) -> np.ndarray | None:
    """``counts`` as uint8 when the exact byte path applies to them, else None: unweighted,
    every count at most ``_BYTE_MAX_COUNT`` and int32 totals that cannot overflow."""
    if weights is not None or not _LITTLE_ENDIAN or _BYTE_MAX_COUNT * (n + 8) >= 2**31:
        return None
    if counts.size and int(counts.max()) > _BYTE_MAX_COUNT:
        return None
    return counts if counts.dtype == np.uint8 else counts.astype(np.uint8)


def _lazy(method: Callable) -> property:
    """A property computed on first read and kept on the instance (``functools.cached_property``
    holds one lock per class before Python 3.12, which would make the models' threads take
    turns)."""
    name = "_lazy_" + method.__name__

    def get(self):
        value = self.__dict__.get(name)
        if value is None:
            value = self.__dict__[name] = method(self)
        return value

    return property(get, doc=method.__doc__)


class _Block:
    """One block of resamples of one model: weight sums, exact integers when unweighted
    (int32 on the byte path; float32 while below 2**24, else float64).

    ``tp`` (positives scoring >= each positive run), ``pos`` (positives in each run),
    ``fp_ge`` and ``fp_gt`` (negatives scoring >= / > the run), each (B, R), are made from the
    prefix sums when a kernel first reads them. On the byte path with two or more resamples
    AUC and AP never read them: :attr:`areas` makes both in one pass over the runs in chunks
    that stay in cache.
    """

    def __init__(self, model: _SortedModel, pos_prefix, neg_prefix, scratch: dict) -> None:
        self.model, self.pos_prefix, self.neg_prefix = model, pos_prefix, neg_prefix
        self.scratch = scratch  # the model's, reused from block to block
        totals = (model.pos_order.size, model.neg_order.size)
        self.n_pos = pos_prefix.at(np.array(totals[:1]))[:, 0].astype(np.float64)  # (B,)
        self.n_neg = neg_prefix.at(np.array(totals[1:]))[:, 0].astype(np.float64)  # (B,)
        self.untied = model.ends.size == model.pos_order.size  # every run a single positive
        self.fused = isinstance(pos_prefix, _BytePrefix) and self.n_pos.size > 1

    @_lazy
    def tp(self) -> np.ndarray:
        r = self.model.ends.size
        return self.pos_prefix.run(r) if self.untied else self.pos_prefix.at(self.model.ends)

    @_lazy
    def pos(self) -> np.ndarray:
        r, pp = self.model.ends.size, self.pos_prefix
        if self.untied and isinstance(pp, _BytePrefix):
            return pp.counts[:r].T
        if self.untied:
            return pp.counts[:, 1 : r + 1]  # the float counts have a leading zero column
        tp = self.tp
        return np.diff(tp, axis=1, prepend=np.zeros((tp.shape[0], 1), dtype=tp.dtype))

    @_lazy
    def fp_ge(self) -> np.ndarray:
        return self.neg_prefix.at(self.model.ge)

    @_lazy
    def fp_gt(self) -> np.ndarray:
        return self.fp_ge if self.model.no_ties else self.neg_prefix.at(self.model.gt)

    @_lazy
    def areas(self) -> tuple[np.ndarray, np.ndarray]:
        """``(sum pos * (fp_ge + fp_gt), sum pos * tp / (tp + fp_ge))`` per resample, for the
        byte path's blocks of two or more resamples (see :func:`_area_sums`)."""
        return _area_sums(self.model, self.pos_prefix, self.neg_prefix, self.scratch)


def _area_sums(model: _SortedModel, pp: _BytePrefix, np_: _BytePrefix, scratch: dict):
    """AUC's and AP's sums over the positive runs, a chunk of runs at a time, in float64.

    Returns ``(above, total)``, each (B,): ``above`` is ``sum pos * (fp_ge + fp_gt)`` (exact:
    integers below 2**53, so the chunks' order does not matter) and ``total`` the AP terms
    ``tp / max(tp + fp_ge, 1) * pos`` added one run after another, as
    :func:`_average_precision` adds them: each chunk's terms are summed over axis 0 behind the
    running total in row 0 of the same buffer. Every term is the float64 division and product
    of the same exact integers as there, so both sums are the very bits of the whole-array
    path. The chunk buffers are the model's, one per role (the positives' and the negatives'
    sums never share one).
    """
    b = pp.before.shape[1]
    ends, ge, gt = model.ends, model.ge, model.gt
    r = ends.size
    untied = r == model.pos_order.size
    chunk = max(8, _AREA_CELLS // b)
    key = ("areas", chunk, b)
    if key not in scratch:
        scratch[key] = {
            role: np.empty((chunk + {"terms": 1, "tp": 16}.get(role, 0), b))
            for role in ("tp", "pos", "fp", "fp_gt", "flagged", "terms")
        }
    buf = scratch[key]
    above, total = np.zeros(b), np.zeros(b)
    last_tp = np.zeros(b)  # tp of the run before the chunk (the tied runs' counts are its diff)
    leading = True  # a leading run may have nothing drawn at or above it: 0 / 0 there
    for first in range(0, r, chunk):
        stop = min(r, first + chunk)
        k, runs = stop - first, slice(first, stop)
        pos, fp, flagged = (buf[role][:k] for role in ("pos", "fp", "flagged"))
        if untied:  # tp of run j is E[j + 1]: whole groups of 8 rows, no gather
            tp = _run_rows_into(buf["tp"], pp, first + 1, stop + 1)
            np.copyto(pos, pp.counts[runs])
        else:
            tp = _rows_into(buf["tp"][:k], pp, ends[runs])
            np.subtract(tp[0], last_tp, out=pos[0])
            np.subtract(tp[1:], tp[:-1], out=pos[1:])
            last_tp = tp[-1].copy()
        _rows_into(fp, np_, ge[runs])
        if model.no_ties:
            above += np.einsum("ij,ij->j", pos, fp)
        else:
            fp_gt = _rows_into(buf["fp_gt"][:k], np_, gt[runs])
            fp_gt += fp
            above += np.einsum("ij,ij->j", pos, fp_gt)
        np.add(tp, fp, out=flagged)
        if leading:  # rows only grow down the runs: once a chunk ends drawn, all later are
            leading = not flagged[-1].all()
            np.maximum(flagged, 1.0, out=flagged)
        terms = buf["terms"][: k + 1]
        terms[0] = total
        np.divide(tp, flagged, out=terms[1:])
        terms[1:] *= pos
        np.sum(terms, axis=0, out=total)  # row after row: sequential per resample
    if model.no_ties:
        above *= 2.0
    return above, total


def _run_rows_into(out: np.ndarray, prefix: _BytePrefix, start: int, stop: int) -> np.ndarray:
    """``E[start], ..., E[stop - 1]`` for every resample, a view of the float64 ``out``: the
    whole groups of 8 rows around them (within the padding) get their group's total by
    broadcasting, exact. ``out`` holds at least ``stop - start + 14`` rows."""
    g0, g1 = start >> 3, -(-stop // 8)
    rows = out[: 8 * (g1 - g0)]
    np.copyto(rows, prefix.excl[8 * g0 : 8 * g1])
    groups = rows.reshape(g1 - g0, 8, -1)
    np.add(groups, prefix.before[g0:g1, None, :], out=groups)
    return rows[start - 8 * g0 : stop - 8 * g0]


def _rows_into(out: np.ndarray, prefix: _BytePrefix, k: np.ndarray) -> np.ndarray:
    """``E[k]`` for every resample into the float64 array ``out`` (len(k), B), exact."""
    np.copyto(out, np.take(prefix.excl, k, axis=0))
    out += np.take(prefix.before, k >> 3, axis=0)
    return out


def _block(model: _SortedModel, counts: np.ndarray, w: np.ndarray | None, dtype) -> _Block:
    """The per-run sums of one block. ``dtype`` int32 takes the byte path (``counts`` uint8,
    as :func:`_byte_counts` returns them); a float dtype the float prefix sums."""
    if np.dtype(dtype) == np.int32:
        pp = _BytePrefix(counts, model.pos_padded, model.pos_buffers)
        np_ = _BytePrefix(counts, model.neg_padded, model.neg_buffers)
    else:
        pp = _FloatPrefix(counts, model.pos_order, w, dtype, model.pos_buffers)
        np_ = _FloatPrefix(counts, model.neg_order, w, dtype, model.neg_buffers)
    return _Block(model, pp, np_, model.scratch)


def _roc_auc(b: _Block) -> np.ndarray:
    # 2U = sum over positive runs of pos * (2 * below + tied) = pos * (2N - fp_ge - fp_gt)
    #    = 2NP - sum pos * (fp_ge + fp_gt): products and sums of integers, exact in float64.
    if b.fused:
        above = b.areas[0]
    elif b.fp_gt is b.fp_ge:
        above = 2.0 * np.einsum("ij,ij->i", b.pos, b.fp_ge, dtype=np.float64)
    else:
        above = np.einsum("ij,ij->i", b.pos, b.fp_ge + b.fp_gt, dtype=np.float64)
    twice_u = 2.0 * b.n_neg * b.n_pos - above
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = twice_u / (2 * b.n_pos * b.n_neg)
    return np.where((b.n_pos > 0) & (b.n_neg > 0), auc, np.nan)


def _sequential_sum(terms: np.ndarray) -> np.ndarray:
    """Each row's sum, adding its terms one after another (as ``np.add.accumulate`` does, and
    as :func:`metrics.average_precision_score` does), not pairwise as ``np.sum`` does."""
    if terms.shape[1] == 0:
        return np.zeros(terms.shape[0])
    if terms.shape[0] == 1:
        return np.add.accumulate(terms, axis=1)[:, -1]
    # Summing a C-ordered (R, B) array over axis 0 adds whole rows in turn: sequential per column.
    return np.ascontiguousarray(terms.T).sum(axis=0)


def _leading_unflagged(flagged: np.ndarray) -> int:
    """How many leading columns hold a zero in some row (each row is non-decreasing)."""
    r = flagged.shape[1]
    j = min(r, 16)
    while j < r and not flagged[:, j - 1].all():
        j = min(r, 4 * j)
    return j


def _average_precision(b: _Block) -> np.ndarray:
    if b.fused:
        with np.errstate(invalid="ignore", divide="ignore"):
            ap = b.areas[1] / b.n_pos
        return np.where(b.n_pos > 0, ap, np.nan)
    flagged = np.add(b.tp, b.fp_ge)
    # Above the first drawn row nothing is flagged: tp / 1 (or tiny) = 0 there, not 0 / 0.
    # Rows are non-decreasing, so only a few leading columns can hold a zero.
    j = _leading_unflagged(flagged)
    floor = 1 if flagged.dtype.kind in "iu" else np.finfo(flagged.dtype).tiny
    np.maximum(flagged[:, :j], floor, out=flagged[:, :j])
    b_, r = flagged.shape
    if r == 0:
        total = np.zeros(b_)
    elif b_ == 1:
        terms = np.divide(b.tp, flagged, dtype=np.float64)
        terms *= b.pos
        total = np.add.accumulate(terms, axis=1)[:, -1]
    else:
        # The terms, made in (R, B) order (the byte path's own layout), are summed over axis 0:
        # one run after another for every resample at once (sequential per resample, as the
        # metric adds them).
        key = ("ap", b_, r)
        if key not in b.scratch:
            b.scratch[key] = np.empty((r, b_))
        across = b.scratch[key]
        np.divide(b.tp.T, flagged.T, out=across, dtype=np.float64)
        np.multiply(across, b.pos.T, out=across)
        total = across.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ap = total / b.n_pos
    return np.where(b.n_pos > 0, ap, np.nan)


def _rates(tp, fp, n_pos, n_neg) -> dict[str, np.ndarray]:
    tp, fp = tp.astype(np.float64), fp.astype(np.float64)  # exact counts, float64 ratios
    p, n = n_pos[:, None], n_neg[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "precision": tp / (tp + fp),
            "recall": tp / p,
            "f1": 2 * tp / (tp + fp + p),
            "fpr": fp / n,
            "accuracy": (tp + n - fp) / (p + n),
        }


def _ks(b: _Block) -> np.ndarray:
    """max |TPR − FPR| over every threshold: the two-sample KS statistic of the scores.

    TPR − FPR peaks where a run of positives ends, FPR − TPR just before one starts (the
    negatives above it all in, the run not yet): both are ROC vertices per positive run.
    """
    p, n = b.n_pos[:, None], b.n_neg[:, None]
    tp = b.tp.astype(np.float64)
    prev = np.concatenate((np.zeros((tp.shape[0], 1)), tp[:, :-1]), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        up = np.max(tp / p - b.fp_ge / n, axis=1, initial=0.0)
        down = np.max(b.fp_gt / n - prev / p, axis=1, initial=0.0)
        # After the last positive run only negatives remain: FPR - TPR ends at 1 - 1 = 0.
    ks = np.maximum(up, down)
    return np.where((b.n_pos > 0) & (b.n_neg > 0), ks, np.nan)


def _net_benefit(tp, fp, b: _Block, t: np.ndarray) -> np.ndarray:
    """Decision-curve net benefit TP/n − FP/n · t/(1 − t), NaN where t is not in [0, 1)."""
    n = (b.n_pos + b.n_neg)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        odds = np.where((t >= 0) & (t < 1), t / (1 - t), np.nan)
        return tp.astype(np.float64) / n - fp.astype(np.float64) / n * odds


def _best_thresholds(model: _SortedModel, b: _Block) -> dict[str, np.ndarray]:
    """Per resample, the score that maximises F1 and Youden's J (NaN when undefined)."""
    p, n = b.n_pos[:, None], b.n_neg[:, None]
    tp, fp = b.tp.astype(np.float64), b.fp_ge.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = 2 * tp / (tp + fp + p)
        youden = tp / p - fp / n
    out = {}
    for name, value in (("max F1", f1), ("Youden", youden)):
        value = np.where(np.isfinite(value), value, -np.inf)
        best = np.argmax(value, axis=1)
        ok = np.isfinite(value[np.arange(best.size), best])
        out[name] = np.where(ok, model.run_scores[best] if best.size else np.nan, np.nan)
    return out


def _rowwise_search(sorted_rows: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """``searchsorted(row, target, "left")`` for every row and target at once.

    ``sorted_rows`` (B, R) is non-decreasing along each row and ``targets`` (B, G); one search of
    the flattened rows, each shifted above the one before, answers every row.
    """
    b, r = sorted_rows.shape
    span = float(np.nanmax(sorted_rows, initial=0.0)) + float(np.nanmax(targets, initial=0.0)) + 1
    shift = (np.arange(b) * span)[:, None]
    flat = (sorted_rows.astype(np.float64) + shift).ravel()
    found = np.searchsorted(flat, (targets + shift).ravel(), side="left").reshape(b, -1)
    return found - (np.arange(b) * r)[:, None]


def _roc_parts(b: _Block):
    """Per resample: TP before each positive run, and a mask of the resamples with both classes."""
    tp = b.tp.astype(np.float64)
    prev = np.concatenate((np.zeros((tp.shape[0], 1)), tp[:, :-1]), axis=1)
    ok = (b.n_pos > 0) & (b.n_neg > 0)
    return tp, prev, ok


def _roc_at(b: _Block, fpr: np.ndarray) -> np.ndarray:
    """TPR at each FPR of ``fpr`` (B, G) on each resample's ROC curve (B, G).

    The curve runs across to the negatives above a positive run (``fp_gt``, TP before the run),
    then up, diagonally when negatives tie with it, to (``fp_ge``, TP through the run); after the
    last run, across to (N, P).
    """
    tp, prev, ok = _roc_parts(b)
    n, p = b.n_neg[:, None], b.n_pos[:, None]
    x = fpr * n
    if tp.shape[1] == 0:
        return np.full(fpr.shape, np.nan)
    j = _rowwise_search(b.fp_ge, x)
    last = j >= tp.shape[1]
    jc = np.minimum(j, tp.shape[1] - 1)
    rows = np.arange(tp.shape[0])[:, None]
    gt, ge = b.fp_gt[rows, jc].astype(np.float64), b.fp_ge[rows, jc].astype(np.float64)
    low, high = prev[rows, jc], tp[rows, jc]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(ge > gt, (x - gt) / (ge - gt), 1.0)
    y = np.where(x <= gt, low, low + (high - low) * np.clip(share, 0.0, 1.0))
    y = np.where(last, p, y)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok[:, None], y / p, np.nan)


def _roc_on_grid(b: _Block, grid: np.ndarray) -> np.ndarray:
    """TPR at each FPR of ``grid`` (vertical averaging), per resample: shape (B, len(grid))."""
    return _roc_at(b, np.broadcast_to(grid, (b.tp.shape[0], grid.size)))


def _partial_auc(b: _Block, max_fpr: float) -> np.ndarray:
    """McClish-standardised area under each resample's ROC up to FPR ``max_fpr``."""
    tp, prev, ok = _roc_parts(b)
    n, p = b.n_neg[:, None], b.n_pos[:, None]
    ge, gt = b.fp_ge.astype(np.float64), b.fp_gt.astype(np.float64)
    ge_prev = np.concatenate((np.zeros((ge.shape[0], 1)), ge[:, :-1]), axis=1)
    # Area (in counts) of each run's stretch: across at the height before it, then its diagonal.
    pieces = (gt - ge_prev) * prev + (ge - gt) * (prev + tp) / 2
    area = np.concatenate((np.zeros((ge.shape[0], 1)), np.cumsum(pieces, axis=1)), axis=1)
    x = max_fpr * n
    j = _rowwise_search(b.fp_ge, x)[:, 0]  # the first run not wholly inside [0, x]
    rows = np.arange(ge.shape[0])
    r = tp.shape[1]
    jc = np.minimum(j, r - 1)
    done = area[rows, j]
    start = np.where(j > 0, ge[rows, np.maximum(j - 1, 0)], 0.0)
    height = np.where(j > 0, tp[rows, np.maximum(j - 1, 0)], 0.0)
    x1 = x[:, 0]
    # Inside run j (or past the last run): across at `height` to gt_j, then up its diagonal.
    flat_end = np.where(j < r, np.minimum(x1, gt[rows, jc]), x1)
    rest = done + (flat_end - start) * height
    diag = (j < r) & (x1 > gt[rows, jc])
    with np.errstate(invalid="ignore", divide="ignore"):
        share = (x1 - gt[rows, jc]) / (ge[rows, jc] - gt[rows, jc])
        y_end = prev[rows, jc] + (tp[rows, jc] - prev[rows, jc]) * share
        rest = np.where(diag, rest + (x1 - gt[rows, jc]) * (prev[rows, jc] + y_end) / 2, rest)
        partial = rest / (n[:, 0] * p[:, 0])
    min_area, max_area = 0.5 * max_fpr**2, max_fpr
    value = 0.5 * (1 + (partial - min_area) / (max_area - min_area))
    return np.where(ok, value, np.nan)


def _pr_on_grid(b: _Block, grid: np.ndarray) -> np.ndarray:
    """Precision at the first positive run reaching each recall of ``grid``, per resample."""
    tp = b.tp.astype(np.float64)
    p = b.n_pos[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = tp / (tp + b.fp_ge)
    if tp.shape[1] == 0:
        return np.full((tp.shape[0], grid.size), np.nan)
    # recall >= g  <=>  tp >= g * P (searched on tp, which is non-decreasing)
    j = _rowwise_search(tp, grid[None, :] * p)
    rows = np.arange(tp.shape[0])[:, None]
    out = precision[rows, np.minimum(j, tp.shape[1] - 1)]
    return np.where((j < tp.shape[1]) & (p > 0), out, np.nan)


@dataclass(frozen=True)
class _Spec:
    """What to compute: the options of :func:`fast_paired_bootstrap` the kernels read, and the
    names of the kernels chosen (:func:`_chosen_kernels`)."""

    thresholds: np.ndarray | None
    threshold_grid: tuple[np.ndarray, ...] | None
    roc_grid: np.ndarray | None
    pr_grid: np.ndarray | None
    best_thresholds: bool
    max_fpr: float | None = None
    ks: bool = False
    kernels: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Out:
    """Where the replicates go: arrays of (n_resamples, ...) filled block by block."""

    replicates: dict[str, np.ndarray]
    chosen: dict[str, np.ndarray]
    curves: dict[str, list[np.ndarray]] | None
    rocs: list[np.ndarray] | None
    prs: list[np.ndarray] | None


# --- kernels: one statistic of a block of resamples each -----------------------------------------


@dataclass(frozen=True)
class _Job:
    """One model on one block of resamples, as a kernel sees it: the model, its per-run sums
    (``block``), the options, and where model ``k``'s rows ``rows`` of each output go."""

    model: _SortedModel
    block: _Block
    spec: _Spec
    out: _Out
    rows: slice
    k: int

    def metric(self, name: str, values: np.ndarray) -> None:
        self.out.replicates[name][self.rows, self.k] = values

    def rates_at(self, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """TP and FP (weight sums) of every resample at ``thresholds``: (B, len(thresholds))."""
        kp, kn = self.model.at_thresholds(thresholds)
        return _at(self.block.pos_prefix, kp), _at(self.block.neg_prefix, kn)


@dataclass(frozen=True)
class _Kernel:
    """A statistic of a block of resamples, registered by name in ``_KERNELS``.

    ``run(job)`` stores its values for ``job.k``; ``wanted(spec)`` says whether the options ask
    for it; ``metrics(spec)`` names the replicates (intervals) it fills, in result order.
    """

    run: Callable[[_Job], None]
    wanted: Callable[[_Spec], bool]
    metrics: Callable[[_Spec], tuple[str, ...]]


_KERNELS: dict[str, _Kernel] = {}


def _kernel(name: str, wanted=lambda spec: True, metrics=lambda spec: ()):
    """Register the decorated ``run(job)`` as the kernel ``name``."""

    def register(run: Callable[[_Job], None]) -> Callable[[_Job], None]:
        if name in _KERNELS:
            raise ValueError(f"A bootstrap kernel is already named {name!r}.")
        _KERNELS[name] = _Kernel(run, wanted, metrics)
        return run

    return register


@_kernel("roc_auc", metrics=lambda spec: ("roc_auc",))
def _roc_auc_kernel(job: _Job) -> None:
    job.metric("roc_auc", _roc_auc(job.block))


@_kernel("average_precision", metrics=lambda spec: ("average_precision",))
def _average_precision_kernel(job: _Job) -> None:
    job.metric("average_precision", _average_precision(job.block))


@_kernel(
    "threshold_rates",
    wanted=lambda spec: spec.thresholds is not None,
    metrics=lambda spec: THRESHOLD_METRICS,
)
def _threshold_rates_kernel(job: _Job) -> None:
    b = job.block
    tp, fp = job.rates_at(job.spec.thresholds[job.k : job.k + 1])
    for name, v in _rates(tp, fp, b.n_pos, b.n_neg).items():
        # At a fixed threshold a ratio 0/0 is 0, as metrics.confusion_at_threshold says
        # (a resample with nothing flagged and no positive has F1 0, not a dropped NaN).
        job.metric(name, np.nan_to_num(v[:, 0], nan=0.0))


@_kernel(
    "partial_auc",
    wanted=lambda spec: spec.max_fpr is not None,
    metrics=lambda spec: ("partial_auc",),
)
def _partial_auc_kernel(job: _Job) -> None:
    job.metric("partial_auc", _partial_auc(job.block, job.spec.max_fpr))


@_kernel("ks", wanted=lambda spec: spec.ks, metrics=lambda spec: ("ks",))
def _ks_kernel(job: _Job) -> None:
    job.metric("ks", _ks(job.block))


@_kernel("best_thresholds", wanted=lambda spec: spec.best_thresholds)
def _best_thresholds_kernel(job: _Job) -> None:
    for name, v in _best_thresholds(job.model, job.block).items():
        job.out.chosen[name][job.rows, job.k] = v


@_kernel("threshold_curves", wanted=lambda spec: spec.threshold_grid is not None)
def _threshold_curves_kernel(job: _Job) -> None:
    b, k, grid = job.block, job.k, job.spec.threshold_grid[job.k]
    tp, fp = job.rates_at(grid)
    for name, v in _rates(tp, fp, b.n_pos, b.n_neg).items():
        job.out.curves[name][k][job.rows] = v
    job.out.curves["net_benefit"][k][job.rows] = _net_benefit(tp, fp, b, grid)


@_kernel("roc_band", wanted=lambda spec: spec.roc_grid is not None)
def _roc_band_kernel(job: _Job) -> None:
    job.out.rocs[job.k][job.rows] = _roc_on_grid(job.block, job.spec.roc_grid)


@_kernel("pr_band", wanted=lambda spec: spec.pr_grid is not None)
def _pr_band_kernel(job: _Job) -> None:
    job.out.prs[job.k][job.rows] = _pr_on_grid(job.block, job.spec.pr_grid)


def _chosen_kernels(spec: _Spec) -> _Spec:
    """``spec`` with the names of the kernels its options ask for, in registry order."""
    return replace(spec, kernels=tuple(n for n, kern in _KERNELS.items() if kern.wanted(spec)))


def _metric_names(spec: _Spec) -> list[str]:
    """The replicates (one interval each) of the chosen kernels, in result order."""
    return [name for kernel in spec.kernels for name in _KERNELS[kernel].metrics(spec)]


def _score_block(models, c, rows: slice, w, dtype, spec: _Spec, out: _Out, k: int) -> None:
    """Every chosen kernel on model ``k`` and one block of resample counts ``c``: the block's
    per-run sums are made once and every kernel reads them."""
    model = models[k]
    job = _Job(model, _block(model, c, w, dtype), spec, out, rows, k)
    for name in spec.kernels:
        _KERNELS[name].run(job)


def _row_means(row_means, m: int, n: int, w) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per metric: (weighted losses of shape (n, m), weights of shape (n,))."""
    out = {}
    for name, losses in (row_means or {}).items():
        if name in (*AREA_METRICS, *THRESHOLD_METRICS, "partial_auc", "ks"):
            raise ValueError(f"row_means cannot reuse the name {name!r}.")
        arrays = [as_real(x, "x").reshape(-1) for x in losses]
        if len(arrays) != m or any(x.size != n for x in arrays):
            raise ValueError(f"row_means[{name!r}] needs one array of {n} values per model ({m}).")
        stacked = np.column_stack(arrays)
        if not np.isfinite(stacked).all():
            raise ValueError(f"row_means[{name!r}] has values that are not finite.")
        weights = np.ones(n) if w is None else w
        out[name] = (stacked * weights[:, None], weights)
    return out


def _thread_pool(m: int):
    """Threads for the models of a block, with BLAS held to one thread each (else the matrix
    products of two models fight over the cores), or (None, None) to run them in turn."""
    workers = min(m, os.cpu_count() or 1)
    if workers < 2:
        return None, None
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a runtime without threadpoolctl runs serially
        return None, None
    return ThreadPoolExecutor(max_workers=workers), threadpool_limits(1, user_api="blas")


class _GroupDraws:
    """Resample counts that draw whole groups: each row counts as often as its group was drawn.

    The groups are drawn as :func:`cluster_bootstrap` draws them (one count per distinct group,
    in sorted order), so for the same seed both resample the same users.
    """

    def __init__(self, groups: Any, n: int, seed: Any, method: str) -> None:
        g = np.asarray(groups)
        if g.ndim != 1 or g.size != n:
            raise ValueError(f"groups needs one value per row ({n} rows), got shape {g.shape}.")
        try:
            _, self.inverse = np.unique(g, return_inverse=True)
        except TypeError:
            raise ValueError(
                "groups mixes values that cannot be compared (for example numbers and "
                "strings); make the group ids one type."
            ) from None
        self.inverse = self.inverse.reshape(-1)
        n_groups = int(self.inverse.max()) + 1 if n else 0
        self.draws = _Draws(np.zeros(n_groups, dtype=bool), seed, method, stratified=False)

    def block(self, size: int) -> np.ndarray:
        c = self.draws.block(size)
        if c.dtype != np.uint8 and c.size and c.max() < 256:
            c = c.astype(np.uint8)
        return np.take(c, self.inverse, axis=1)


# --- few groups ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SmallGroups:
    """The small-sample correction of intervals from resampled groups (few users, queries).

    A bootstrap over ``G`` groups behaves like a variance with divisor ``G`` and a normal
    quantile; with few groups, or a few groups holding most rows, both are optimistic (the
    intervals of a 50-user click log covered 89-92% of the time instead of 95%). The correction
    is the one of a cluster-robust t interval: the variance factor ``G / (G - 1)`` and a Student
    t quantile with ``G* - 1`` degrees of freedom instead of the normal one, where ``G*`` is
    Kish's effective number of groups ``(sum w)^2 / sum w^2`` (``w`` a group's rows or weight;
    ``G* = G`` when groups are of equal size). For a binary metric the rows of each class are
    counted apart and ``G*`` is the smaller of the two classes' effective numbers: AUC, AP and
    the rates learn about the positives from the groups that hold positives, and 10% positives
    held by a few active users leave fewer effective groups than the rows do (Obuchowski's
    variance counts the groups with a positive and those with a negative apart for the same
    reason). A percentile interval ``[low, high]`` around the
    estimate ``e`` becomes ``[e - f (e - low), e + f (high - e)]`` with
    ``f = sqrt(G / (G - 1)) t_{G*-1, 1-alpha/2} / z_{1-alpha/2}``, clipped to the range the
    metric can take; an estimate outside ``[low, high]`` is moved to the nearer end first.

    Attributes
    ----------
    n_groups : int
        Groups ``G`` (with positive weight).
    effective_groups : float
        Kish's ``G*`` (of the class with fewer, for a binary metric), at most ``G``.
    df : float
        Degrees of freedom of the t quantile, ``G* - 1``.
    alpha : float
    factor : float
        ``f`` at ``alpha`` (1 when there are fewer than 2 groups: nothing to correct with).
    """

    n_groups: int
    effective_groups: float
    df: float
    alpha: float
    factor: float

    def factor_at(self, alpha: float) -> float:
        """``f`` at another ``alpha``."""
        if self.n_groups < 2:
            return 1.0
        # Lower tails: 1 - alpha / 2 rounds to 1 for the tiny alphas a p-value search reaches
        # (a difference every resample agrees on); below 1e-12 the factor no longer matters.
        tail = max(alpha, 1e-12) / 2.0
        z = -NormalDist().inv_cdf(tail)
        t = -t_quantile(tail, self.df)
        return math.sqrt(self.n_groups / (self.n_groups - 1)) * t / z

    def widen(
        self,
        estimate: float,
        low: float,
        high: float,
        bounds: tuple[float, float] = (-math.inf, math.inf),
        alpha: float | None = None,
    ) -> tuple[float, float]:
        """The corrected ``(low, high)`` of the percentile interval ``[low, high]``."""
        f = self.factor if alpha is None else self.factor_at(alpha)
        if not (math.isfinite(low) and math.isfinite(high)) or f == 1.0:
            return low, high
        center = 0.5 * (low + high) if math.isnan(estimate) else min(max(estimate, low), high)
        new_low = max(bounds[0], center - f * (center - low))
        new_high = min(bounds[1], center + f * (high - center))
        return float(new_low), float(new_high)

    def p_value(self, estimate: float, replicates: Any) -> float:
        """Two-sided p-value of "the difference is 0" that agrees with the corrected intervals.

        The smallest ``alpha`` at which the corrected ``1 - alpha`` interval of the
        difference (from its percentile interval, as :meth:`widen` makes it) excludes 0, as
        :func:`metrics.significance.bootstrap_p_value` is for the plain percentile interval.
        ``estimate`` is the difference on the original rows; NaN without finite replicates.
        """
        d = as_real(replicates, "replicates")
        d = d[np.isfinite(d)]
        if d.size == 0:
            return math.nan

        def excludes(alpha: float) -> bool:
            low, high = np.quantile(d, [alpha / 2.0, 1.0 - alpha / 2.0])
            low, high = self.widen(estimate, float(low), float(high), alpha=alpha)
            return low > 0 or high < 0

        if not excludes(1.0 - 1e-12):
            return 1.0
        lo, hi = 0.0, 1.0 - 1e-12  # excludes(hi); the p-value is in (lo, hi]
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if mid <= 0.0 or mid == hi:
                break
            if excludes(mid):
                hi = mid
            else:
                lo = mid
        return float(hi)


def small_groups_correction(sizes: Any, *, alpha: float = 0.05) -> SmallGroups:
    """The :class:`SmallGroups` correction for groups of these sizes (rows or total weight).

    Parameters
    ----------
    sizes : array-like of shape (n_groups,) or (n_groups, n_classes)
        Each group's rows, or its total weight; with one column per class (positives,
        negatives), the effective number of groups is the smallest of the columns'. Groups of
        size 0 (in every column) are left out.
    alpha : float, default 0.05

    Returns
    -------
    SmallGroups

    Examples
    --------
    50 groups of equal size: ``sqrt(50 / 49) t_{49, 0.975} / z_{0.975}``.

    >>> round(small_groups_correction([20] * 50).factor, 4)
    1.0357
    """
    w = as_real(sizes, "sizes")
    w = w[:, None] if w.ndim == 1 else w
    if w.ndim != 2:
        raise ValueError(f"sizes needs one row per group, got an array of shape {w.shape}.")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sizes must be finite and non-negative (rows or weight per group).")
    w = w[w.sum(axis=1) > 0]
    g = int(w.shape[0])
    effective = 0.0
    if g:
        squares = np.sum(w * w, axis=0)
        kish = np.where(squares > 0, w.sum(axis=0) ** 2 / np.where(squares > 0, squares, 1), 0.0)
        effective = min(float(kish.min()), float(g))  # equal sizes: exactly G, no rounding
    corr = SmallGroups(g, effective, max(effective - 1.0, 0.0), alpha, 1.0)
    if g < 2 or corr.df <= 0:
        return corr
    return SmallGroups(g, effective, corr.df, alpha, corr.factor_at(alpha))


def _widened(
    result: BootstrapResult,
    corrections: list[SmallGroups],
    bounds: list[tuple[float, float]],
) -> BootstrapResult:
    """``result`` with every interval widened: model ``k`` by ``corrections[k]`` within
    ``bounds[k]``, the difference ``i - j`` by the wider of the two within the bounds a
    difference can take."""
    models = tuple(
        BootstrapInterval(iv.estimate, *corrections[k].widen(iv.estimate, iv.ci_low, iv.ci_high,
                                                             bounds[k]), iv.std_error, iv.n_used)
        for k, iv in enumerate(result.models)
    )  # fmt: skip
    differences = {}
    for (i, j), iv in result.differences.items():
        c = max(corrections[i], corrections[j], key=lambda s: s.factor)
        limits = (bounds[i][0] - bounds[j][1], bounds[i][1] - bounds[j][0])
        low, high = c.widen(iv.estimate, iv.ci_low, iv.ci_high, limits)
        differences[(i, j)] = BootstrapInterval(iv.estimate, low, high, iv.std_error, iv.n_used)
    widest = max(corrections, key=lambda s: s.factor)
    return BootstrapResult(
        models, differences, result.replicates, result.n_dropped, result.n_resamples,
        result.alpha, widest,
    )  # fmt: skip


# --- the public function ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FastBootstrap:
    """Everything :func:`fast_paired_bootstrap` computed.

    Attributes
    ----------
    results : dict of str -> BootstrapResult
        One per metric: ``"roc_auc"``, ``"average_precision"``, with ``thresholds`` each of
        ``"precision"``, ``"recall"``, ``"f1"``, ``"fpr"``, ``"accuracy"`` at each model's
        threshold, and each name of ``row_means``. Each holds every model's interval, every
        pairwise difference's interval and the replicates, as :func:`metrics.paired_bootstrap`
        returns.
    chosen_thresholds : dict of str -> ndarray of shape (n_resamples, n_models)
        With ``best_thresholds``, per resample, the threshold maximising ``"max F1"`` and
        ``"Youden"`` J (NaN where undefined): how far a threshold picked on these rows would
        move on others.
    threshold_grid : tuple of ndarray, or None
        Per model, the thresholds ``threshold_curves`` is evaluated at.
    threshold_curves : dict of str -> list of ndarray of shape (n_resamples, n_grid), or None
        Per rate of ``THRESHOLD_METRICS`` and ``"net_benefit"`` (the decision curve, for
        thresholds that are probabilities), per model, its value at every grid threshold.
    roc_grid, pr_grid : ndarray or None
        The FPR and recall grids of ``roc_curves`` and ``pr_curves``.
    roc_curves, pr_curves : list of ndarray of shape (n_resamples, n_grid), or None
        Per model, TPR on the FPR grid (vertical averaging) and precision on the recall grid.
    counts : str
    n_resamples : int
    alpha : float
    bca : tuple of str
        The metrics whose intervals are BCa (see ``interval``); the others are percentile.
    small_groups : SmallGroups or None
        With ``groups`` and ``small_groups=True``: the few-groups correction every interval
        (and :meth:`band`) was widened by; its :meth:`SmallGroups.p_value` agrees with the
        intervals. None otherwise.
    original
        The same quantities on the original rows (every count 1), in arrays of one row:
        ``original.rocs[k][0]`` is model k's ROC on the grid, ``original.chosen["max F1"]``
        its chosen thresholds.
    """

    results: dict[str, BootstrapResult]
    chosen_thresholds: dict[str, np.ndarray]
    threshold_grid: tuple[np.ndarray, ...] | None
    threshold_curves: dict[str, list[np.ndarray]] | None
    roc_grid: np.ndarray | None
    roc_curves: list[np.ndarray] | None
    pr_grid: np.ndarray | None
    pr_curves: list[np.ndarray] | None
    counts: str
    n_resamples: int
    alpha: float
    bca: tuple[str, ...] = ()
    original: _Out | None = None
    small_groups: SmallGroups | None = None

    def band(self, curves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pointwise ``alpha / 2`` and ``1 - alpha / 2`` quantiles of resampled curves.

        With a few-groups correction (``small_groups``), each point's band is widened by its
        factor around the pointwise median, within the range of all the resampled values.
        """
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns stay NaN
            low, high = np.nanquantile(curves, [self.alpha / 2, 1 - self.alpha / 2], axis=0)
            small = self.small_groups
            if small is not None and small.factor != 1.0 and np.isfinite(curves).any():
                mid = np.nanmedian(curves, axis=0)
                low = np.maximum(mid - small.factor * (mid - low), np.nanmin(curves))
                high = np.minimum(mid + small.factor * (high - mid), np.nanmax(curves))
        return low, high


def _new_out(n_resamples: int, m: int, names, spec: _Spec) -> _Out:
    def rows(width: int) -> np.ndarray:
        return np.full((n_resamples, width), np.nan)

    curves = None
    if spec.threshold_grid is not None:
        curves = {
            r: [rows(g.size) for g in spec.threshold_grid]
            for r in (*THRESHOLD_METRICS, "net_benefit")
        }
    return _Out(
        replicates={name: rows(m) for name in names},
        chosen={"max F1": rows(m), "Youden": rows(m)} if spec.best_thresholds else {},
        curves=curves,
        rocs=None if spec.roc_grid is None else [rows(spec.roc_grid.size) for _ in range(m)],
        prs=None if spec.pr_grid is None else [rows(spec.pr_grid.size) for _ in range(m)],
    )


def fast_paired_bootstrap(
    y_true: Any,
    *scores: Any,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    counts: str = "poisson",
    stratified: bool = True,
    sample_weight: Any = None,
    pos_label: Any = None,
    thresholds: Any = None,
    threshold_grid: Any = None,
    roc_grid: Any = None,
    pr_grid: Any = None,
    best_thresholds: bool = False,
    row_means: dict[str, Any] | None = None,
    interval: str = "percentile",
    max_fpr: float | None = None,
    ks: bool = False,
    groups: Any = None,
    small_groups: bool = True,
    bca_metrics: Any = ("roc_auc",),
    only: Any = None,
) -> FastBootstrap:
    """Paired bootstrap intervals of AUC, AP and threshold metrics, sorting each model once.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels.
    *scores : array-like of shape (n_samples,)
        One or more models' scores for the same rows.
    n_resamples : int, default 1000
        At most 100,000 (``metrics._bounds.MAX_RESAMPLES``); more raises ValueError.
    alpha : float, default 0.05
        One minus the confidence level of the percentile intervals.
    seed : int, numpy Generator or None, default 0
    counts : {"poisson", "multinomial"}, default "poisson"
        How a resample is drawn (see the module notes). ``"multinomial"`` with the same
        ``seed`` and ``stratified`` draws exactly what :func:`metrics.paired_bootstrap` draws.
    stratified : bool, default True
        For ``"multinomial"``: resample within each class. Poisson draws ignore it.
    sample_weight : array-like of shape (n_samples,), optional
        A resample's weights are these times its counts.
    pos_label : optional
        The positive class, as in :func:`metrics.roc_auc_score`.
    thresholds : sequence of float, one per model, optional
        Adds precision, recall, F1, FPR and accuracy at each model's threshold.
    threshold_grid : sequence of arrays, one per model, optional
        Thresholds at which every rate is kept per resample, for bands on metric-vs-threshold
        curves: at most 100,000 a model (``metrics._bounds.MAX_GRID``, with ``MAX_CELLS`` as
        for ``roc_grid``).
    roc_grid, pr_grid : array-like, optional
        Each at most 100,000 points (``metrics._bounds.MAX_GRID``); every grid kept, over the
        models and resamples, at most 50,000,000 values (``MAX_CELLS``); more raises
        ValueError.
        FPR and recall grids for bands on the ROC and precision-recall curves.
    best_thresholds : bool, default False
        Also find, per resample, the thresholds maximising F1 and Youden's J.
    row_means : dict of str -> sequence of arrays, one per model, optional
        Metrics that are a (weighted) mean of a per-row loss, such as the Brier score
        ``(score - y) ** 2`` or log loss: each gets intervals from the same resamples, as
        ``counts @ (weight * loss) / counts @ weight``.
    interval : {"percentile", "bca"}, default "percentile"
        ``"bca"``: Efron's bias-corrected and accelerated interval for the metrics of
        ``bca_metrics`` and their differences, where it is cheap: the exact leave-one-row-out
        jackknife of AUC comes from DeLong's placements (:func:`auc_jackknife`), that of AP from
        sorted counts (:func:`ap_jackknife`), each in one pass (unweighted rows, no ``groups``
        only; otherwise, and for the other metrics, percentile). ``FastBootstrap.bca`` lists
        the metrics it was applied to.
    max_fpr : float in (0, 1], optional
        Adds ``"partial_auc"``: the McClish-standardised area under the ROC up to this FPR,
        as :func:`metrics.roc_auc_score` with ``max_fpr`` gives it.
    ks : bool, default False
        Adds ``"ks"``: the Kolmogorov-Smirnov statistic max |TPR − FPR|, as
        :func:`metrics.ks_statistic`.
    groups : array-like of shape (n_samples,), optional
        The unit rows belong to (a user, a query, a patient). Rows of one group are not
        independent, so a resample draws whole groups: each group a Poisson(1) number of times,
        or ``n_groups`` groups with replacement for ``"multinomial"`` (``stratified`` does not
        apply), and every row counts as often as its group was drawn. Every metric, interval,
        band and pairwise difference is then a cluster bootstrap. For the same draws the
        replicates equal :func:`metrics.paired_bootstrap` on rows weighted by their group's
        count. BCa is not applied (its jackknife would leave out groups, not rows).
    small_groups : bool, default True
        With ``groups``: widen every interval (and band) for few groups, as
        :class:`SmallGroups` describes: a t quantile with ``G* - 1`` degrees of freedom (``G*``
        Kish's effective number of groups by rows, or by weight with ``sample_weight``, of the
        class for which it is smaller) and the factor ``G / (G - 1)``. On by default: with 50
        users of unequal activity (1,000 rows, ``bench/bench_coverage.py``) the plain
        percentile intervals covered 89.2-92.5% of the time and their tests rejected a true null
        4.8-8.8% of the time; corrected, 92.2-95.0% and 2.8-7.2% (``docs/coverage.md``). With
        under about 10 effective groups the correction is conservative. False keeps the plain
        percentile intervals.
        Without ``groups`` nothing changes.
    bca_metrics : sequence of str, default ("roc_auc",)
        The metrics ``interval="bca"`` applies to: ``"roc_auc"``, ``"average_precision"`` or
        both. With 1000 resamples AP's percentile interval covers 93.2-96.0% in the coverage
        study (``docs/ap_intervals.md``), so AP's BCa is an option, not a need; with few
        resamples the percentile interval's tails are noisy and come out a little narrow.
    only : sequence of str, optional
        Compute only these results (``"roc_auc"``, ``"average_precision"``, ...): the kernels
        that fill none of them are skipped (a gate on AUC alone need not compute AP). Their
        replicates are those of the full run for the same seed. Default: every result the
        options ask for.

    Returns
    -------
    FastBootstrap

    Notes
    -----
    Cost per block of resamples and model: one gather of the (transposed) counts into sorted
    order, byte additions for the prefix sums, and work on the distinct positive scores only
    (see the module notes). ``python -m bench.bench_bootstrap`` prints the time of 1000
    resamples of 1e5 rows for two models, AUC and AP, as a multiple of one
    :func:`metrics.roc_auc_score` call in the same run (issue #19's target: 300x), against
    :func:`metrics.paired_bootstrap`, which calls each metric once per resample.

    Examples
    --------
    >>> r = fast_paired_bootstrap([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7],
    ...                           n_resamples=200, counts="multinomial")
    >>> round(r.results["roc_auc"].models[0].estimate, 4)
    0.8889
    """
    if interval not in ("percentile", "bca"):
        raise ValueError(f'interval must be "percentile" or "bca", got {interval!r}.')
    bca_metrics = (bca_metrics,) if isinstance(bca_metrics, str) else tuple(bca_metrics)
    unknown = sorted(set(bca_metrics) - set(_JACKKNIFE))
    if unknown:
        raise ValueError(
            f"bca_metrics can hold {sorted(_JACKKNIFE)}; got {unknown} (BCa needs an exact "
            "jackknife, which only those have here)."
        )
    if not scores:
        raise ValueError("fast_paired_bootstrap needs at least one score array after y_true.")
    alpha = _check_resampling(n_resamples, alpha, counts)
    y = check_binary_labels(y_true, pos_label)
    n = y.size
    arrays = [check_scores(s, f"scores[{k}]") for k, s in enumerate(scores)]
    for k, s in enumerate(arrays):
        if s.size != n:
            raise ValueError(f"scores[{k}] has {s.size} values but y_true has {n} rows.")
    w = check_sample_weight(sample_weight, n)
    m = len(arrays)
    if thresholds is not None:
        thresholds = as_real(thresholds, "thresholds").reshape(-1)
        if thresholds.size != m:
            raise ValueError(f"thresholds needs one value per model ({m}), got {thresholds.size}.")
    if threshold_grid is not None:
        threshold_grid = tuple(as_real(g, "g").reshape(-1) for g in threshold_grid)
        if len(threshold_grid) != m:
            raise ValueError(f"threshold_grid needs one array per model ({m}).")
    roc_grid = None if roc_grid is None else as_real(roc_grid, "roc_grid").reshape(-1)
    pr_grid = None if pr_grid is None else as_real(pr_grid, "pr_grid").reshape(-1)
    check_grids("fast_paired_bootstrap", n_resamples, {
        "threshold_grid": (  # five rates and the net benefit at each point, per model
            max((g.size for g in threshold_grid or ()), default=0), m * (len(THRESHOLD_METRICS) + 1)
        ),
        "roc_grid": (0 if roc_grid is None else roc_grid.size, m),
        "pr_grid": (0 if pr_grid is None else pr_grid.size, m),
    })  # fmt: skip

    models = [_SortedModel(y, s) for s in arrays]
    if max_fpr is not None:
        if not 0 < max_fpr <= 1:
            raise ValueError(f"max_fpr must be in (0, 1], got {max_fpr!r}.")
        max_fpr = float(max_fpr)
    spec = _chosen_kernels(
        _Spec(thresholds, threshold_grid, roc_grid, pr_grid, best_thresholds, max_fpr, bool(ks))
    )
    if only is not None:
        wanted = {only} if isinstance(only, str) else set(only)
        unknown = sorted(wanted - set(_metric_names(spec)))
        if unknown:
            raise ValueError(
                f"only names {unknown}, which these options do not compute (they compute "
                f"{_metric_names(spec)})."
            )
        spec = replace(
            spec, kernels=tuple(k for k in spec.kernels if wanted & set(_KERNELS[k].metrics(spec)))
        )
    names = _metric_names(spec)
    # The original rows are one resample with every count 1.
    original = _new_out(1, m, names, spec)
    ones = np.ones((1, n), dtype=np.uint8)
    for k in range(m):
        _score_block(models, ones, slice(0, 1), w, np.float64, spec, original, k)
    estimates = {name: [float(v) for v in original.replicates[name][0]] for name in names}
    means = _row_means(row_means, m, n, w)
    for name, (numerators, denominator) in means.items():
        estimates[name] = [float(np.sum(x) / np.sum(denominator)) for x in numerators.T]
    names += list(means)
    out = _new_out(n_resamples, m, names, spec)
    replicates = out.replicates
    # A resample holds about n rows (exactly n when multinomial): float32 sums stay exact.
    dtype = np.float32 if w is None and 4 * n < _EXACT_FLOAT32 else np.float64
    if groups is None:
        draws = _Draws(y, seed, counts, stratified)
    else:
        draws = _GroupDraws(groups, n, seed, counts)
        dtype = np.float64 if w is not None else dtype
    _upper(np.float32), _upper(np.float64)  # made once, before any thread reads them
    pool, limits = _thread_pool(m)

    def draw(size: int) -> tuple[np.ndarray, np.ndarray | None]:
        """A block's counts and, where the byte path applies, their transpose (one row per
        data row), made on the drawing thread."""
        c = draws.block(size)
        small = _byte_counts(c, w, n)
        return c, None if small is None else np.ascontiguousarray(small.T)

    block = _block_size(n, n_resamples)
    starts = range(0, n_resamples, block)
    # The next block is drawn on a thread of its own while the models score this one.
    drawer = ThreadPoolExecutor(max_workers=1) if pool is not None else None
    try:
        pending = None
        for i, first in enumerate(starts):
            size = min(block, n_resamples - first)
            rows = slice(first, first + size)
            c, c_t = draw(size) if pending is None else pending.result()
            if drawer is not None and i + 1 < len(starts):
                pending = drawer.submit(draw, min(block, n_resamples - starts[i + 1]))
            if c_t is not None:
                block_dtype = np.int32  # exact int32 prefix sums of byte counts (_BytePrefix)
            elif groups is not None and w is None:
                # A resample holds as many rows as its drawn groups: float32 stays exact below
                # 2**24 of them, which a few large groups drawn often can exceed.
                most = int(c.sum(axis=1, dtype=np.int64).max()) if c.size else 0
                block_dtype = np.float32 if most < _EXACT_FLOAT32 else np.float64
            else:
                block_dtype = dtype
            if means:
                cf = c.astype(np.float64)
                for name, (numerators, denominator) in means.items():
                    with np.errstate(invalid="ignore", divide="ignore"):  # an empty resample
                        replicates[name][rows] = (cf @ numerators) / (cf @ denominator)[:, None]
            scored = c if c_t is None else c_t
            score = partial(_score_block, models, scored, rows, w, block_dtype, spec, out)
            # numpy and BLAS release the GIL: the models of a block run side by side.
            list(map(score, range(m)) if pool is None else pool.map(score, range(m)))
    finally:
        if pool is not None:
            pool.shutdown()
            drawer.shutdown()
            limits.restore_original_limits()

    results = {name: _result(estimates[name], replicates[name], alpha) for name in names}
    bca: tuple[str, ...] = ()
    if interval == "bca" and w is None and groups is None and y.any() and not y.all():
        for name in (k for k in AREA_METRICS if k in bca_metrics):
            results[name] = _with_bca(results[name], _JACKKNIFE[name](y, arrays))
            bca += (name,)
    small = None
    if groups is not None and small_groups:
        # Rows (or weight) of each class per group: G* is the smaller class's.
        g, ww = draws.inverse, (np.ones(n) if w is None else w)
        size = int(g.max()) + 1
        sizes = np.column_stack([np.bincount(g[c], weights=ww[c], minlength=size) for c in (y, ~y)])
        small = small_groups_correction(sizes, alpha=alpha)
        if small.factor != 1.0:
            bounds = _bounds(names, means, m)
            results = {
                name: _widened(r, [small] * m, bounds.get(name, [(-math.inf, math.inf)] * m))
                for name, r in results.items()
            }
    dropped = results["roc_auc"].n_dropped if "roc_auc" in results else ()
    if any(dropped):
        warnings.warn(
            f"ROC AUC was undefined (one class only) on {max(dropped)} of {n_resamples} "
            "resamples; they are left out of the intervals.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
    return FastBootstrap(
        results=results,
        chosen_thresholds=out.chosen,
        threshold_grid=threshold_grid,
        threshold_curves=out.curves,
        roc_grid=roc_grid,
        roc_curves=out.rocs,
        pr_grid=pr_grid,
        pr_curves=out.prs,
        original=original,
        counts=counts,
        n_resamples=n_resamples,
        alpha=alpha,
        bca=bca,
        small_groups=small,
    )


def _block_size(n: int, n_resamples: int) -> int:
    """Resamples per block of :func:`fast_paired_bootstrap`: a quarter of ``_BLOCK_CELLS``
    counts, or ``_MIN_BLOCK`` resamples when that is more, within ``_BLOCK_CELLS``.

    A block's working arrays take about 36 bytes per count over all models: 300 MB for full
    blocks, which two Compare pages of a class computing at once (25k rows) took the server
    past its budget by 500 MB with. A quarter holds 75 MB at the same speed from 25k rows to
    1e5; past about 260k rows the width limit gives the full blocks back (at 1e6 rows blocks of
    4 resamples took 1.4 times as long as blocks of 8).
    """
    most = max(1, _BLOCK_CELLS // max(n, 1))
    return max(1, min(n_resamples, max(most // 4, min(_MIN_BLOCK, most))))


def _bounds(names, means, m: int) -> dict[str, list[tuple[float, float]]]:
    """Per metric and model, the range its value can take: [0, 1] for the rates and areas, the
    range of the per-row losses for a row mean (a weighted mean of them lies within it)."""
    out = {name: [(0.0, 1.0)] * m for name in names if name not in means}
    for name, (numerators, weights) in means.items():
        keep = weights > 0
        losses = numerators[keep] / weights[keep, None]
        out[name] = [(float(losses[:, k].min()), float(losses[:, k].max())) for k in range(m)]
    return out


# --- BCa -----------------------------------------------------------------------------------------


def auc_jackknife(y: np.ndarray, scores: list[np.ndarray]) -> np.ndarray:
    """Leave-one-row-out ROC AUC of each model: shape (n_samples, n_models), exact.

    From DeLong's placements: leaving out a positive removes its placement ``t10`` from
    ``2U`` and one positive from ``P``; likewise a negative. O(n log n) for all n rows.
    """
    pl = _placements(y, scores)
    p, n = pl.n_pos, pl.n_neg
    out = np.empty((y.size, len(scores)))
    for k in range(len(scores)):
        twice_u = float(pl.t10[k].sum(dtype=np.int64))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[y, k] = (twice_u - pl.t10[k]) / (2.0 * (p - 1) * n)
            out[~y, k] = (twice_u - pl.t01[k]) / (2.0 * p * (n - 1))
    return out


def ap_jackknife(y: np.ndarray, scores: list[np.ndarray]) -> np.ndarray:
    """Leave-one-row-out Average Precision of each model: shape (n_samples, n_models), exact.

    Parameters
    ----------
    y : ndarray of bool, shape (n_samples,)
        True for a positive.
    scores : list of ndarray of shape (n_samples,)

    Returns
    -------
    ndarray of shape (n_samples, n_models)
        Row ``i``, model ``k``: :func:`metrics.average_precision_score` of model ``k`` on every
        row but ``i`` (to rounding); NaN for a positive when it is the only one.

    Notes
    -----
    AP is ``(1 / P) sum_k tp_k TP_k / C_k`` over the distinct scores in descending order
    (``tp_k`` positives at score ``k``, ``TP_k`` and ``C_k`` the positives and rows at or above
    it). Leaving out a negative of score ``j`` lowers ``C_k`` by one for every ``k`` at or below
    ``j``: a suffix sum. Leaving out a positive also lowers ``TP_k`` there, ``tp_j`` and ``P``:
    a prefix sum of the unchanged terms above ``j``, one changed term at ``j`` and a suffix sum
    of the changed terms below. O(n log n) for all n rows (one sort per model).
    """
    y = as_real(y, "y").astype(bool)
    n_pos = int(np.count_nonzero(y))
    out = np.empty((y.size, len(scores)))
    for m, s in enumerate(scores):
        order = np.argsort(-np.asarray(s, dtype=np.float64), kind="stable")
        s_sorted = s[order]
        # level[i]: index of the distinct score of sorted row i, descending.
        level = np.concatenate([[0], np.cumsum(s_sorted[1:] != s_sorted[:-1])])
        n_levels = int(level[-1]) + 1 if y.size else 0
        tp = np.bincount(level, weights=y[order], minlength=n_levels)
        rows = np.bincount(level, minlength=n_levels).astype(np.float64)
        big_tp, big_c = np.cumsum(tp), np.cumsum(rows)
        with np.errstate(invalid="ignore", divide="ignore"):
            kept = tp * big_tp / big_c  # the terms as they are
            # Without one negative at or above the level (C - 1 = 0 only where TP = 0).
            less_neg = np.where(big_c > 1, tp * big_tp / (big_c - 1), 0.0)
            # Without one positive above the level.
            less_pos = np.where(big_c > 1, tp * (big_tp - 1) / (big_c - 1), 0.0)
            # Without one positive at the level itself.
            at_pos = np.where(big_c > 1, (tp - 1) * (big_tp - 1) / (big_c - 1), 0.0)
        total = float(np.sum(kept))
        suffix_neg = np.cumsum((less_neg - kept)[::-1])[::-1]  # sum over levels >= k
        prefix_kept = np.cumsum(kept) - kept  # sum over levels < k
        suffix_pos = np.cumsum(less_pos[::-1])[::-1] - less_pos  # sum over levels > k
        lv = level[np.argsort(order, kind="stable")]  # each original row's level
        values = np.empty(y.size)
        with np.errstate(invalid="ignore", divide="ignore"):
            values[~y] = (total + suffix_neg[lv[~y]]) / n_pos
            pos_values = (prefix_kept + at_pos + suffix_pos) / (n_pos - 1)
        values[y] = pos_values[lv[y]] if n_pos > 1 else np.nan
        out[:, m] = values
    return out


def bca_interval(
    estimate: float, replicates: np.ndarray, jackknife: np.ndarray, alpha: float
) -> BootstrapInterval:
    """Efron's bias-corrected and accelerated percentile interval.

    ``z0`` corrects for the median bias of the replicates (the share below the estimate, ties
    counting half) and the acceleration ``a = sum(d^3) / (6 (sum d^2)^1.5)``, ``d`` the
    jackknife values' deviations from their mean, for the skew. Falls back to the percentile
    interval when every replicate lies on one side of the estimate or the jackknife is flat.
    """
    values = replicates[np.isfinite(replicates)]
    plain = _percentile_interval(estimate, values, alpha)
    if values.size < 2:
        return plain
    below = (np.count_nonzero(values < estimate) + 0.5 * np.count_nonzero(values == estimate)) / (
        values.size
    )
    d = np.mean(jackknife) - jackknife
    spread = float(np.sum(d * d))
    if not 0 < below < 1 or spread == 0 or not np.isfinite(spread):
        return plain
    normal = NormalDist()
    z0 = normal.inv_cdf(below)
    a = float(np.sum(d**3)) / (6.0 * spread**1.5)
    levels = []
    for q in (alpha / 2, 1 - alpha / 2):
        z = z0 + normal.inv_cdf(q)
        levels.append(normal.cdf(z0 + z / (1 - a * z)))
    low, high = np.quantile(values, levels)
    return BootstrapInterval(estimate, float(low), float(high), plain.std_error, plain.n_used)


def _with_bca(result: BootstrapResult, jackknife: np.ndarray) -> BootstrapResult:
    reps = result.replicates
    models = tuple(
        bca_interval(iv.estimate, reps[:, k], jackknife[:, k], result.alpha)
        for k, iv in enumerate(result.models)
    )
    differences = {
        (i, j): bca_interval(
            iv.estimate, reps[:, i] - reps[:, j], jackknife[:, i] - jackknife[:, j], result.alpha
        )
        for (i, j), iv in result.differences.items()
    }
    return BootstrapResult(
        models, differences, reps, result.n_dropped, result.n_resamples, result.alpha
    )


# The metrics with an exact, one-pass leave-one-row-out jackknife: where BCa is offered.
_JACKKNIFE = {"roc_auc": auc_jackknife, "average_precision": ap_jackknife}


def _result(estimates: list[float], replicates: np.ndarray, alpha: float) -> BootstrapResult:
    m = replicates.shape[1]
    finite = np.isfinite(replicates)
    models = tuple(_percentile_interval(estimates[k], replicates[:, k], alpha) for k in range(m))
    differences = {
        (i, j): _percentile_interval(
            estimates[i] - estimates[j], replicates[:, i] - replicates[:, j], alpha
        )
        for i in range(m)
        for j in range(i + 1, m)
    }
    n_dropped = tuple(int(d) for d in (~finite).sum(axis=0))
    return BootstrapResult(models, differences, replicates, n_dropped, replicates.shape[0], alpha)


# --- cluster bootstrap ---------------------------------------------------------------------------


def cluster_bootstrap(
    values: Any,
    weights: Any = None,
    *,
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 0,
    counts: str = "poisson",
    small_groups: bool = True,
) -> BootstrapResult:
    """Bootstrap a weighted mean of per-group values by resampling whole groups (users, queries).

    GAUC is the weighted mean of per-user AUCs and MAP@k or NDCG@k the mean of per-query values;
    rows of one user or query are not independent, so the resampled unit is the group. Each
    resample draws every group a number of times (Poisson(1), or ``n_groups`` draws with
    replacement for ``"multinomial"``) and the replicate is
    ``sum(c_g * w_g * v_g) / sum(c_g * w_g)`` over the groups drawn whose value is defined.
    The per-group values are computed once: no resample sorts anything.

    Parameters
    ----------
    values : array-like of shape (n_groups,) or (n_groups, n_models)
        Per-group metric of each model, NaN where undefined (left out, as GAUC skips users with
        one class), for example :attr:`metrics.GroupAUC.auc`.
    weights : array-like of shape (n_groups,) or (n_groups, n_models), optional
        Per-group weights, for example :meth:`metrics.GroupAUC.weights`; 1 when omitted.
    n_resamples, alpha, seed : as :func:`fast_paired_bootstrap`.
    counts : {"poisson", "multinomial"}, default "poisson"
    small_groups : bool, default True
        Widen every interval for few groups, as :class:`SmallGroups` describes (a t quantile
        with ``G* - 1`` degrees of freedom, ``G*`` Kish's effective number of the groups with
        a defined value, by weight, and the factor ``G / (G - 1)``), within the range of the
        per-group values. False keeps the plain percentile intervals.

    Returns
    -------
    BootstrapResult
        Intervals per model and for every pairwise difference; differences are paired (both
        models see the same groups in a resample). ``small_groups`` holds the correction
        applied (the wider one of the models', for differences), None when off.

    Notes
    -----
    For the same draws the replicates are bit-identical to recomputing
    :func:`metrics.group_auc_score` with every row weighted by its group's count
    (``"impressions"`` and ``"positives"`` weightings, where a group drawn twice weighs twice):
    both take the same dot product over the same groups.

    Examples
    --------
    >>> t = cluster_bootstrap([0.9, 0.6, 0.7, float("nan")], [10, 30, 20, 5], n_resamples=200)
    >>> round(t.models[0].estimate, 4)
    0.6833
    """
    alpha = _check_resampling(n_resamples, alpha, counts)
    v = as_real(values, "values")
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2 or v.shape[0] == 0:
        raise ValueError(f"values must have one row per group, got shape {v.shape}.")
    g, m = v.shape
    w = np.ones(g) if weights is None else as_real(weights, "weights")
    if w.ndim == 1:
        w = np.repeat(w[:, None], m, axis=1)
    if w.shape != (g, m):
        raise ValueError(f"weights has shape {w.shape}; values has {v.shape}.")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("weights must be finite and non-negative.")
    defined = np.isfinite(v) & (w > 0)
    if not defined.any(axis=0).all():
        raise ValueError("A model has no group with a defined value and positive weight.")

    def mean(c: np.ndarray | None, k: int) -> float:
        keep = defined[:, k] if c is None else defined[:, k] & (c > 0)
        if not keep.any():
            return float("nan")
        wk = w[keep, k] if c is None else c[keep] * w[keep, k]
        return float(np.dot(wk, v[keep, k]) / wk.sum())

    estimates = [mean(None, k) for k in range(m)]
    draws = _Draws(np.zeros(g, dtype=bool), seed, counts, stratified=False)
    replicates = np.empty((n_resamples, m))
    block = max(1, min(n_resamples, _BLOCK_CELLS // g))
    for first in range(0, n_resamples, block):
        c = draws.block(min(block, n_resamples - first)).astype(np.float64)
        for r in range(c.shape[0]):
            for k in range(m):
                replicates[first + r, k] = mean(c[r], k)
    result = _result(estimates, replicates, alpha)
    if not small_groups:
        return result
    corrections = [small_groups_correction(w[defined[:, k], k], alpha=alpha) for k in range(m)]
    bounds = [
        (float(v[defined[:, k], k].min()), float(v[defined[:, k], k].max())) for k in range(m)
    ]
    return _widened(result, corrections, bounds)
