"""metrics.classification against scikit-learn on generated labels, to 1e-12.

The cases put the risky shapes in front: absent classes (named in ``labels`` but in neither
input), a class with one row, predictions of a class that is not in ``y_true``, constant
predictions (every zero-division branch), zero and fractional weights, string labels, and
multi-label rows with no label at all. For each case both libraries either raise or agree, and
ours warns (UndefinedMetricWarning) exactly when scikit-learn does.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.metrics as skm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics.classification as mc
import metrics.label_ranking as mr
import metrics.probability_losses as mp
from metrics import curves
from tests.strategies import examples

ZERO_DIVISIONS = ("warn", 0, 1, np.nan)
AVERAGES = ("binary", "micro", "macro", "weighted", "samples", None)
SETTINGS = settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@dataclass(frozen=True)
class Case:
    kind: str  # "binary", "multiclass", "multilabel"
    y_true: np.ndarray
    y_pred: np.ndarray
    weights: np.ndarray | None
    labels: list | None  # a labels= argument (may name an absent class), or None

    def __repr__(self) -> str:
        w = None if self.weights is None else self.weights.tolist()
        return (
            f"Case({self.kind}, y_true={self.y_true.tolist()}, y_pred={self.y_pred.tolist()}, "
            f"weights={w}, labels={self.labels})"
        )


@st.composite
def cases(draw, kinds=("binary", "multiclass", "multilabel")) -> Case:
    kind = draw(st.sampled_from(kinds))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.sampled_from([1, 2, 3, 5, 8, 13, 30]))
    n_classes = 2 if kind == "binary" else draw(st.integers(3, 5))
    if kind == "multilabel":
        density = draw(st.sampled_from([0.0, 0.2, 0.5, 0.9]))
        y = rng.random((n, n_classes)) < density
        pred_kind = draw(st.sampled_from(["noisy", "none", "all", "exact"]))
        if pred_kind == "noisy":
            p = y ^ (rng.random((n, n_classes)) < 0.3)
        elif pred_kind == "none":
            p = np.zeros_like(y)
        elif pred_kind == "all":
            p = np.ones_like(y)
        else:
            p = y.copy()
        y, p = y.astype(int), p.astype(int)
        labels = None
        if draw(st.booleans()):
            labels = sorted(
                rng.choice(n_classes, size=rng.integers(1, n_classes + 1), replace=False).tolist()
            )
    else:
        shape = draw(st.sampled_from(["uniform", "one_row_class", "absent", "constant_pred"]))
        y = rng.integers(0, n_classes, n)
        if shape == "one_row_class" and n > 1:
            y[y == n_classes - 1] = 0
            y[rng.integers(n)] = n_classes - 1
        p = np.where(rng.random(n) < 0.6, y, rng.integers(0, n_classes, n))
        if shape == "constant_pred":
            p[:] = draw(st.integers(0, n_classes - 1))
        if shape == "absent":  # the last class is predicted but never true
            y[y == n_classes - 1] = 0
        names = draw(st.sampled_from(["int", "str"]))
        labels = None
        if draw(st.booleans()):
            labels = list(range(n_classes + draw(st.integers(0, 1))))  # maybe an absent class
            rng.shuffle(labels)
            labels = labels[: draw(st.integers(1, len(labels)))]
        if names == "str":
            y = np.array([f"c{v}" for v in y])
            p = np.array([f"c{v}" for v in p])
            labels = None if labels is None else [f"c{v}" for v in labels]
    weights = None
    wkind = draw(st.sampled_from(["none", "integers", "fractional", "with_zeros"]))
    if wkind == "integers":
        weights = rng.integers(1, 4, n).astype(float)
    elif wkind == "fractional":
        weights = rng.random(n) * 3 + 0.01
    elif wkind == "with_zeros":
        weights = rng.random(n) * 3
        weights[rng.random(n) < 0.4] = 0.0
        weights[rng.integers(n)] = 1.0
    return Case(kind, y, p, weights, labels)


def _run(fn, *args, **kwargs):
    """(result or the exception, whether an UndefinedMetricWarning was raised)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args, **kwargs)
        except (ValueError, ZeroDivisionError, IndexError) as exc:
            result = exc
    undefined = any(type(w.message).__name__ == "UndefinedMetricWarning" for w in caught)
    return result, undefined


def _same(a, b) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict)
        assert list(a) == list(b)
        for key in a:
            _same(a[key], b[key])
        return
    if isinstance(a, tuple):
        assert isinstance(b, tuple)
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
        return
    if a is None or isinstance(a, str):
        assert a == b
        return
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


def check_equal(ours, theirs, *args, **kwargs) -> None:
    got, got_warned = _run(ours, *args, **kwargs)
    want, want_warned = _run(theirs, *args, **kwargs)
    if isinstance(want, Exception):
        assert isinstance(got, Exception), f"scikit-learn raised {want!r}; we returned {got!r}"
        return
    assert not isinstance(got, Exception), f"we raised {got!r}; scikit-learn gave {want!r}"
    _same(got, want)
    assert got_warned == want_warned, (
        f"UndefinedMetricWarning: ours {got_warned}, sklearn {want_warned}"
    )


PRF = [
    ("precision_score", {}),
    ("recall_score", {}),
    ("f1_score", {}),
    ("jaccard_score", {}),
]


@SETTINGS
@given(case=cases(), average=st.sampled_from(AVERAGES), zd=st.sampled_from(ZERO_DIVISIONS))
def test_precision_recall_f_jaccard_equal_sklearn(case, average, zd):
    kw = dict(average=average, zero_division=zd, sample_weight=case.weights, labels=case.labels)
    if case.kind == "binary" and case.y_true.dtype.kind == "U":
        kw["pos_label"] = "c1"
    for name, extra in PRF:
        if name == "jaccard_score" and zd is np.nan:
            continue  # scikit-learn's jaccard_score does not take NaN (ours does: see below)
        check_equal(getattr(mc, name), getattr(skm, name), case.y_true, case.y_pred, **kw, **extra)


@SETTINGS
@given(
    case=cases(),
    average=st.sampled_from(AVERAGES),
    zd=st.sampled_from(ZERO_DIVISIONS),
    beta=st.sampled_from([0.0, 0.5, 1.0, 2.0, np.inf]),
)
def test_precision_recall_fscore_support_equal_sklearn(case, average, zd, beta):
    kw = dict(
        average=average, zero_division=zd, sample_weight=case.weights, labels=case.labels, beta=beta
    )
    check_equal(
        mc.precision_recall_fscore_support,
        skm.precision_recall_fscore_support,
        case.y_true,
        case.y_pred,
        **kw,
    )
    if beta > 0:
        check_equal(mc.fbeta_score, skm.fbeta_score, case.y_true, case.y_pred, **kw)


@SETTINGS
@given(case=cases(), zd=st.sampled_from(ZERO_DIVISIONS), output_dict=st.booleans())
def test_label_scores_equal_sklearn(case, zd, output_dict):
    y, p, w = case.y_true, case.y_pred, case.weights
    for name in ("accuracy_score", "zero_one_loss"):
        for normalize in (True, False):
            check_equal(
                getattr(mc, name), getattr(skm, name), y, p, normalize=normalize, sample_weight=w
            )
    check_equal(mc.hamming_loss, skm.hamming_loss, y, p, sample_weight=w)
    for samplewise in (False, True):
        check_equal(
            mc.multilabel_confusion_matrix,
            skm.multilabel_confusion_matrix,
            y,
            p,
            sample_weight=w,
            labels=case.labels,
            samplewise=samplewise,
        )
    check_equal(
        mc.classification_report,
        skm.classification_report,
        y,
        p,
        labels=case.labels,
        sample_weight=w,
        output_dict=output_dict,
        zero_division=zd,
        digits=3,
    )
    if case.kind == "multilabel":
        return
    for normalize in (None, "true", "pred", "all"):
        check_equal(
            mc.confusion_matrix,
            skm.confusion_matrix,
            y,
            p,
            labels=case.labels,
            sample_weight=w,
            normalize=normalize,
        )
    for adjusted in (False, True):
        check_equal(
            mc.balanced_accuracy_score,
            skm.balanced_accuracy_score,
            y,
            p,
            sample_weight=w,
            adjusted=adjusted,
        )
    check_equal(mc.matthews_corrcoef, skm.matthews_corrcoef, y, p, sample_weight=w)
    for weights in (None, "linear", "quadratic"):
        check_equal(
            mc.cohen_kappa_score,
            skm.cohen_kappa_score,
            y,
            p,
            labels=case.labels,
            weights=weights,
            sample_weight=w,
        )
    for replace in (np.nan, 1.0, {"LR+": 5.0, "LR-": 0.5}):
        check_equal(
            mc.class_likelihood_ratios,
            skm.class_likelihood_ratios,
            y,
            p,
            sample_weight=w,
            replace_undefined_by=replace,
        )


@SETTINGS
@given(case=cases(kinds=("multilabel",)), average=st.sampled_from(AVERAGES))
def test_sparse_indicator_matrices_equal_dense(case, average):
    """scipy sparse indicator matrices are read like the dense ones (and like scikit-learn)."""
    dense = _run(mc.f1_score, case.y_true, case.y_pred, average=average, zero_division=0)[0]
    sparse = _run(
        mc.f1_score,
        sp.csr_matrix(case.y_true),
        sp.csr_array(case.y_pred),
        average=average,
        zero_division=0,
    )[0]
    if isinstance(dense, Exception):
        assert isinstance(sparse, Exception)
    else:
        _same(sparse, dense)
    check_equal(
        mc.precision_recall_fscore_support,
        skm.precision_recall_fscore_support,
        sp.csr_matrix(case.y_true),
        sp.csr_matrix(case.y_pred),
        average=average,
        zero_division=1,
    )


def test_warning_and_zero_division_branches_by_hand():
    """Every zero-division value on a case where precision and recall are both 0/0."""
    y = np.array([0, 0, 0, 0])
    p = np.array([0, 0, 0, 0])
    with pytest.warns(mc.UndefinedMetricWarning):
        assert mc.precision_score(y, p) == 0.0
    assert mc.precision_score(y, p, zero_division=1) == 1.0
    assert np.isnan(mc.precision_score(y, p, zero_division=np.nan))
    with pytest.warns(mc.UndefinedMetricWarning, match="F-score"):
        assert mc.f1_score(y, p) == 0.0
    with pytest.raises(ValueError, match="zero_division"):
        mc.f1_score(y, p, zero_division=0.5)


def test_micro_f1_equals_accuracy_for_single_label():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 4, 200)
    p = np.where(rng.random(200) < 0.5, y, rng.integers(0, 4, 200))
    assert mc.f1_score(y, p, average="micro") == pytest.approx(mc.accuracy_score(y, p), abs=1e-15)


def test_bad_inputs_say_what_is_wrong():
    with pytest.raises(ValueError, match="threshold the scores"):
        mc.f1_score([0, 1, 1], [0.2, 0.7, 0.9])
    with pytest.raises(ValueError, match="average='binary'"):
        mc.f1_score([0, 1, 2], [0, 1, 1])
    with pytest.raises(ValueError, match="same form"):
        mc.f1_score([[0, 1], [1, 0]], [1, 0], average="micro")
    with pytest.raises(ValueError, match="pos_label='x'"):
        mc.f1_score(["a", "b"], ["a", "b"], pos_label="x")
    with pytest.raises(ValueError, match="samples"):
        mc.f1_score([0, 1, 2], [0, 1, 1], average="samples")


# --- probabilities --------------------------------------------------------------------------


@st.composite
def probability_cases(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.sampled_from([2, 3, 7, 20]))
    k = draw(st.integers(2, 5))
    raw = rng.random((n, k)) ** draw(st.sampled_from([1.0, 4.0]))
    if draw(st.booleans()):
        raw[rng.random((n, k)) < 0.3] = 0.0  # exact zeros: the clipping
        raw[:, 0] += 1e-3
    proba = raw / raw.sum(axis=1, keepdims=True)
    y = rng.integers(0, k, n)
    labels = None
    if draw(st.booleans()):  # a class absent from y_true: labels= names it
        y[y == k - 1] = 0
        labels = list(range(k))
    w = None
    if draw(st.booleans()):
        w = rng.random(n) * 2
        w[rng.random(n) < 0.3] = 0.0
        w[0] = 1.0
    return y, proba, labels, w


@SETTINGS
@given(case=probability_cases())
def test_multiclass_log_loss_and_brier_equal_sklearn(case):
    y, proba, labels, w = case
    for normalize in (True, False):
        check_equal(
            mp.log_loss, skm.log_loss, y, proba, labels=labels, sample_weight=w, normalize=normalize
        )
    for scale in ("auto", True, False):
        check_equal(
            mp.brier_score_loss,
            skm.brier_score_loss,
            y,
            proba,
            labels=labels,
            sample_weight=w,
            scale_by_half=scale,
        )
    if proba.shape[1] == 2 and np.unique(y).size == 2:
        # One probability per row: the old binary functions give the same numbers.
        from metrics import calibration

        assert mp.log_loss(y, proba[:, 1], sample_weight=w) == pytest.approx(
            calibration.log_loss(y, proba[:, 1], sample_weight=w), abs=1e-15
        )
        assert mp.brier_score_loss(y, proba[:, 1], sample_weight=w) == pytest.approx(
            calibration.brier_score_loss(y, proba[:, 1], sample_weight=w), abs=1e-15
        )
        check_equal(mp.log_loss, skm.log_loss, y, proba[:, 1], sample_weight=w)
        check_equal(mp.brier_score_loss, skm.brier_score_loss, y, proba[:, 1], sample_weight=w)


def test_binary_losses_accept_what_the_old_ones_accept():
    from metrics import calibration

    y, p = ["no", "yes", "yes", "no"], [0.2, 0.9, 0.6, 0.4]
    assert mp.log_loss(y, p, pos_label="yes") == calibration.log_loss(y, p, pos_label="yes")
    assert mp.brier_score_loss(y, p, pos_label="yes") == calibration.brier_score_loss(
        y, p, pos_label="yes"
    )
    assert mp.log_loss(y, p) == pytest.approx(skm.log_loss(y, p), abs=1e-15)
    column = np.array(p)[:, None]  # one column is one probability per row, pos_label and all
    assert mp.log_loss(y, column, pos_label="no") == calibration.log_loss(y, p, pos_label="no")
    assert mp.brier_score_loss(y, column, pos_label="no") == calibration.brier_score_loss(
        y, p, pos_label="no"
    )
    with pytest.raises(ValueError, match="outside"):
        mp.log_loss([0, 1], [0.2, 1.2])


# --- ranking ----------------------------------------------------------------------------------


@st.composite
def label_score_matrices(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.sampled_from([1, 2, 5, 17]))
    k = draw(st.integers(2, 6))
    y = (rng.random((n, k)) < draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]))).astype(int)
    kind = draw(st.sampled_from(["continuous", "coarse", "tied"]))
    s = rng.random((n, k))
    if kind == "coarse":
        s = np.round(s * 3) / 3
    elif kind == "tied":
        s = np.full((n, k), 0.5)
    w = None
    if draw(st.booleans()):
        w = rng.random(n) * 2
        w[rng.random(n) < 0.3] = 0.0
        w[0] = 1.0
    return y, s, w


@SETTINGS
@given(case=label_score_matrices())
def test_ranking_metrics_equal_sklearn(case):
    y, s, w = case
    check_equal(mr.coverage_error, skm.coverage_error, y, s, sample_weight=w)
    check_equal(mr.label_ranking_loss, skm.label_ranking_loss, y, s, sample_weight=w)
    gains = y * np.arange(1, y.shape[1] + 1)
    for k in (None, 1, 2):
        for ignore_ties in (False, True):
            if ignore_ties and np.unique(s).size < s.size:
                continue  # arbitrary order of ties: not comparable
            check_equal(
                mr.dcg_score, skm.dcg_score, gains, s, k=k, sample_weight=w, ignore_ties=ignore_ties
            )
    check_equal(mr.dcg_score, skm.dcg_score, gains, s, log_base=10)


# --- thresholds ---------------------------------------------------------------------------------


@st.composite
def binary_scores(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.sampled_from([1, 2, 5, 20]))
    y = rng.integers(0, 2, n)
    s = rng.random(n)
    if draw(st.booleans()):
        s = np.round(s, 1)
    w = None
    if draw(st.booleans()):
        w = rng.random(n) * 2
        w[rng.random(n) < 0.3] = 0.0
    return y, s, w


@SETTINGS
@given(case=binary_scores())
def test_metric_at_thresholds_equal_sklearn(case):
    y, s, w = case
    for fn in (skm.accuracy_score, skm.balanced_accuracy_score):
        got = _run(mr.metric_at_thresholds, y, s, fn, sample_weight=w)[0]
        want = _run(skm.metric_at_thresholds, y, s, fn, sample_weight=w)[0]
        if isinstance(want, Exception):
            assert isinstance(got, Exception)
            continue
        _same(got, want)
    got = mr.metric_at_thresholds(
        y,
        s,
        skm.precision_recall_fscore_support,
        metric_params={"zero_division": 0, "average": "binary"},
    )
    want = skm.metric_at_thresholds(
        y,
        s,
        skm.precision_recall_fscore_support,
        metric_params={"zero_division": 0, "average": "binary"},
    )
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_allclose(got[0].astype(float), want[0].astype(float), equal_nan=True)


@SETTINGS
@given(case=binary_scores())
def test_confusion_matrix_at_thresholds_equal_sklearn(case):
    """The existing metrics.curves function, checked against scikit-learn 1.8+'s."""
    y, s, w = case
    if np.unique(y).size < 2 or (w is not None and not np.any(w)):
        return  # scikit-learn refuses weights that are all zero
    got = curves.confusion_matrix_at_thresholds(y, s, sample_weight=w)
    want = skm.confusion_matrix_at_thresholds(y, s, sample_weight=w)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    labels = np.where(y == 1, "spam", "ham")
    got = curves.confusion_matrix_at_thresholds(labels, s, pos_label="spam", sample_weight=w)
    want = skm.confusion_matrix_at_thresholds(labels, s, pos_label="spam", sample_weight=w)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("pos_label", [2, 5])  # a third class in y_true; a label not in it
def test_confusion_matrix_at_thresholds_multiclass_with_pos_label(pos_label):
    y, s = [0, 1, 2, 2, 1], [0.1, 0.5, 0.3, 0.9, 0.2]
    got = curves.confusion_matrix_at_thresholds(y, s, pos_label=pos_label)
    want = skm.confusion_matrix_at_thresholds(y, s, pos_label=pos_label)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
