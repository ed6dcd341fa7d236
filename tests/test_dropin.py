"""The drop-in cases scikit-learn's own suites found (issue 51 §5), on generated inputs: we
refuse what scikit-learn refuses and agree where both compute. scikit-learn's test files
themselves run in ``test_sklearn_ranking_suite.py`` and ``test_sklearn_classification_suite.py``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics
from tests.strategies import examples


def _outcome(fn, *args, **kwargs):
    """("value", result) or ("error", exception)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "value", fn(*args, **kwargs)
        except (ValueError, TypeError, NotImplementedError) as error:
            return "error", error


@st.composite
def _multiclass_auc_calls(draw):
    n_classes = draw(st.integers(3, 5))
    n = draw(st.integers(n_classes, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    # Every class present: where one is absent the two conventions differ on purpose (ours
    # leaves its NaN out of the average), which the suite's ON_PURPOSE list records.
    y = rng.permutation(np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n)]))
    scores = rng.dirichlet(np.ones(n_classes), size=y.size)
    names = np.array(["ant", "bee", "cat", "dog", "eel"][:n_classes])
    if draw(st.booleans()):
        y = names[y]
    classes = np.unique(y).tolist()
    labels = draw(
        st.sampled_from([None, classes, classes[::-1], [*classes[:-1], classes[0]], classes[:-1]])
    )
    kwargs = {"labels": labels}
    multi_class = draw(st.sampled_from([None, "ovr", "ovo"]))
    if multi_class is not None:
        kwargs["multi_class"] = multi_class
    kwargs["average"] = draw(st.sampled_from(["macro", "weighted", "micro", "samples", None]))
    if draw(st.booleans()):
        kwargs["max_fpr"] = 0.5
    return y, scores, kwargs


@settings(max_examples=examples(120), deadline=None)
@given(call=_multiclass_auc_calls())
def test_multiclass_roc_auc_refuses_what_scikit_learn_refuses(call):
    """Unsorted or repeated labels, a missing multi_class, 'samples', max_fpr and ovo with
    average=None: refused by both (NotImplementedError where scikit-learn raises it); every
    other call gives scikit-learn's value."""
    y, scores, kwargs = call
    ours = _outcome(metrics.roc_auc_score, y, scores, **kwargs)
    theirs = _outcome(skm.roc_auc_score, y, scores, **kwargs)
    assert ours[0] == theirs[0], (kwargs, ours, theirs)
    if ours[0] == "error":
        assert isinstance(ours[1], ValueError), ours
        if isinstance(theirs[1], NotImplementedError):
            assert isinstance(ours[1], NotImplementedError)
    else:
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-15)


@settings(max_examples=examples(60), deadline=None)
@given(
    n=st.integers(1, 30),
    n_classes=st.integers(2, 4),
    dtype=st.sampled_from([np.bool_, np.int32, np.int64, np.uint32, np.uint64]),
    big=st.booleans(),
    seed=st.integers(0, 2**16),
)
@pytest.mark.filterwarnings("ignore:Only one label occurs")
def test_integer_weights_are_summed_as_scikit_learn_sums_them(n, n_classes, dtype, big, seed):
    """int64 sums, exact past 2**53 and wrapping past 2**63 - 1, as scikit-learn's."""
    rng = np.random.default_rng(seed)
    y, p = rng.integers(0, n_classes, n), rng.integers(0, n_classes, n)
    top = 1 if dtype is np.bool_ else int(np.iinfo(dtype).max)
    high = top if big else min(top, 10)
    draw_as = np.uint64 if dtype is np.uint64 else np.int64
    w = rng.integers(0, high, n, endpoint=True, dtype=draw_as)
    w[0] = max(w[0], 1)  # scikit-learn refuses weights that are all zero
    w = w.astype(dtype)
    ours = metrics.confusion_matrix(y, p, sample_weight=w)
    theirs = skm.confusion_matrix(y, p, sample_weight=w)
    assert ours.dtype == theirs.dtype == np.int64
    np.testing.assert_array_equal(ours, theirs)


@settings(max_examples=examples(40), deadline=None)
@given(
    n=st.integers(2, 25),
    n_classes=st.integers(2, 4),
    form=st.sampled_from(["column", "one-hot"]),
    seed=st.integers(0, 2**16),
)
def test_probability_losses_take_y_true_as_a_column_or_one_hot(n, n_classes, form, seed):
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n)]))
    proba = rng.dirichlet(np.ones(n_classes), size=y.size)
    truth = y[:, None] if form == "column" else np.eye(n_classes, dtype=int)[y]
    for name in ("log_loss", "brier_score_loss"):
        ours = getattr(metrics, name)(truth, proba)
        theirs = getattr(skm, name)(truth, proba)
        assert ours == pytest.approx(theirs, rel=1e-12), name


def test_log_loss_takes_y_pred_by_keyword_with_the_future_warning():
    y, p = [0, 1, 1, 0], [0.1, 0.9, 0.8, 0.35]
    with pytest.warns(FutureWarning, match="renamed to `y_proba`"):
        assert metrics.log_loss(y, y_pred=p) == metrics.log_loss(y, p)
    with pytest.raises(ValueError, match="Cannot use both"):
        metrics.log_loss(y, y_pred=p, y_proba=p)


@pytest.mark.parametrize("labels", [[b"a", b"b", b"a"], np.array([b"a", b"b", b"a"])])
def test_bytes_labels_without_pos_label_are_a_type_error(labels):
    with pytest.raises(TypeError, match="decode them"):
        metrics.roc_curve(labels, [0.2, 0.9, 0.4])
    # With pos_label they name their positive class, and the curve is the decoded one's.
    fpr, tpr, _ = metrics.roc_curve(labels, [0.2, 0.9, 0.4], pos_label=b"b")
    want = metrics.roc_curve(["a", "b", "a"], [0.2, 0.9, 0.4], pos_label="b")
    np.testing.assert_array_equal(fpr, want[0])
    np.testing.assert_array_equal(tpr, want[1])
