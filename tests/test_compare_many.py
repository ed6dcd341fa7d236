"""Three or more models on Compare: ui.analyses.compare_many against references (scipy's Friedman, the
binomial and chi-square tests, scikit-learn's AUC per user, a brute-force check of the letters
and of the diagram's bars), and the page section on grouped and ungrouped data."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as ss
import sklearn.metrics as skm
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import metrics
from tests.apptest_utils import figures, markdown_text, open_page, upload_frame
from tests.strategies import examples
from ui.analyses import compare_many as cm
from ui.figures import rank_charts

SETTINGS = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


# --- slow, obviously correct references ----------------------------------------------------------


def holm_by_loop(p):
    """Holm's step-down, written out: sort, scale the j-th smallest by m - j + 1, keep the
    running maximum, cap at 1."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for j, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - j) * p[i]))
        out[i] = running
    return out


def cliques_by_brute_force(ranks, cd):
    """Every run (i, j), i < j, of the sorted ranks spanning at most cd, that no longer such
    run contains. "At most" up to round-off (1e-12), as the diagram joins them: 1.1 - 1.0 is
    0.10000000000000009, within a CD of 0.1 (a draw CI met)."""
    r = sorted(ranks)
    runs = [
        (i, j) for i in range(len(r)) for j in range(i + 1, len(r)) if r[j] - r[i] <= cd + 1e-12
    ]
    return sorted(
        (i, j) for i, j in runs if not any(a <= i and j <= b and (a, b) != (i, j) for a, b in runs)
    )


@st.composite
def significance(draw):
    k = draw(st.integers(2, 8))
    cells = draw(st.lists(st.booleans(), min_size=k * (k - 1) // 2, max_size=k * (k - 1) // 2))
    sig = np.zeros((k, k), dtype=bool)
    for (i, j), v in zip(itertools.combinations(range(k), 2), cells, strict=True):
        sig[i, j] = sig[j, i] = v
    order = draw(st.permutations(list(range(k))))
    return sig, list(order)


# --- letters -------------------------------------------------------------------------------------


@SETTINGS
@given(significance())
def test_letters_share_exactly_the_non_significant_pairs(case):
    sig, order = case
    letters = cm.compact_letters(sig, order)
    k = sig.shape[0]
    assert all(letters), "every model gets at least one letter"
    for i, j in itertools.combinations(range(k), 2):
        share = bool(set(letters[i]) & set(letters[j]))
        assert share == (not sig[i, j]), (i, j, letters)
    # The first model of ``order`` carries "a".
    assert "a" in letters[order[0]]


def test_letters_known_cases():
    none = np.zeros((4, 4), dtype=bool)
    assert cm.compact_letters(none) == ["a", "a", "a", "a"]
    every = ~np.eye(4, dtype=bool)
    assert cm.compact_letters(every) == ["a", "b", "c", "d"]
    # A chain: 0 ~ 1 ~ 2 but 0 differs from 2.
    chain = np.zeros((3, 3), dtype=bool)
    chain[0, 2] = chain[2, 0] = True
    assert cm.compact_letters(chain) == ["a", "ab", "b"]
    assert cm.compact_letters(chain, [2, 1, 0]) == ["b", "ab", "a"]
    with pytest.raises(ValueError, match="symmetric"):
        cm.compact_letters(np.triu(every))
    many = ~np.eye(30, dtype=bool)
    assert cm.compact_letters(many)[26:28] == ["aa", "ab"]


# --- blocks, Friedman, the rank pairs ------------------------------------------------------------


def grouped_scores(seed=0, users=25, per_user=40, models=3):
    rng = np.random.default_rng(seed)
    user = np.repeat(np.arange(users), per_user)
    y = (rng.random(user.size) < 0.3).astype(int)
    y[user == 0] = 0  # one user with negatives only
    y[user == 1] = 1  # one with positives only
    scores = {f"m{k}": rng.normal(size=user.size) + (0.3 * k) * y for k in range(models)}
    return y, scores, user


def test_user_blocks_are_each_users_auc_and_skip_one_class_users():
    y, scores, user = grouped_scores()
    blocks = cm.group_blocks(y, scores, user, name="user_id")
    assert blocks.kind == cm.USERS
    assert blocks.skipped == 2
    assert "2 with one class only" in blocks.skipped_reason
    assert blocks.labels.tolist() == list(range(2, 25))
    for row, u in zip(blocks.table, blocks.labels, strict=True):
        mask = user == u
        want = [skm.roc_auc_score(y[mask], s[mask]) for s in scores.values()]
        np.testing.assert_allclose(row, want, rtol=1e-12)
    sliced = cm.group_blocks(y, scores, user, kind=cm.SLICES, name="u", min_rows=41)
    assert sliced.table.shape[0] == 0
    assert "fewer than 41 rows" in sliced.skipped_reason


def test_resample_blocks_drop_undefined_resamples():
    r = np.array([[0.9, 0.8, 0.7], [np.nan, 0.5, 0.5], [0.7, 0.8, 0.9]])
    b = cm.resample_blocks(r, ("a", "b", "c"), 100)
    assert b.table.tolist() == [[0.9, 0.8, 0.7], [0.7, 0.8, 0.9]]
    assert b.labels.tolist() == [1, 3]
    assert b.skipped == 1
    with pytest.raises(ValueError, match="one column per model"):
        cm.resample_blocks(r, ("a", "b"), 100)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(3, 6), st.integers(2, 15), st.booleans())
@example(17, 6, 13, False)  # a p-value of 1.2e-7: 1 - Phi(z) lost 8 digits to cancellation
def test_analysis_equals_scipy_and_rank_pairs_follow_their_formula(seed, k, n, ties):
    rng = np.random.default_rng(seed)
    t = rng.normal(size=(n, k)) + rng.normal(size=k)
    if ties:
        t = np.round(t)
        t[0] = np.arange(k)  # not every block one big tie
    models = tuple(f"model {i}" for i in range(k))
    blocks = cm.Blocks(cm.SLICES, "s", np.arange(n), t, models, 0, "", np.ones(n))
    a = cm.analyse(blocks)
    theirs = ss.friedmanchisquare(*t.T)
    assert a.friedman.statistic == pytest.approx(theirs.statistic, rel=1e-10, abs=1e-12)
    assert a.friedman.p_value == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-14)
    mean_rank = ss.rankdata(-t, axis=1).mean(axis=0)
    got = a.ranks.set_index("model")
    np.testing.assert_allclose(got.loc[list(models), "mean rank"], mean_rank, atol=1e-12)
    np.testing.assert_allclose(got.loc[list(models), "mean AUC"], t.mean(axis=0))
    assert got["blocks best (ties shared)"].sum() == pytest.approx(n)
    assert list(a.ranks["mean rank"]) == sorted(a.ranks["mean rank"])
    pairs = cm.rank_pairs(a)
    se = math.sqrt(k * (k + 1) / (6 * n))
    p = []
    for (i, j), row in zip(itertools.combinations(range(k), 2), pairs.itertuples(), strict=True):
        z = (mean_rank[i] - mean_rank[j]) / se
        assert row.z == pytest.approx(z, abs=1e-10)
        assert row.better == (models[i] if z < 0 else models[j] if z > 0 else "neither")
        p.append(2 * ss.norm.sf(abs(z)))
    np.testing.assert_allclose(pairs["p-value"], p, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(pairs["Holm p"], holm_by_loop(p), rtol=1e-9, atol=1e-15)
    assert (pairs["different at 5%"] == (pairs["Holm p"] < 0.05)).all()
    # The letters agree with the pairs they come from.
    table = cm.letters_table(a.ranks, pairs, models)
    letters = dict(zip(table["model"], table["letters"], strict=True))
    for row in pairs.to_dict("records"):
        share = bool(set(letters[row["model A"]]) & set(letters[row["model B"]]))
        assert share == (not row["different at 5%"])


def test_analysis_needs_two_blocks():
    b = cm.Blocks(cm.USERS, "u", np.arange(1), np.ones((1, 3)), ("a", "b", "c"), 0, "", np.ones(1))
    with pytest.raises(ValueError, match="at least 2 blocks"):
        cm.analyse(b)


def test_page_pairs_orient_each_pair_and_adjust_across_them():
    pairs = pd.DataFrame(
        {
            "metric": ["AUC"] * 3,
            "model A": ["b", "a", "a"],
            "model B": ["c", "c", "b"],
            "A − B": [0.02, 0.05, 0.03],
            "p-value": [0.04, 0.001, 0.03],
            "test": ["DeLong"] * 3,
        }
    )
    got = cm.page_pairs(pairs, ("a", "b", "c"))
    assert list(zip(got["model A"], got["model B"], strict=True)) == [
        ("a", "b"),
        ("a", "c"),
        ("b", "c"),
    ]
    assert got["AUC A − AUC B"].tolist() == [0.03, 0.05, 0.02]
    assert got["better"].tolist() == ["a", "a", "b"]
    np.testing.assert_allclose(got["Holm p"], holm_by_loop([0.03, 0.001, 0.04]))
    with pytest.raises(ValueError, match="misses 1 pair"):
        cm.page_pairs(pairs.iloc[:2], ("a", "b", "c"))


# --- McNemar -------------------------------------------------------------------------------------


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(5, 400), st.integers(3, 5))
def test_mcnemar_pairs_against_counting_and_scipy(seed, n, k):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    scores = {f"m{i}": np.round(rng.random(n) + 0.4 * i * y, 1) for i in range(k)}
    chosen = {m: float(rng.choice([0.3, 0.5, 0.8])) for m in scores}
    got = cm.mcnemar_pairs(y, scores, chosen)
    for row in got.to_dict("records"):
        pa = scores[row["model A"]] >= chosen[row["model A"]]
        pb = scores[row["model B"]] >= chosen[row["model B"]]
        b = int(np.sum((pa == y) & (pb != y)))
        c = int(np.sum((pb == y) & (pa != y)))
        assert (row["only A right"], row["only B right"]) == (b, c)
        assert row["better"] == (
            row["model A"] if b > c else row["model B"] if c > b else "neither"
        )
        if b + c < cm.EXACT_BELOW:
            assert row["test"] == "exact"
            want = 1.0 if b + c == 0 else ss.binomtest(b, b + c, 0.5).pvalue
        else:
            assert row["test"] == "chi-square (cc)"
            want = ss.chi2.sf((abs(b - c) - 1) ** 2 / (b + c) if b != c else 0.0, 1)
        assert row["p-value"] == pytest.approx(want, rel=1e-9, abs=1e-14)
    np.testing.assert_allclose(got["Holm p"], holm_by_loop(list(got["p-value"])), atol=1e-15)


# --- the critical-difference diagram -------------------------------------------------------------


@SETTINGS
@given(
    st.lists(st.floats(1, 8, allow_nan=False), min_size=2, max_size=9),
    st.floats(0, 4, allow_nan=False),
)
@example([1.0, 1.1], 0.1)  # 1.1 - 1.0 > 0.1 in doubles: joined, as the diagram joins them
def test_cd_cliques_are_the_maximal_runs_within_cd(ranks, cd):
    ranks = [round(r, 3) for r in ranks]  # ties in the ranks, as mean ranks often have
    assert rank_charts.cd_cliques(np.array(ranks), cd) == cliques_by_brute_force(ranks, cd)


def test_cd_figure_hangs_every_model_at_its_rank_and_draws_the_bars():
    t = np.array([[0.9, 0.89, 0.7, 0.6], [0.8, 0.82, 0.75, 0.5], [0.85, 0.84, 0.6, 0.7]] * 3)
    models = ("alpha", "beta", "gamma", "delta")
    a = cm.analyse(cm.Blocks(cm.SLICES, "s", np.arange(9), t, models, 0, "", np.ones(9)))
    fig = rank_charts.cd_figure(a.friedman, a.blocks.models)
    hanging = {tr.name: tr.x[0] for tr in fig.data if tr.name in models}
    assert hanging == pytest.approx(dict(zip(models, a.friedman.average_ranks, strict=True)))
    bars = [tr for tr in fig.data if tr.name == "not significantly different"]
    cliques = rank_charts.cd_cliques(a.friedman.average_ranks, a.friedman.critical_difference)
    assert len(bars) == len(cliques) >= 1
    texts = [an.text for an in fig.layout.annotations]
    assert f"CD = {a.friedman.critical_difference:.3f}" in texts
    assert any(x.startswith("alpha<br>(") for x in texts)  # the name over its mean rank
    # The best model's name sits left of the axis, the worst's right of it.
    order = np.argsort(a.friedman.average_ranks)
    left = next(an for an in fig.layout.annotations if an.text.startswith(models[order[0]]))
    right = next(an for an in fig.layout.annotations if an.text.startswith(models[order[-1]]))
    assert left.x < 1 < 4 < right.x


def test_explain_lines_carry_the_numbers():
    y, scores, user = grouped_scores(3)
    a = cm.analyse(cm.group_blocks(y, scores, user))
    lines = cm.friedman_lines(a)
    assert f"{a.friedman.statistic:.4g}" in lines[0]
    assert cm.tex_p(a.iman_davenport.p_value) in lines[2]
    assert cm.tex_p(a.friedman.p_value) in lines[1]
    # C, the ties correction, is the uncorrected statistic over the corrected one.
    n, k = a.friedman.n_blocks, a.friedman.n_models
    plain = 12 * n / (k * (k + 1)) * (np.sum(a.friedman.average_ranks**2) - k * (k + 1) ** 2 / 4)
    assert f"/ {plain / a.friedman.statistic:.4g} =" in lines[0]
    assert f"{a.friedman.critical_difference:.4g}" in cm.nemenyi_lines(a)[0]
    pairs = cm.rank_pairs(a)
    assert f"{pairs['z'].iloc[0]:.4g}" in cm.rank_pair_lines(a, pairs)[0]
    mc = cm.mcnemar_pairs(y, scores, {m: 0.0 for m in scores}).iloc[0].to_dict()
    assert str(mc["only A right"]) in cm.mcnemar_lines(mc)[0]


# --- the page ------------------------------------------------------------------------------------


def _subheaders(at) -> list[str]:
    return [s.value for s in at.subheader]


def _section(at) -> bool:
    return any("models at once" in s for s in _subheaders(at))


def _letters(at) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "letters" in d.value.columns)


@pytest.fixture(scope="module")
def bundled_page():
    return open_page("pages/compare.py")


def test_section_on_three_models_ranks_over_resamples_without_groups(bundled_page):
    at = bundled_page
    assert _section(at)
    assert at.selectbox(key="compare_many_blocks").options == [
        "bootstrap resamples of all rows (descriptive only)"
    ]
    assert any("Blocks: **500 bootstrap resamples**" in c.value for c in at.caption)
    assert any("not independent data sets" in w.value for w in at.warning)
    letters = _letters(at)
    assert set(letters["model"]) == {"logistic_regression", "gradient_boosting", "naive_bayes"}
    assert letters["model"].iloc[-1] == "naive_bayes"
    assert "descriptive only: resamples" in markdown_text(at)
    titles = [e.label for e in at.expander]
    for name in ("Friedman's test", "Nemenyi's critical difference", "Holm's adjustment",
                 "McNemar's test"):  # fmt: skip
        assert any(name in t for t in titles), name
    assert any("Piepho" in c.value and "Holm" in c.value for c in at.caption)
    assert at.get("plotly_chart")  # the diagram among the charts


def test_section_leaves_with_two_models(bundled_page):
    at = bundled_page
    at.multiselect(key="compare_models").set_value(["logistic_regression", "naive_bayes"]).run()
    assert not at.exception, at.exception
    assert not _section(at)
    assert "Are the differences real?" in _subheaders(at)
    at.multiselect(key="compare_models").set_value(
        ["logistic_regression", "gradient_boosting", "naive_bayes"]
    ).run()
    assert _section(at)


def click_log_three(seed: int = 2, users: int = 30, per_user: int = 80) -> pd.DataFrame:
    """Three models on a click log grouped by user; model_c is better within users; one user
    clicks nothing; a device column to slice on."""
    rng = np.random.default_rng(seed)
    user = np.repeat(np.arange(users), per_user)
    ey = rng.normal(size=users)[user]
    y = (rng.random(user.size) < 1 / (1 + np.exp(-(ey - 1.0)))).astype(int)
    y[user == 0] = 0
    noise = [rng.normal(size=user.size) for _ in range(3)]
    frame = pd.DataFrame(
        {
            "user_id": [f"u{u:03d}" for u in user],
            "device": np.where(user % 3 == 0, "web", np.where(user % 3 == 1, "ios", "android")),
            "label": y,
            "model_a": np.round(0.4 * y + noise[0], 4),
            "model_b": np.round(0.5 * y + noise[1], 4),
            "model_c": np.round(1.5 * y + noise[2], 4),
        }
    )
    return frame


@pytest.fixture(scope="module")
def grouped_page():
    at = open_page("pages/threshold.py")
    upload_frame(at, click_log_three())
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    return at


def test_grouped_data_ranks_over_users_and_warns_about_mcnemar(grouped_page):
    at = grouped_page
    assert _section(at)
    box = at.selectbox(key="compare_many_blocks")
    assert box.value == ("users", "user_id")
    assert box.options[0].startswith("users (user_id)")
    assert any(o.startswith("slices of device") for o in box.options)
    caption = next(c.value for c in at.caption if c.value.startswith("Blocks:"))
    assert "**29 users (user\\_id)**" in caption
    assert "Skipped 1: 1 with one class only" in caption
    # The numbers are the library's on the per-user AUCs.
    frame = click_log_three()
    y, g = frame["label"].to_numpy(), frame["user_id"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        aucs = np.column_stack(
            [metrics.group_auc_table(y, frame[m], g).auc for m in ("model_a", "model_b", "model_c")]
        )
    aucs = aucs[np.isfinite(aucs).all(axis=1)]
    fr = ss.friedmanchisquare(*aucs.T)
    assert f"Friedman's χ² = **{fr.statistic:.3f}**" in markdown_text(at)
    letters = _letters(at)
    assert letters["model"].iloc[0] == "model_c"
    assert not set(letters["letters"].iloc[0]) & set(letters["letters"].iloc[-1])
    assert any("McNemar's test counts them as if they were" in w.value for w in at.warning)
    assert not any("not independent data sets" in w.value for w in at.warning)
    # McNemar's table gives no verdict on grouped rows, and names its p-values row-level
    mcnemar = next(d.value for d in at.dataframe if "only A right" in d.value.columns)
    assert "better" not in mcnemar.columns
    assert "different at 5%" not in mcnemar.columns
    assert {"row-level p", "row-level Holm p"} <= set(mcnemar.columns)


def test_grouped_data_over_slices_then_independent_rows(grouped_page):
    at = grouped_page
    box = at.selectbox(key="compare_many_blocks")
    box.set_value(("slices", "device")).run()
    assert not at.exception, at.exception
    caption = next(c.value for c in at.caption if c.value.startswith("Blocks:"))
    assert "**3 values of device**" in caption
    at.toggle(key="compare_rows_independent").set_value(True).run()
    assert not at.exception, at.exception
    options = at.selectbox(key="compare_many_blocks").options
    assert not any(o.startswith("users") for o in options)
    assert any("turn 'Rows are independent' off" in w.value for w in at.warning)
    at.toggle(key="compare_rows_independent").set_value(False).run()


def test_grouped_data_with_two_models_has_no_section(grouped_page):
    at = grouped_page
    at.multiselect(key="compare_models").set_value(["model_a", "model_c"]).run()
    assert not at.exception, at.exception
    assert not _section(at)


def test_tex_p_writes_small_p_values_as_powers_of_ten():
    assert cm.tex_p(0.0123) == "= 0.0123"
    assert cm.tex_p(6.61e-10) == r"= 6.61 \times 10^{-10}"
    assert cm.tex_p(9.999e-5) == r"= 1 \times 10^{-4}"
    assert cm.tex_p(0.0) == r"< 10^{-300}"


def test_hostile_model_names_reach_the_section_as_text():
    frame = click_log_three(5, users=12, per_user=40).rename(
        columns={"model_a": "$x^2_{a}% & #", "model_b": "![b](http://x)", "model_c": "<b>c</b>"}
    )
    at = open_page("pages/threshold.py")
    upload_frame(at, frame)
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    assert _section(at)
    assert set(_letters(at)["model"]) == {"$x^2_{a}% & #", "![b](http://x)", "<b>c</b>"}
    cd = next(
        f for f in figures(at) if f["layout"]["xaxis"]["title"]["text"] == "mean rank (1 = best)"
    )
    texts = [a["text"] for a in cd["layout"]["annotations"]]
    assert any(t.startswith("&lt;b&gt;c&lt;/b&gt;") for t in texts)
