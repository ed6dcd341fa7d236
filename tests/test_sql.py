"""metrics.sql on DuckDB: the same numbers as the numpy library, from Parquet and CSV files.

Random tables with ties, NULLs and NaNs, groups and weights are written to disk; the engine's
AUC must equal :func:`metrics.roc_auc_score` exactly (unweighted), AP in all five methods and
GAUC to 1e-12, and every kind of bad input must give exit status 2 and one line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.sql import SQLInputError, delong, load_summary, summarize

ROOT = Path(__file__).resolve().parent.parent


def _table(seed: int = 0, n: int = 4000, nan: bool = True) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(float)
    t = pd.DataFrame(
        {
            "clicked": y,
            "tied": np.round(rng.normal(size=n) + y, 1),
            "smooth": rng.normal(size=n) + 0.5 * y,
            "user": rng.integers(0, 150, n),
            "w": rng.uniform(0.1, 3.0, n),
        }
    )
    if nan:
        t.loc[3, "tied"] = np.nan
        t.loc[7, "clicked"] = np.nan
        t.loc[11, "smooth"] = np.nan
    return t


def _usable(t: pd.DataFrame) -> pd.DataFrame:
    return t.dropna().reset_index(drop=True)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_equals_the_numpy_library(tmp_path, fmt):
    t = _table()
    path = tmp_path / f"t.{fmt}"
    t.to_parquet(path) if fmt == "parquet" else t.to_csv(path, index=False)
    s = summarize(str(path), "clicked", ["tied", "smooth"], group="user")
    ok = _usable(t)
    assert (s.rows, s.dropped) == (len(ok), 3)
    for name in ("tied", "smooth"):
        m = s.models[name]
        assert m.auc == metrics.roc_auc_score(ok.clicked, ok[name])  # exact
        for method in metrics.AP_METHODS:
            want = metrics.average_precision_score(ok.clicked, ok[name], method=method)
            assert m.ap(method) == pytest.approx(want, abs=1e-12), method
        assert m.gauc == pytest.approx(
            metrics.group_auc_score(ok.clicked, ok[name], ok.user), abs=1e-12
        )
        assert m.distinct_scores == ok[name].nunique()
        counts = m.table.counts()
        want = metrics.threshold_counts(ok.clicked, ok[name])
        np.testing.assert_array_equal(counts.tps, want.tps)
        np.testing.assert_array_equal(counts.fps, want.fps)


def test_weighted(tmp_path):
    t = _table(1)
    t.to_parquet(tmp_path / "t.parquet")
    s = summarize(str(tmp_path / "t.parquet"), "clicked", ["tied"], weight="w", group="user")
    ok = t.dropna(subset=["clicked", "tied", "w", "user"])  # the columns it reads
    m = s.models["tied"]
    assert m.auc == pytest.approx(
        metrics.roc_auc_score(ok.clicked, ok.tied, sample_weight=ok.w), abs=1e-12
    )
    assert m.ap() == pytest.approx(
        metrics.average_precision_score(ok.clicked, ok.tied, sample_weight=ok.w), abs=1e-12
    )
    assert m.gauc == pytest.approx(
        metrics.group_auc_score(ok.clicked, ok.tied, ok.user, sample_weight=ok.w), abs=1e-12
    )
    y, sc, w = m.table.weighted_rows()
    assert metrics.roc_auc_score(y, sc, sample_weight=w) == pytest.approx(m.auc, abs=1e-12)


def test_a_glob_of_files_and_the_binned_table_above_the_cap(tmp_path):
    t = _table(2, nan=False)
    t.iloc[:2000].to_parquet(tmp_path / "part-0.parquet")
    t.iloc[2000:].to_parquet(tmp_path / "part-1.parquet")
    s = summarize(str(tmp_path / "part-*.parquet"), "clicked", ["smooth"], cap=100, bins=50)
    m = s.models["smooth"]
    assert m.auc == metrics.roc_auc_score(t.clicked, t.smooth)
    assert m.table is None
    assert m.binned.pos.sum() == t.clicked.sum()
    # No rate read off the binned table is off by more than the largest bin's share.
    exact = metrics.threshold_counts(t.clicked, t.smooth)
    binned = m.binned.counts()
    for i, thr in enumerate(binned.thresholds):
        j = np.searchsorted(-exact.thresholds, -thr, side="right") - 1
        assert abs(binned.tps[i] - exact.tps[j]) / exact.n_pos <= m.bin_error + 1e-12
    with pytest.raises(ValueError, match="--cap"):
        m.ap("voc11")


def test_labels_words_booleans_and_pos_label(tmp_path):
    t = _table(3, nan=False)
    words = t.assign(clicked=np.where(t.clicked == 1, "Yes", "No"))
    words.to_parquet(tmp_path / "w.parquet")
    s = summarize(str(tmp_path / "w.parquet"), "clicked", ["tied"])
    assert s.positive == "yes"
    assert s.models["tied"].auc == metrics.roc_auc_score(t.clicked, t.tied)
    pets = t.assign(clicked=np.where(t.clicked == 1, "cat", "dog"))
    pets.to_parquet(tmp_path / "p.parquet")
    with pytest.raises(SQLInputError, match="pos-label"):
        summarize(str(tmp_path / "p.parquet"), "clicked", ["tied"])
    s = summarize(str(tmp_path / "p.parquet"), "clicked", ["tied"], pos_label="dog")
    assert s.models["tied"].auc == metrics.roc_auc_score(t.clicked == 0, t.tied)
    t.assign(clicked=t.clicked == 1).to_parquet(tmp_path / "b.parquet")
    assert summarize(str(tmp_path / "b.parquet"), "clicked", ["tied"]).models["tied"].auc == (
        metrics.roc_auc_score(t.clicked, t.tied)
    )


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "metrics.sql", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_json_and_out(tmp_path):
    t = _table(4)
    t.to_parquet(tmp_path / "t.parquet")
    out = tmp_path / "summary.npz"
    r = _cli(str(tmp_path / "t.parquet"), "--label", "clicked", "--score", "tied",
             "--score", "smooth", "--group", "user", "--json", "--out", str(out))  # fmt: skip
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    ok = _usable(t)
    assert got["rows"] == len(ok)
    assert got["dropped"] == 3
    assert set(got["models"]) == {"tied", "smooth"}
    assert got["models"]["tied"]["auc"] == metrics.roc_auc_score(ok.clicked, ok.tied)
    assert got["models"]["smooth"]["gauc"] == pytest.approx(
        metrics.group_auc_score(ok.clicked, ok.smooth, ok.user), abs=1e-12
    )
    assert "[metrics.sql]" not in r.stderr  # no progress on a pipe with --json
    loaded = load_summary(out)
    assert loaded.to_json() == got
    np.testing.assert_array_equal(loaded.models["tied"].table.pos, ok.groupby("tied").clicked.sum()
                                  .sort_index(ascending=False).to_numpy())  # fmt: skip


@pytest.mark.parametrize(
    ("change", "args", "message"),
    [
        (None, ["--label", "nope", "--score", "tied"], "no column 'nope'"),
        ("text", ["--label", "clicked", "--score", "text"], "not a number"),
        ("three", ["--label", "clicked", "--score", "tied"], "more than two values"),
        ("one", ["--label", "clicked", "--score", "tied"], "one value only"),
        ("null", ["--label", "clicked", "--score", "tied"], "NULL"),
        ("broken", ["--label", "clicked", "--score", "tied"], "cannot read"),
        ("missing", ["--label", "clicked", "--score", "tied"], "does not exist"),
        (
            None,
            ["--label", "clicked", "--score", "tied", "--weight", "w", "--delong"],
            "unweighted",
        ),
    ],
)
@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_bad_input_exits_2_with_one_line(tmp_path, change, args, message):
    t = _table(5, nan=False)
    path = tmp_path / "t.parquet"
    if change == "text":
        t = t.assign(text=["a"] * len(t))
    elif change == "three":
        t.loc[:10, "clicked"] = 2.0
    elif change == "one":
        t["clicked"] = 0.0
    elif change == "null":
        t["clicked"] = np.nan
    if change == "broken":
        path.write_bytes(b"this is not parquet")
    elif change != "missing":
        t.to_parquet(path)
    r = _cli(str(path), *args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1
    assert message in errors[0], errors[0]
    assert "Traceback" not in r.stderr


@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_import_metrics_stays_numpy_only():
    code = (
        "import sys, metrics, metrics.sql; "
        "assert 'duckdb' not in sys.modules and 'pyspark' not in sys.modules, sys.modules.keys()"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("weighted", [False, True])
def test_gauc_weightings_and_the_per_group_table(tmp_path, weighted):
    t = _table(6, nan=False)
    t.loc[t.user == 3, "clicked"] = 1.0  # a group with only positives
    t.loc[t.user == 4, "clicked"] = 0.0  # and one with only negatives
    t.to_parquet(tmp_path / "t.parquet")
    w = t.w if weighted else None
    s = summarize(str(tmp_path / "t.parquet"), "clicked", ["tied"], group="user",
                  weight="w" if weighted else None)  # fmt: skip
    m = s.models["tied"]
    want = metrics.group_auc_table(t.clicked, t.tied, t.user, sample_weight=w)
    for weighting in ("impressions", "positives", "uniform"):
        assert m.gauc_by[weighting] == pytest.approx(want.score(weighting), abs=1e-12)
    assert m.groups_skipped_by["only positives"] >= 1
    assert m.groups_skipped_by["only negatives"] >= 1
    assert m.groups_skipped == want.n_skipped
    np.testing.assert_array_equal(m.groups.group, want.group)
    np.testing.assert_array_equal(m.groups.rows, want.rows)
    np.testing.assert_array_equal(m.groups.reason, want.reason)
    np.testing.assert_allclose(m.groups.positives, want.positives, rtol=1e-12)
    np.testing.assert_allclose(m.groups.auc, want.auc, rtol=0, atol=1e-12)
    if not weighted:
        np.testing.assert_array_equal(m.groups.auc, want.auc)  # exact, NaN where skipped
    # The summary file keeps the group table.
    loaded = load_summary(s.save(tmp_path / "s.npz")).models["tied"]
    np.testing.assert_array_equal(loaded.groups.reason, want.reason)
    assert loaded.gauc_by == m.gauc_by


def test_curves_confusion_and_weighted_rows(tmp_path):
    t = _table(8, n=6000, nan=False)
    t.to_parquet(tmp_path / "t.parquet")
    s = summarize(str(tmp_path / "t.parquet"), "clicked", ["smooth", "tied"])
    for name, m in s.models.items():
        f = m.weighted_frame()
        assert metrics.roc_auc_score(f.label, f.score, sample_weight=f.weight) == pytest.approx(
            m.auc, abs=1e-12
        )
        for thr in (-1.0, 0.0, 0.37, 1.5):
            got, want = m.confusion_at(thr), metrics.threshold_counts(t.clicked, t[name]).at(thr)
            assert (got.tp, got.fp, got.tn, got.fn) == (want.tp, want.fp, want.tn, want.fn)
        fpr, tpr, thr = m.roc_curve(max_points=500)
        full = metrics.roc_curve(t.clicked, t[name])
        assert len(fpr) <= 520 if len(full[0]) > 500 else len(fpr) == len(full[0])
        assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (full[0][0], full[1][0], 1.0, 1.0)
        assert np.all(np.diff(fpr) >= 0)
        # every kept point lies on the full curve
        on = {(a, b) for a, b in zip(full[0], full[1], strict=True)}
        assert all((a, b) in on for a, b in zip(fpr, tpr, strict=True))
        p, r, pthr = m.precision_recall_curve(max_points=500)
        full = metrics.precision_recall_curve(t.clicked, t[name])
        assert len(p) == len(r) == len(pthr) + 1 <= 520
        assert (p[0], r[0], p[-1], r[-1]) == (full[0][0], full[1][0], 1.0, 0.0)
        on = {(a, b) for a, b in zip(full[0], full[1], strict=True)}
        assert all((a, b) in on for a, b in zip(p, r, strict=True))


def _ranking_table(seed: int = 9, n: int = 3000) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    t = pd.DataFrame(
        {
            "query": rng.integers(0, 120, n),
            "grade": rng.choice([0, 0, 0, 1, 2, 3], n).astype(float),
            "score": np.round(rng.normal(size=n), 1),  # many ties: row order decides
        }
    )
    t.loc[t["query"] == 5, "grade"] = 0.0  # a query with no relevant row
    t.loc[17, "score"] = np.nan
    return t


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize(
    ("k", "gain", "denominator"),
    [(10, "linear", "relevant"), (3, "exponential", "min_k"), (None, "linear", "relevant")],
)
def test_ranking_equals_the_numpy_library(tmp_path, fmt, k, gain, denominator):
    from metrics.sql import ranking_summary

    t = _ranking_table()
    path = tmp_path / f"r.{fmt}"
    t.to_parquet(path) if fmt == "parquet" else t.to_csv(path, index=False)
    got = ranking_summary(str(path), "grade", "score", "query", k=k, gain=gain,
                          denominator=denominator)  # fmt: skip
    ok = t.dropna().reset_index(drop=True)
    want = metrics.ranking_report(ok.grade, ok.score, ok["query"], k=k, gain=gain,
                                  denominator=denominator)  # fmt: skip
    assert (got.rows, got.dropped) == (len(ok), 1)
    assert (got.n_queries, got.n_skipped) == (want.n_queries, want.n_skipped)
    np.testing.assert_array_equal(got.report.query, want.query)
    np.testing.assert_array_equal(got.report.n_relevant, want.n_relevant)
    for metric in ("precision", "recall", "average_precision", "ndcg", "reciprocal_rank"):
        np.testing.assert_allclose(getattr(got.report, metric), getattr(want, metric),
                                   rtol=0, atol=1e-12, err_msg=metric)  # fmt: skip
        assert got.means[metric] == pytest.approx(want.mean(metric), abs=1e-12)
    small = ranking_summary(str(path), "grade", "score", "query", k=k, gain=gain,
                            denominator=denominator, cap=10)  # fmt: skip
    assert small.report is None
    for metric, value in got.means.items():
        assert small.means[metric] == pytest.approx(value, abs=1e-12)


def test_no_overflow_at_1e10_rows():
    """2U at 1e10 rows passes 2**63: the 128-bit sum keeps it exact."""
    from metrics.sql import _queries as q
    from metrics.sql._engine import DuckDBEngine

    eng = DuckDBEngine()
    # Three distinct scores, 1e10 rows in all (counts as the per-score table would hold them).
    pos = [3_000_000_000, 1_000_000_000, 1_000_000_001]
    neg = [1_000_000_000, 2_000_000_000, 1_999_999_999]
    eng.view("counts", "SELECT * FROM (VALUES (0.9, 3000000000, 1000000000), "
                       "(0.5, 1000000000, 2000000000), (0.1, 1000000001, 1999999999)) "
                       "c(s, pos, neg)")  # fmt: skip
    n_neg = sum(neg)
    twice_u, _ = eng.rows(q.areas(q.DUCKDB, q.cumulative("counts"), False, n_neg))[0]
    below, want = n_neg, 0
    for p, n in zip(pos, neg, strict=True):
        below -= n
        want += p * (2 * below + n)
    assert want > 2**63
    assert int(twice_u) == want


def _assert_delong_equals_the_rows(s, ok: pd.DataFrame, names) -> None:
    """The engine's DeLong intervals and paired tests equal the numpy library's on the rows."""
    y = ok.clicked.to_numpy()
    for name in names:
        want = metrics.roc_auc_ci(y, ok[name])
        got = s.interval(name)
        assert got.auc == want.auc  # exact: the positives' placements sum to 2U
        assert got.std_error == pytest.approx(want.std_error, rel=1e-12)
        assert (got.ci_low, got.ci_high) == pytest.approx((want.ci_low, want.ci_high), rel=1e-12)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            want = metrics.delong_test(y, ok[a], ok[b])
            got = s.test(a, b)
            assert got.difference == want.difference
            assert got.std_error == pytest.approx(want.std_error, rel=1e-12)
            assert got.p_value == pytest.approx(want.p_value, rel=1e-9, abs=1e-300)
            assert got.correlation == pytest.approx(want.correlation, rel=1e-9)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_delong_from_the_engine_equals_the_numpy_library(tmp_path, fmt):
    t = _table(seed=3)
    t["coarse"] = np.floor(t.smooth * 2)  # few distinct scores: heavy ties across both classes
    t.loc[20, "coarse"] = -0.0  # groups with 0.0: one score, not two
    path = tmp_path / f"t.{fmt}"
    t.to_parquet(path) if fmt == "parquet" else t.to_csv(path, index=False)
    names = ["tied", "smooth", "coarse"]
    s = delong(str(path), "clicked", names)
    ok = _usable(t)
    assert (s.n_pos, s.n_neg) == (int(ok.clicked.sum()), int((ok.clicked == 0).sum()))
    _assert_delong_equals_the_rows(s, ok, names)
    same = delong(str(path), "clicked", ["tied", "tied"]).test("tied", "tied")
    assert (same.difference, same.std_error, same.p_value) == (0.0, 0.0, 1.0)


def test_delong_refuses_what_it_cannot_pair(tmp_path):
    path = tmp_path / "t.parquet"
    _table().to_parquet(path)
    with pytest.raises(SQLInputError, match="no column 'nope'"):
        delong(str(path), "clicked", ["tied", "nope"])
    with pytest.raises(KeyError, match="no score column"):
        delong(str(path), "clicked", ["tied"]).interval("smooth")


def test_delong_of_one_model_from_its_per_score_table(tmp_path):
    from metrics.sql import DeLongSummary

    t = _table(seed=5)
    path = tmp_path / "t.parquet"
    t.to_parquet(path)
    s = summarize(str(path), "clicked", ["tied", "smooth"])
    ok = _usable(t)
    for name in ("tied", "smooth"):
        one = DeLongSummary.from_table(name, s.models[name].table)
        _assert_delong_equals_the_rows(one, ok, [name])
    weighted = summarize(str(path), "clicked", ["tied"], weight="w").models["tied"].table
    with pytest.raises(ValueError, match="integer counts"):
        DeLongSummary.from_table("tied", weighted)


@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_delong(tmp_path):
    t = _table(6)
    t.to_parquet(tmp_path / "t.parquet")
    r = _cli(str(tmp_path / "t.parquet"), "--label", "clicked", "--score", "tied",
             "--score", "smooth", "--delong", "--json")  # fmt: skip
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)["delong"]
    ok = _usable(t)
    want = metrics.roc_auc_ci(ok.clicked, ok.smooth)
    assert got["models"]["smooth"]["auc"] == want.auc
    assert got["models"]["smooth"]["ci_low"] == pytest.approx(want.ci_low, rel=1e-12)
    (pair,) = got["pairs"]
    want = metrics.delong_test(ok.clicked, ok.tied, ok.smooth)
    assert (pair["a"], pair["b"], pair["difference"]) == ("tied", "smooth", want.difference)
    assert pair["p_value"] == pytest.approx(want.p_value, rel=1e-9)
    text = _cli(str(tmp_path / "t.parquet"), "--label", "clicked", "--score", "tied",
                "--score", "smooth", "--delong")  # fmt: skip
    assert "tied - smooth:" in text.stdout
    assert "(DeLong)" in text.stdout


@pytest.mark.slow  # starts the command (or a JVM): not in make test-fast
def test_cli_delong_with_a_group_is_obuchowskis_clustered_test(tmp_path):
    """Rows of one user are not independent: --delong with --group gives the clustered
    intervals and tests (t reference), as metrics.clustered_auc_test, and says which."""
    t = _table(6)
    t.to_parquet(tmp_path / "t.parquet")
    args = (str(tmp_path / "t.parquet"), "--label", "clicked", "--score", "tied", "--score",
            "smooth", "--group", "user", "--delong")  # fmt: skip
    r = _cli(*args, "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)["delong"]
    ok = _usable(t)
    want = metrics.clustered_auc_test(ok.clicked, ok.tied, ok.smooth, groups=ok.user,
                                      small_sample=True)  # fmt: skip
    assert got["test"] == "obuchowski"
    assert got["df"] == pytest.approx(want.df, rel=1e-12)
    assert got["models"]["tied"]["ci_low"] == pytest.approx(want.ci_low_a, rel=1e-9)
    (pair,) = got["pairs"]
    assert pair["p_value"] == pytest.approx(want.p_value, rel=1e-9)
    assert pair["std_error"] == pytest.approx(want.std_error, rel=1e-9)
    assert "(Obuchowski, clustered by user, t with" in _cli(*args).stdout


@pytest.mark.parametrize(
    ("cut", "grades_above", "said"),
    [(">0", 0, "> 0"), (" >= 2 ", 1.5, ">= 2"), (">1.5", 1.5, "> 1.5"), (">=4e0", 3.5, ">= 4")],
)
def test_a_cut_makes_every_grade_above_it_positive(tmp_path, cut, grades_above, said):
    """Graded relevance (LETOR grades 0-4): pos_label ">0" or ">=2" keeps every grade above the
    cut as positive, equal to numpy on the binarised label, for AUC, AP, GAUC and DeLong."""
    rng = np.random.default_rng(5)
    n = 600
    t = pd.DataFrame(
        {
            "grade": rng.choice([0, 0, 0, 1, 2, 3, 4], n).astype(float),
            "qid": rng.integers(0, 30, n),
            "a": np.round(rng.normal(size=n), 1),  # ties across grades
            "b": rng.normal(size=n),
        }
    )
    t.to_parquet(tmp_path / "g.parquet")
    y = t.grade > grades_above
    s = summarize(str(tmp_path / "g.parquet"), "grade", ["a", "b"], group="qid", pos_label=cut)
    assert s.positive == said
    for m in ("a", "b"):
        assert s.models[m].auc == metrics.roc_auc_score(y, t[m])
        assert s.models[m].average_precision == pytest.approx(
            metrics.average_precision_score(y, t[m]), abs=1e-12
        )
        assert s.models[m].gauc == pytest.approx(metrics.group_auc_score(y, t[m], t.qid), abs=1e-12)
    d = delong(str(tmp_path / "g.parquet"), "grade", ["a", "b"], pos_label=cut)
    assert (d.n_pos, d.n_neg) == (int(y.sum()), int((~y).sum()))
    assert d.test("a", "b").p_value == pytest.approx(metrics.delong_test(y, t.a, t.b).p_value)


def test_a_cut_needs_a_numeric_label_and_many_grades_are_told_about_it(tmp_path):
    t = _table(3, nan=False)
    t.assign(clicked=np.where(t.clicked == 1, "cat", "dog")).to_parquet(tmp_path / "p.parquet")
    with pytest.raises(SQLInputError, match="does not hold numbers"):
        summarize(str(tmp_path / "p.parquet"), "clicked", ["tied"], pos_label=">0")
    t.assign(clicked=np.arange(len(t)) % 5).to_parquet(tmp_path / "g.parquet")
    with pytest.raises(SQLInputError, match="a cut is written '>0' or '>=3'"):
        summarize(str(tmp_path / "g.parquet"), "clicked", ["tied"], pos_label=">abc")
    with pytest.raises(SQLInputError, match="'>0' for graded relevance"):
        summarize(str(tmp_path / "g.parquet"), "clicked", ["tied"])


def test_one_querys_rows_and_what_the_relevance_column_holds(tmp_path):
    """query_rows: one query's (relevance, score) in the engine's order (files sorted, then
    position), without the rows ranking_summary drops; relevance_values: type, distinct values, range."""
    from metrics.sql import query_rows, relevance_values

    a = pd.DataFrame({"q": [1, 2, 1, 1], "rel": [2.0, 0.0, np.nan, 0.0], "s": [0.1, 0.5, 0.3, 0.2]})
    b = pd.DataFrame({"q": [1, 1], "rel": [1.0, 3.0], "s": [np.nan, 0.9]})
    a.to_parquet(tmp_path / "a.parquet")
    b.to_parquet(tmp_path / "b.parquet")
    files = [str(tmp_path / "b.parquet"), str(tmp_path / "a.parquet")]
    rel, s = query_rows(files, "rel", "s", "q", 1)
    assert rel.tolist() == [2.0, 0.0, 3.0]
    assert s.tolist() == [0.1, 0.2, 0.9]
    kind, n, low, high = relevance_values(files, "rel")
    assert (n, low, high) == (4, 0.0, 3.0)
    assert kind == "DOUBLE"
    a.assign(rel="x").to_parquet(tmp_path / "t.parquet")
    kind, n, low, _ = relevance_values(str(tmp_path / "t.parquet"), "rel")
    assert (kind, n) == ("VARCHAR", 0)
    assert np.isnan(low)


def test_a_csvs_yes_no_label_takes_yes_or_no_as_the_positive_class(tmp_path):
    """DuckDB reads a CSV's yes/no column as BOOLEAN: the positive class 'yes' or 'no' (as the
    file says it) must select those rows, not compare the text 'true' with 'yes'."""
    t = _table(3, nan=False)
    path = tmp_path / "yn.csv"
    t.assign(clicked=np.where(t.clicked == 1, "yes", "no"))[["clicked", "tied"]].to_csv(
        path, index=False
    )
    assert summarize(str(path), "clicked", ["tied"]).positive == "true"
    for word, y in (("yes", t.clicked == 1), ("No", t.clicked == 0), ("true", t.clicked == 1)):
        s = summarize(str(path), "clicked", ["tied"], pos_label=word)
        assert s.models["tied"].auc == metrics.roc_auc_score(y, t.tied), word
