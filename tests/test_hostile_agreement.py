"""Agreement data as an attacker sends it (issue 50 §6): a long table of judgements with one
annotator's millions of rows, an item with 10,000 annotators, ids and labels that are HTML or
markdown; through the library (metrics.agreement) and the Data page.

The fast bootstrap (multinomial counts of each reference's per-item outcomes) is checked
against the slow one it replaces (drawing item indices) on seeded shapes; the bounds refuse a
table past them in one sentence before allocating it; the page shows ids as text."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics._bounds import MAX_KAPPA_ANNOTATORS, MAX_RATING_CELLS
from metrics.agreement import (
    annotator_agreement,
    fleiss_kappa,
    krippendorff_alpha,
    ratings_from_long,
    score_against_annotators,
)
from tests.apptest_utils import open_page, upload_frame
from tests.strategies import examples


def _slow_intervals(r, pred, n_resamples, seed, alpha=0.025):
    """The percentile bootstrap by drawing n item indices per resample (the old code's way)."""
    report = annotator_agreement(r)
    refs = []
    for i in range(r.shape[1]):
        ok = ~np.isnan(r[:, i])
        refs.append((np.where(ok, (r[:, i] == 1) == pred, 0.0), ok))
    rated = ~np.isnan(report.share)
    refs.append(((report.majority == pred) & rated, rated))
    refs.append((np.where(rated, np.where(pred, report.share, 1 - report.share), 0.0), rated))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, r.shape[0], size=(n_resamples, r.shape[0]))
    out = []
    for correct, ok in refs:
        with np.errstate(invalid="ignore", divide="ignore"):
            reps = correct.astype(float)[draws].sum(axis=1) / ok.astype(float)[draws].sum(axis=1)
        reps = reps[np.isfinite(reps)]
        out.append(tuple(np.quantile(reps, [alpha, 1 - alpha])) if reps.size else (np.nan,) * 2)
    return out


@pytest.mark.parametrize(
    ("n", "k", "missing", "seed"),
    [(300, 3, 0.0, 0), (200, 5, 0.3, 1), (150, 12, 0.6, 2), (400, 2, 0.1, 3)],
)
def test_the_fast_bootstrap_draws_what_drawing_items_draws(n, k, missing, seed):
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.4
    r = np.where(rng.random((n, k)) < 0.2, ~truth[:, None], truth[:, None]).astype(float)
    r[rng.random((n, k)) < missing] = np.nan
    pred = truth ^ (rng.random(n) < 0.15)
    fast = score_against_annotators(r, pred, n_resamples=4000, seed=seed)
    slow = _slow_intervals(r, pred, 4000, seed + 100)
    for (name, _, low, high), (want_low, want_high) in zip(fast.rows, slow, strict=True):
        rated = n if name in ("majority", "soft label") else int((~np.isnan(r)).sum() / k)
        step = 1.5 / max(rated, 1) + 0.01  # a quantile of a discrete distribution, 4,000 draws
        assert low == pytest.approx(want_low, abs=step), name
        assert high == pytest.approx(want_high, abs=step), name


def test_ten_thousand_annotators_of_one_item_are_agreement_not_fifty_million_pairs():
    k = 10_000
    items = np.repeat(["q1", "q2", "q3"], k)
    annotators = np.tile(np.arange(k), 3)
    labels = np.r_[np.ones(k), np.zeros(k), np.arange(k) % 2]
    long = ratings_from_long(items, annotators, labels)
    assert long.ratings.shape == (3, k)
    report = annotator_agreement(long.ratings)
    assert report.cohen_kappa == {}  # past MAX_KAPPA_ANNOTATORS: Fleiss and Krippendorff say it
    assert report.fleiss_kappa == pytest.approx(fleiss_kappa(long.ratings))
    assert report.krippendorff_alpha == pytest.approx(krippendorff_alpha(long.ratings))
    scores = score_against_annotators(long.ratings, np.array([True, False, True]))
    assert len(scores.rows) == k + 2
    assert [name for name, *_ in scores.rows[-2:]] == ["majority", "soft label"]


def test_one_annotator_with_millions_of_judgements_and_a_few_others():
    n = 1_000_000
    rng = np.random.default_rng(0)
    heavy = rng.integers(0, 2, n).astype(float)
    r = np.c_[heavy, np.full(n, np.nan)]
    r[:50, 1] = heavy[:50]  # the second annotator labelled 50 items
    scores = score_against_annotators(r, heavy.astype(bool), n_resamples=200)
    rows = {name: (acc, low, high) for name, acc, low, high in scores.rows}
    assert rows["annotator 1"] == (1.0, 1.0, 1.0)
    assert rows["annotator 2"] == (1.0, 1.0, 1.0)


@given(st.data())
@settings(max_examples=examples(20), deadline=None)
def test_a_long_table_too_big_to_pivot_is_one_sentence_before_any_table(data):
    # just past the bound (at most twice it, so a broken guard allocates 320 MB, not 80 GB)
    n_items = data.draw(st.integers(200, 100_000), label="items")
    least = MAX_RATING_CELLS // n_items + 1
    n_annotators = data.draw(st.integers(least, max(least, 2 * MAX_RATING_CELLS // n_items)))
    # the fewest rows that make so many items and annotators: a diagonal
    rows = max(n_items, n_annotators)
    items = np.arange(rows) % n_items
    annotators = np.arange(rows) % n_annotators
    tracemalloc.start()
    with pytest.raises(ValueError, match=r"more than the bound of 20,000,000 \(160 MB\)"):
        ratings_from_long(items, annotators, np.ones(rows))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 40 * rows + 10_000_000  # the ids' sorts, never the table


def test_names_must_match_the_annotators():
    with pytest.raises(ValueError, match="names has 1 names but ratings has 2 annotators"):
        score_against_annotators([[0, 1], [1, 1]], [1, 0], names=["only one"])


def test_the_data_page_shows_html_ids_as_text_and_says_why_no_pairwise_kappa():
    """150 annotators (past the pairwise bound) of four items whose ids are HTML and markdown:
    the page draws the agreement, names the ids only in tables and escaped text, and says
    why Cohen's kappa is not given for each pair."""
    k = MAX_KAPPA_ANNOTATORS + 50
    rng = np.random.default_rng(3)
    items = ["<script>alert(1)</script>", "**bold**", "[x](javascript:alert(1))", "<img src=x>"]
    frame = pd.DataFrame(
        {
            "item_id": np.repeat(items, k),
            "annotator": np.tile([f"<b>a{j}</b>" for j in range(k)], len(items)),
            "label": rng.integers(0, 2, len(items) * k),
            "model": np.repeat([0.2, 0.7, 0.9, 0.4], k),
        }
    )
    at = upload_frame(open_page("pages/data.py"), frame, "judgements.csv")
    at.switch_page("pages/data.py").run()
    assert not at.exception, at.exception
    for el in [*at.markdown, *at.caption, *at.info, *at.warning, *at.error]:
        for raw in ("<script", "<b>", "<img", "](javascript"):
            assert raw not in el.value.replace("\\<", "").replace("\\]", ""), el.value
    stats = next(d.value for d in at.dataframe if "statistic" in d.value.columns)
    said = dict(zip(stats["statistic"], stats["what it says"], strict=True))
    assert (
        f"given for up to {MAX_KAPPA_ANNOTATORS} annotators" in said["Cohen's kappa for each pair"]
    )
    table = next(d.value for d in at.dataframe if "against" in d.value.columns)
    assert len(table) == k + 2
    assert "annotator <b>a0</b>" in set(table["against"])  # the id as text, in a table
    # a judgement given twice: the sentence names the HTML ids, escaped
    upload_frame(at, pd.concat([frame, frame.iloc[:1]]), "twice.csv")
    at.switch_page("pages/data.py").run()
    assert not at.exception, at.exception
    (said,) = [i.value for i in at.info if "labelled item" in i.value]
    assert "\\<b\\>a0\\</b\\>" in said.replace("\\\\", "\\")
    assert "\\<script\\>" in said
