"""Agreement between annotators (metrics.agreement), checked against the reference packages:
statsmodels' fleiss_kappa, the krippendorff package's nominal alpha, scikit-learn's
cohen_kappa_score; and the ceiling against a slow count over annotator pairs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.agreement import (
    annotator_agreement,
    fleiss_kappa,
    krippendorff_alpha,
    score_against_annotators,
)
from tests.strategies import examples

krippendorff = pytest.importorskip("krippendorff")
sk_metrics = pytest.importorskip("sklearn.metrics")


@st.composite
def ratings_tables(draw, missing: bool = False, categories: int = 2):
    n = draw(st.integers(2, 40))
    k = draw(st.integers(2, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    truth = rng.integers(0, categories, n)
    noise = draw(st.sampled_from([0.0, 0.2, 0.5]))
    r = np.where(rng.random((n, k)) < noise, rng.integers(0, categories, (n, k)), truth[:, None])
    r = r.astype(float)
    if missing:
        r[rng.random((n, k)) < 0.25] = np.nan
    if np.unique(r[~np.isnan(r)]).size < 2:  # both references need two categories
        r[0, 0], r[0, 1] = 0.0, 1.0
    return r


@settings(max_examples=examples(80), deadline=None)
@given(ratings_tables(categories=3))
def test_fleiss_equals_statsmodels(r):
    # statsmodels is imported here, not at collection: 1.5 s of a worker that may not run this
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    table, _ = inter_rater.aggregate_raters(r.astype(int))
    assert fleiss_kappa(r) == pytest.approx(inter_rater.fleiss_kappa(table), abs=1e-12)


@settings(max_examples=examples(80), deadline=None)
@given(ratings_tables(missing=True, categories=3))
def test_krippendorff_equals_the_package(r):
    got = krippendorff_alpha(r)
    if not ((~np.isnan(r)).sum(axis=1) >= 2).any():  # the package refuses: nothing pairable
        assert np.isnan(got)
        return
    want = krippendorff.alpha(reliability_data=r.T, level_of_measurement="nominal")
    assert got == pytest.approx(want, abs=1e-12) or (np.isnan(got) and np.isnan(want))


@settings(max_examples=examples(40), deadline=None)
@given(ratings_tables())
def test_cohen_for_every_pair_equals_scikit_learn(r):
    report = annotator_agreement(r)
    for (i, j), kappa in report.cohen_kappa.items():
        with np.errstate(invalid="ignore", divide="ignore"):
            want = sk_metrics.cohen_kappa_score(r[:, i], r[:, j])
        assert kappa == pytest.approx(want, abs=1e-12) or (np.isnan(kappa) and np.isnan(want))


@settings(max_examples=examples(40), deadline=None)
@given(ratings_tables(missing=True))
def test_pair_agreement_and_ceiling_by_counting(r):
    report = annotator_agreement(r)
    pairs, ceilings = [], []
    for row in r:
        seen = row[~np.isnan(row)]
        if seen.size >= 2:  # every ordered pair of two different annotators
            same = [a == b for a, b in itertools.permutations(seen, 2)]
            pairs.append(np.mean(same))
        if seen.size:
            q = seen.mean()
            # the best single guess against one annotator drawn at random
            ceilings.append(max(q, 1 - q))
    assert report.pair_agreement == pytest.approx(np.mean(pairs) if pairs else np.nan, nan_ok=True)
    assert report.ceiling == pytest.approx(np.mean(ceilings))


def test_scores_against_annotators_never_beat_the_ceiling_in_expectation():
    rng = np.random.default_rng(1)
    truth = rng.random(400) < 0.4
    r = np.where(rng.random((400, 5)) < 0.2, ~truth[:, None], truth[:, None]).astype(float)
    report = annotator_agreement(r)
    best = score_against_annotators(r, report.majority, n_resamples=300)
    soft = dict((name, (acc, lo, hi)) for name, acc, lo, hi in best.rows)["soft label"]
    assert soft[0] == pytest.approx(report.ceiling)  # the majority reaches the ceiling exactly
    model = score_against_annotators(r, truth ^ (rng.random(400) < 0.1), n_resamples=300)
    rows = {name: (acc, lo, hi) for name, acc, lo, hi in model.rows}
    assert rows["soft label"][0] < report.ceiling
    for name, (acc, lo, hi) in rows.items():
        assert lo <= acc <= hi, name
    assert set(rows) == {*(f"annotator {i}" for i in range(1, 6)), "majority", "soft label"}


def test_bad_input_gets_one_sentence():
    with pytest.raises(ValueError, match="needs every item rated by every annotator"):
        fleiss_kappa([[0, 1], [1, np.nan]])
    with pytest.raises(ValueError, match="at least two annotators"):
        krippendorff_alpha([[0], [1]])
    with pytest.raises(ValueError, match="must be 0 or 1"):
        annotator_agreement([[0, 2], [1, 1]])
    with pytest.raises(ValueError, match="one prediction per item"):
        score_against_annotators([[0, 1], [1, 1]], [1, 0, 1])


@settings(max_examples=examples(60), deadline=None)
@given(ratings_tables(missing=True), st.integers(0, 2**32 - 1))
def test_a_long_table_gives_the_wide_ratings(r, seed):
    """The wide table melted into (item, annotator, label) rows in a random order, missing
    cells dropped, comes back as the same ratings (pandas' pivot is the reference) and the same
    Krippendorff's alpha."""
    import pandas as pd

    from metrics.agreement import ratings_from_long

    n, k = r.shape
    items = np.repeat([f"item{i:03d}" for i in range(n)], k)
    annotators = np.tile([f"rater{j}" for j in range(k)], n)
    labels = r.reshape(-1)
    keep = ~np.isnan(labels)
    order = np.random.default_rng(seed).permutation(int(keep.sum()))
    long = pd.DataFrame({"item": items[keep], "annotator": annotators[keep], "label": labels[keep]})
    long = long.iloc[order]
    got = ratings_from_long(long["item"], long["annotator"], long["label"])
    want = long.pivot(index="item", columns="annotator", values="label")
    np.testing.assert_array_equal(got.items, want.index.to_numpy())
    np.testing.assert_array_equal(got.annotators, want.columns.to_numpy())
    np.testing.assert_array_equal(got.ratings, want.to_numpy(dtype=float))
    rated = ~np.isnan(r).all(axis=1)  # an item nobody labelled has no row in the long table
    cols = ~np.isnan(r).all(axis=0)
    if got.ratings.shape[1] >= 2 and np.unique(r[~np.isnan(r)]).size >= 2:
        assert krippendorff_alpha(got.ratings) == pytest.approx(
            krippendorff_alpha(r[rated][:, cols]), abs=1e-12, nan_ok=True
        )


def test_a_long_table_with_a_label_given_twice_says_which():
    from metrics.agreement import ratings_from_long

    with pytest.raises(ValueError, match=r"Annotator 'ann' labelled item 'x' 2 times"):
        ratings_from_long(["x", "x", "y"], ["ann", "ann", "ann"], [1, 0, 1])
    with pytest.raises(ValueError, match="one value per row"):
        ratings_from_long(["x"], ["a", "b"], [1, 0])
