"""The sorted-once core of :func:`metrics.fast_paired_bootstrap`: each model's rows sorted once,
a block of resamples as counts, their prefix sums (the byte path and the float path) and the
kernels that compute one statistic of a block each (``_KERNELS``).

How the byte and float paths work, and which draws they take, is described in
:mod:`metrics.bootstrap`, which drives these kernels block by block and turns their replicates
into intervals. Nothing here draws or validates: the callers do.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from metrics._validation import (
    as_real,
)
from metrics.compare import (
    _Draws,
)

THRESHOLD_METRICS = ("precision", "recall", "f1", "fpr", "accuracy")
AREA_METRICS = ("roc_auc", "average_precision")
_K = 32  # columns per run of the blocked prefix sum
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
        return self.by_group(size)[1]

    def by_group(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(each group's count, each row's count) of ``size`` resamples."""
        c = self.draws.block(size)
        if c.dtype != np.uint8 and c.size and c.max() < 256:
            c = c.astype(np.uint8)
        return c, np.take(c, self.inverse, axis=1)
