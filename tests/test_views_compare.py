"""Compare's pure pieces (``ui.analyses.compare_*``): the numbers they put in tables and
sentences are the metrics library's, the words follow the settings. No Streamlit here; the page
that draws them is checked in ``test_views_compare_page.py``."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import metrics
import metrics.significance
from metrics.significance import format_p
from ui.analyses import (
    compare_blocks,
    compare_costs,
    compare_many,
    compare_operating,
    compare_pairs,
    compare_rows,
    compare_setup,
    compare_table,
    summaries,
)
from ui.analyses.compare_setup import CompareSettings
from ui.tables.checking import prepare
from ui.tables.dataset import Dataset
from ui.tables.loading import ColumnMapping
from ui.words.numbers import decimals
from ui.words.text import num

MODELS = ("a", "b", "c")


def _frame(seed: int = 0, n: int = 600, users: int = 40, weighted: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    frame = pd.DataFrame(
        {
            "user": rng.integers(0, users, n),
            "device": rng.choice(["web", "ios", "android"], n),
            "country": rng.choice(["FR", "DE"], n),
            "y": y,
            **{
                m: 1 / (1 + np.exp(-(rng.normal(size=n) + k * y)))
                for m, k in zip(MODELS, (1.6, 1.2, 0.6), strict=True)
            },
        }
    )
    if weighted:
        frame["w"] = rng.integers(1, 4, n).astype(float)
    return frame


def _dataset(frame: pd.DataFrame, group: str | None = None, weight: str | None = None) -> Dataset:
    mapping = ColumnMapping(
        label="y", scores=MODELS, pos_label=1, group=group, slices=("device", "country"),
        weight=weight,
    )  # fmt: skip
    return Dataset(
        source_id="test:compare", name="t", frame=frame, mapping=mapping,
        prepared=prepare(frame, mapping),
    )  # fmt: skip


def _settings(ds: Dataset, **changes) -> CompareSettings:
    values = dict(
        ds=ds, models=MODELS, n_rows=len(ds.y), n_resamples=200, interval="percentile",
        max_fpr=0.1, group_column=ds.mapping.group, independent=False, wanted=True,
        curve_resamples=200, presenting=False,
    )  # fmt: skip
    return CompareSettings(**{**values, **changes})


def _tables(ds: Dataset, n_resamples: int = 0, cluster=None):
    """The page's table and pairs with verdicts, as ``ui.compute.uncertainty`` makes them."""
    specs = summaries.metric_specs(probabilities=True, groups=ds.prepared.groups)
    scores = {m: ds.score(m) for m in MODELS}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        table, pairs, _ = summaries.model_table(
            ds.y, scores, specs, weight=ds.weight, n_resamples=n_resamples, cluster=cluster
        )
    found, pairs = summaries.verdicts(table, pairs, specs)
    helps = {s.name: s.help for s in specs}
    return table, pairs, found, helps


@pytest.fixture(scope="module")
def ds() -> Dataset:
    return _dataset(_frame())


@pytest.fixture(scope="module")
def grouped() -> Dataset:
    return _dataset(_frame(1), group="user")


# --- compare_setup --------------------------------------------------------------------------


def test_settings_say_what_a_bracket_resamples(grouped):
    s = _settings(grouped)
    assert s.clustered
    assert s.resampled == "cluster bootstrap, whole user values resampled"
    assert s.interval_name == "cluster bootstrap interval (whole user values resampled)"
    np.testing.assert_array_equal(s.y, grouped.labels_for("a"))
    rows = _settings(grouped, independent=True)
    assert not rows.clustered
    assert (rows.resampled, rows.interval_name) == ("paired bootstrap", "paired bootstrap interval")


def test_the_bootstrap_runs_unasked_up_to_the_limit():
    limit = compare_setup.AUTO_LIMIT
    assert compare_setup.bootstrap_wanted(limit // 2, 2, 1000, None, ("k",))
    assert not compare_setup.bootstrap_wanted(limit // 2 + 1, 2, 1000, None, ("k",))
    assert compare_setup.bootstrap_wanted(limit, 2, 1000, ("k",), ("k",))  # asked for
    assert not compare_setup.bootstrap_wanted(10, 2, 0, ("k",), ("k",))  # no resamples
    assert compare_setup.slow_sentence(2_500_000, 500, 3) == (
        f"{2_500_000:,} rows: 500 resamples x 3 models take a while."
    )


def test_contents_link_every_section_in_order():
    sections = [("Are the differences real?", "differences"), ("Cost and benefit", "cost")]
    assert compare_setup.contents_caption(sections) == (
        "On this page: [Are the differences real?](#differences) · [Cost and benefit](#cost)"
    )
    assert "#0e1117" in compare_setup.contents_css(True)
    assert "#ffffff" in compare_setup.contents_css(False)
    assert "st-key-compare_toc" in compare_setup.contents_css(False)


def test_the_banner_counts_the_groups(grouped):
    n = np.unique(grouped.prepared.groups).size
    kind, text = compare_setup.grouping_banner(_settings(grouped), n)
    assert kind == "info"
    assert f"Rows are grouped by **user** ({n:,} groups)" in text
    assert "Set resamples above 0" not in text
    _, unasked = compare_setup.grouping_banner(_settings(grouped, wanted=False), n)
    assert unasked.endswith("Set resamples above 0: without them nothing can be tested.")
    kind, text = compare_setup.grouping_banner(_settings(grouped, independent=True), n)
    assert kind == "warning"
    assert f"({n:,} values)" in text


# --- compare_table --------------------------------------------------------------------------


def test_the_table_shows_the_librarys_values_and_stars_only_the_best(ds):
    table, _, found, helps = _tables(ds)
    shown = compare_table.starred_table(table, found, helps)
    assert list(shown.columns) == ["model", *helps]
    for i, m in enumerate(MODELS):
        auc = metrics.roc_auc_score(ds.y, ds.score(m))
        assert shown.loc[i, "AUC"].removeprefix("★ ") == f"{decimals(auc)}"
        assert shown.loc[i, "AUC"].startswith("★ ") == (found["AUC"].best == i)
    assert found["AUC"].best == 0  # a is the strongest model, by far
    with_intervals, *_ = _tables(ds, n_resamples=50)
    shown = compare_table.starred_table(with_intervals, found, helps)
    low, high = with_intervals.loc[1, "AP low"], with_intervals.loc[1, "AP high"]
    assert shown.loc[1, "AP"].endswith(f"  [{low:.4f}, {high:.4f}]")


def test_the_verdicts_and_what_a_star_means(ds, grouped):
    _, _, found, helps = _tables(ds)
    lines = compare_table.verdict_list(found, helps).split("\n")
    assert len(lines) == len(helps)
    assert lines[0].startswith("- **AUC**: ★ ")
    s = _settings(ds, n_resamples=300)
    assert "Brackets: 95% paired bootstrap interval, 300 resamples." in (
        compare_table.star_caption(s)
    )
    assert compare_table.star_caption(_settings(ds, wanted=False)).endswith(
        " With 0 resamples only AUC can be tested."
    )
    assert "cluster bootstrap test (whole user values resampled)" in (
        compare_table.star_caption(_settings(grouped))
    )


def test_the_intervals_explained_with_the_settings(ds, grouped):
    assert compare_table.interval_lines(300)[0].endswith("_{b=1}^{300}")
    note = compare_table.interval_note(_settings(ds, n_resamples=300))
    assert f"Each of the 300 resamples draws every one of the {len(ds.y):,} rows" in note
    assert "BCa shifts" not in note
    assert "BCa shifts" in compare_table.interval_note(_settings(ds, interval="BCa"))
    assert "draws every user a Poisson(1)" in compare_table.interval_note(_settings(grouped))


# --- compare_pairs --------------------------------------------------------------------------


def test_a_bootstrap_p_value_is_floored_at_one_over_the_resamples():
    assert compare_pairs.p_text(0.0, summaries.ROW_TEST, 200) == format_p(0.0, floor=1 / 200)
    assert compare_pairs.p_text(0.0, summaries.CLUSTER_TEST, 50, "Holm p") == "Holm p < 0.02"
    assert compare_pairs.p_text(0.0, "DeLong", 200) == format_p(0.0)
    assert compare_pairs.p_text(0.0, summaries.ROW_TEST, 0) == format_p(0.0)


def test_each_pair_line_gives_delongs_p_value_and_holms():
    ds = _dataset(_frame(4, n=150))  # close models: Holm changes p-values shown
    _, pairs, _, _ = _tables(ds)
    lines = compare_pairs.pair_lines(pairs, 0, None)
    assert len(lines) == len(pairs)
    auc = [(line, row) for line, (_, row) in zip(lines, pairs.iterrows(), strict=True)
           if row["metric"] == "AUC"]  # fmt: skip
    p = [metrics.delong_test(ds.y, ds.score(r["model A"]), ds.score(r["model B"])).p_value
         for _, r in auc]  # fmt: skip
    holm = metrics.significance.holm_adjust(p)
    for (line, _), p_value, holm_p in zip(auc, p, holm, strict=True):
        assert line.endswith(f" · {format_p(p_value)}, {format_p(holm_p, name='Holm p')} (DeLong)")
    assert any(format_p(h) != format_p(q) for h, q in zip(holm, p, strict=True))
    untested = pairs[pairs["metric"] == "AP"]  # no resamples: not tested
    assert all("·" not in line for line in compare_pairs.pair_lines(untested, 0, None))


def test_a_cluster_test_shows_delongs_row_level_p_beside(grouped):
    _, pairs, _, _ = _tables(grouped, n_resamples=40, cluster=grouped.prepared.groups)
    auc = pairs[pairs["metric"] == "AUC"]
    lines = compare_pairs.pair_lines(auc, 40, "user")
    r = metrics.delong_test(grouped.y, grouped.score("a"), grouped.score("b"))
    assert f" · row-level DeLong {format_p(r.p_value)} (ignores user)" in lines[0]
    assert compare_pairs.first_delong_pair(pairs) is None  # the cluster bootstrap decided


def test_delongs_test_explained_with_its_numbers(ds):
    _, pairs, _, _ = _tables(ds)
    first = compare_pairs.first_delong_pair(pairs)
    assert (first["model A"], first["model B"]) == ("a", "b")
    delong = summaries.delong_pairs(ds.y, {m: ds.score(m) for m in MODELS}).iloc[0]
    r = metrics.delong_test(ds.y, ds.score("a"), ds.score("b"))
    z_line, p_line = compare_pairs.delong_lines(delong, r.p_value)
    assert z_line.endswith(f"= {num(r.z)}")
    assert f"{num(r.auc_a)} - {num(r.auc_b)}" in z_line
    assert f"= {r.p_value:.3g}," in p_line
    assert f"[{num(r.ci_low)},\\ {num(r.ci_high)}]" in p_line
    assert compare_pairs.delong_note("a", "b").startswith("For a against b.")


def test_the_power_sentence_gives_the_librarys_power(ds):
    y, a, b = ds.y, ds.score("a"), ds.score("c")
    power = metrics.auc_difference_power(y, a, b, 0.05)
    n_pos = int(np.count_nonzero(y))
    sentence, note = compare_pairs.power_sentence(
        "a", "c", n_pos, y.size - n_pos, 0.05, power, 0.03
    )
    assert f"With these {n_pos:,} positives and {y.size - n_pos:,} negatives" in sentence
    assert f"is found with power **{power:.0%}**" in sentence
    assert "**0.030**." in sentence
    assert note == compare_pairs.POWER_NOTE
    same, none = compare_pairs.power_sentence("a", "a2", n_pos, 1, 0.05, 1.0, 1e-4)
    assert "no power figure from these two" in same
    assert none is None
    assert "Sample weights are not used" in compare_pairs.pairs_caption(
        _settings(_dataset(_frame(weighted=True), weight="w"))
    )


# --- compare_blocks -------------------------------------------------------------------------


def test_the_blocks_offered_best_first():
    slices = ("device", "country")
    assert compare_blocks.block_choices("user", True, slices, "country", True) == [
        (compare_many.USERS, "user"), (compare_many.SLICES, "device"),
        (compare_many.RESAMPLES, None),
    ]  # fmt: skip
    assert compare_blocks.block_choices("user", False, (), None, False) == []
    assert compare_blocks.block_name((compare_many.SLICES, "device")) == (
        "slices of device: each model's AUC per value"
    )
    kept = np.array([0, 2])
    groups = compare_blocks.slice_groups(np.array([1, 2, 3]), kept)
    assert groups.tolist() == ["1", "3"]


def test_blocks_caption_counts_the_librarys_groups():
    frame = _frame(2)
    frame.loc[frame["user"] == 0, "y"] = 0  # one user with no positive: no AUC
    one_class = _dataset(frame, group="user")
    scores = {m: one_class.score(m) for m in MODELS}
    groups = one_class.prepared.groups
    blocks = compare_many.group_blocks(one_class.y, scores, groups, name="user")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        auc = metrics.group_auc_table(one_class.y, scores["a"], groups).auc
    defined = int(np.isfinite(auc).sum())
    assert 0 < defined < auc.size
    caption = compare_blocks.blocks_caption(blocks, "user")
    assert caption.startswith(f"Blocks: **{defined:,} users (user)**.")
    skipped = auc.size - defined
    assert f" Skipped {skipped:,}: {skipped:,} with one class only" in caption
    assert compare_blocks.few_blocks(1) == (
        "Only 1 block with every model's AUC defined: ranking needs at least 2."
    )


def test_friedmans_sentence_and_the_pairs_are_the_librarys(grouped):
    scores = {m: grouped.score(m) for m in MODELS}
    blocks = compare_many.group_blocks(grouped.y, scores, grouped.prepared.groups, name="user")
    analysis = compare_many.analyse(blocks)
    fr = metrics.friedman_test(blocks.table)
    sentence = compare_blocks.friedman_sentence(analysis, compare_many.USERS)
    assert f"Friedman's χ² = **{decimals(fr.statistic, 3)}**, {format_p(fr.p_value)};" in sentence
    assert f"**{decimals(fr.critical_difference, 3)}** in mean rank" in sentence
    over_resamples = compare_blocks.friedman_sentence(analysis, compare_many.RESAMPLES)
    assert "(descriptive only: resamples)" in over_resamples
    assert f"N = {fr.n_blocks:,} blocks, k = 3 models" in compare_blocks.friedman_note(analysis)
    ranks, how = compare_blocks.pairs_for(compare_many.USERS, analysis, pd.DataFrame(), MODELS)
    pd.testing.assert_frame_equal(ranks, compare_many.rank_pairs(analysis))
    assert how.startswith("the mean-rank z test")
    assert compare_blocks.pairs_caption(how, compare_many.USERS).startswith(f"Each pair by {how}.")
    lines, note = compare_blocks.holm_explain(analysis, ranks, compare_many.USERS)
    assert lines == compare_many.rank_pair_lines(analysis, ranks)
    assert note.endswith("Φ is the standard normal distribution function.")


def test_over_resamples_the_pairs_are_the_pages_auc_tests(ds):
    _, pairs, _, _ = _tables(ds)
    replicates = np.random.default_rng(0).random((30, 3))
    analysis = compare_many.analyse(compare_many.resample_blocks(replicates, MODELS, len(ds.y)))
    table, how = compare_blocks.pairs_for(compare_many.RESAMPLES, analysis, pairs, MODELS)
    pd.testing.assert_frame_equal(
        table, compare_many.page_pairs(pairs[pairs["metric"] == "AUC"], MODELS)
    )
    assert (
        how == "the paired AUC test of the table above (DeLong), Holm-adjusted across these pairs"
    )
    lines, note = compare_blocks.holm_explain(analysis, table, compare_many.RESAMPLES)
    assert lines == compare_many.holm_lines(table)
    assert note.endswith("those of the pairs under 'Are the differences real?'.")


def test_mcnemar_on_grouped_rows_gives_no_verdict(ds):
    chosen = dict.fromkeys(MODELS, 0.5)
    table = compare_many.mcnemar_pairs(ds.y, {m: ds.score(m) for m in MODELS}, chosen)
    first = table.iloc[0].to_dict()
    pred_a, pred_b = ds.score("a") >= 0.5, ds.score("b") >= 0.5
    r = metrics.mcnemar_test(ds.y, pred_a, pred_b, exact=first["test"] == "exact")
    assert first["p-value"] == pytest.approx(r.p_value)
    assert compare_blocks.mcnemar_shown(table, grouped=False) is table
    shown = compare_blocks.mcnemar_shown(table, grouped=True)
    assert {"better", "different at 5%", "p-value"}.isdisjoint(shown.columns)
    np.testing.assert_array_equal(shown["row-level p"], table["p-value"])
    assert compare_blocks.mcnemar_caption(True).endswith("and ignores the sample weights.")
    assert compare_blocks.mcnemar_note(first).startswith("For a against b.")
    assert compare_blocks.mcnemar_warning("user", compare_many.USERS, True).endswith(
        "user-level ranks above."
    )
    assert "pick them in 'Rank the models over'" in compare_blocks.mcnemar_warning(
        "user", compare_many.SLICES, True
    )
    assert "turn 'Rows are independent' off" in compare_blocks.mcnemar_warning(
        "user", compare_many.SLICES, False
    )
    both = compare_blocks.many_models_csv(shown.head(1), table, shown)
    assert len(both) == 1 + 2 * len(table)
    assert both["table"].tolist()[:2] == ["ranks", "pairs"]


# --- compare_operating ----------------------------------------------------------------------


def test_the_targets_default_to_each_constraints_own_scale():
    assert compare_operating.target_input("top %") == (100.0, 5.0)
    assert compare_operating.target_input("FPR ≤") == (1.0, 0.01)
    assert compare_operating.target_input("recall ≥") == (1.0, 0.9)


def test_operating_points_with_the_rates_intervals(ds):
    rows = []
    for m in MODELS:
        c = metrics.confusion_at_threshold(ds.y, ds.score(m), 0.5)
        rates = {"precision": c.precision, "recall": c.recall, "F1": c.f1, "FPR": c.fpr}
        rows.append(
            {"model": m, "threshold": 0.5, **rates,
             **{f"{k} low": v - 0.01 for k, v in rates.items()},
             **{f"{k} high": v + 0.01 for k, v in rates.items()}}
        )  # fmt: skip
    spread = pd.DataFrame(rows)
    spread.loc[2, "precision"] = math.nan
    points = spread[["model", "threshold"]].assign(**{"rows flagged": 7})
    table = compare_operating.with_intervals(points, spread)
    assert list(table.columns) == [
        "model", "threshold", "precision", "recall", "F1", "FPR", "rows flagged"
    ]  # fmt: skip
    c = metrics.confusion_at_threshold(ds.y, ds.score("b"), 0.5)
    assert table.loc[1, "recall"] == (
        f"{decimals(c.recall)}  [{decimals(c.recall - 0.01)}, {decimals(c.recall + 0.01)}]"
    )
    assert table.loc[2, "precision"] == "undefined"
    s = _settings(ds)
    assert "Brackets: 95% paired bootstrap interval over 150 resamples" in (
        compare_operating.operating_caption(s, 150)
    )
    assert compare_operating.operating_caption(_settings(ds, wanted=False), 0).endswith(
        "Set resamples above 0 for intervals."
    )


def test_the_bands_named_and_explained(ds):
    assert compare_operating.band_name("simultaneous") == "95% simultaneous band"
    assert compare_operating.band_name("pointwise") == "95% band"
    s = _settings(ds, curve_resamples=123)
    roc = compare_operating.roc_band_caption(s, "95% band")
    assert roc.startswith("Shaded: the 95% band of the ROC curve from 123 resampled curves")
    assert "(paired bootstrap)" in roc
    assert "its 95% band shaded" in compare_operating.pr_band_caption("95% band")
    assert compare_operating.rate_caption(120, "95% band").startswith("Each rate at 120 thresholds")
    assert "on each of 123 resamples" in compare_operating.stability_caption("Youden", 123)


def test_the_threshold_stability_table_reads_the_bootstrap(ds):
    fb = metrics.fast_paired_bootstrap(
        ds.y, *(ds.score(m) for m in MODELS), n_resamples=60, best_thresholds=True
    )
    picked = {m: fb.chosen_thresholds["max F1"][:, k] for k, m in enumerate(MODELS)}
    on_all = {m: float(fb.original.chosen["max F1"][0, k]) for k, m in enumerate(MODELS)}
    table = compare_operating.stability_table(picked, on_all)
    assert table["model"].tolist() == list(MODELS)
    v, t = picked["b"], on_all["b"]
    row = table.iloc[1]
    assert row["on all rows"] == t
    assert row["median"] == np.nanquantile(v, 0.5)
    assert row["resamples: 2.5%"] == np.nanquantile(v, 0.025)
    assert row["share within ±10% of it"] == np.mean(np.abs(v - t) <= 0.1 * abs(t))


# --- compare_costs --------------------------------------------------------------------------


def test_ks_table_gives_the_librarys_ks(ds):
    curves = {}
    for m in MODELS:
        r = metrics.ks_statistic(ds.y, ds.score(m))
        curves[m] = (None, None, r.statistic, r.threshold)
    table = compare_costs.ks_table(curves)
    r = metrics.ks_statistic(ds.y, ds.score("c"))
    assert table.loc[2, "KS"] == f"{decimals(r.statistic)}"
    assert table.loc[2, "at threshold"] == r.threshold
    fb = metrics.fast_paired_bootstrap(
        ds.y, *(ds.score(m) for m in MODELS), n_resamples=40, ks=True
    )
    iv = fb.results["ks"].models[0]
    with_intervals = compare_costs.ks_table(curves, fb.results["ks"].models)
    assert with_intervals.loc[0, "KS"] == (
        f"{decimals(iv.estimate)}  [{decimals(iv.ci_low)}, {decimals(iv.ci_high)}]"
    )
    assert compare_costs.ks_caption(40, True).endswith("; its interval over 40 resamples.")
    assert compare_costs.ks_caption(40, False).endswith("where it is reached.")


def test_the_cost_caption_names_each_models_least_cost(ds):
    least = {}
    for m in MODELS:
        c = metrics.expected_cost(ds.y, ds.score(m), cost_fp=0.73, cost_fn=4.91)
        least[m] = (c.cost[c.best], f"{c.best_threshold:.3f}")
    caption = compare_costs.cost_caption(least)
    cost, at = least["b"]
    assert f"; b {cost:,.4g} at {at};" in caption
    assert f"{cost:,.4g}" != f"{cost:,.3g}"  # four significant digits, as the page says
    assert caption.endswith(".")
    assert compare_costs.decision_caption(80, "paired bootstrap", True).endswith(
        " Shaded: 95% band over 80 resamples (paired bootstrap)."
    )
    assert compare_costs.decision_caption(80, "", False) == compare_costs.DECISION_CAPTION


# --- compare_rows ---------------------------------------------------------------------------


def test_the_flip_table_is_the_librarys(ds):
    y, a, b = ds.y, ds.score("a"), ds.score("c")
    flips = metrics.flip_table(y, a, 0.5, b, 0.4)
    cells = compare_rows.flip_cells(flips, "a", "c")
    assert cells.loc["a predicts positive", "c negative"] == (
        f"{flips.agreement[1, 0]:,.0f} ({flips.counts[1, 1, 0]:,.0f} / "
        f"{flips.counts[0, 1, 0]:,.0f})"
    )
    rates = compare_rows.flip_rates(flips, "a", "c")
    assert f"**{flips.flip_rate:.2%}**" in rates
    assert f"c fixes {flips.b_fixes:,.0f} of a's errors" in rates
    choices = compare_rows.flip_choices(y, ("a", a, 0.5), ("c", b, 0.4))
    disagree, fixes, breaks = choices.values()
    assert disagree.sum() == pytest.approx(flips.flip_rate * y.size)
    assert fixes.sum() == flips.b_fixes
    assert breaks.sum() == flips.b_breaks
    assert list(choices)[1:] == ["c fixes a's error", "c breaks what a got right"]
    caption = compare_rows.flips_caption(("a", "0.5"), ("c", "0.4"), "clicked", "ignored")
    assert caption.startswith("Each model at its own threshold (a ≥ 0.5, c ≥ 0.4).")


def test_the_slice_controls_and_their_caption():
    assert compare_rows.column_pairs(("d", "c", "x")) == [("d", "c"), ("d", "x"), ("c", "x")]
    assert compare_rows.column_pairs(("d",)) == []
    assert compare_rows.cross_label(None) == "no"
    assert compare_rows.cross_label(("d", "c")) == "d × c"
    assert "cluster bootstrap interval (whole user values" in compare_rows.slices_caption(
        "user", True
    )
    assert "AUC with DeLong's 95% interval" in compare_rows.slices_caption("user", False)


def test_the_calibration_curves_are_the_librarys(ds):
    scores = {m: ds.score(m) for m in MODELS}
    curves = compare_rows.calibration_curves(ds.y, scores, 7, "quantile", None)
    assert list(curves) == list(MODELS)
    want = metrics.calibration_curve(ds.y, scores["b"], n_bins=7, strategy="quantile")
    for got, expected in zip(curves["b"], want, strict=True):
        np.testing.assert_array_equal(got, expected)


# --- the family the stars rest on (issue 51 §1) -------------------------------------------------


def test_the_headers_and_captions_name_the_family(ds):
    table, pairs, _, helps = _tables(ds, n_resamples=50)
    specs = summaries.metric_specs(probabilities=True, groups=ds.prepared.groups)
    found, pairs, family = summaries.verdicts_in_family(
        table, pairs.drop(columns=["Holm p", "role", "verdict"]), specs, n_resamples=50
    )
    assert compare_table.column_label("AUC", family) == "AUC (primary)"
    assert compare_table.column_label("AP", family) == "AP (exploratory)"
    caption = compare_table.star_caption(_settings(ds), family)
    assert "within the declared family of tests" in caption
    assert r"Primary metric AUC, declared before looking\: Holm across its 3 pairs" in caption
    assert all(found[n].best is None for n in helps if n != "AUC")
    lines = compare_pairs.pair_lines(pairs, 50, None)
    ap = [line for line, m in zip(lines, pairs["metric"], strict=True) if m == "AP"]
    assert all("exploratory on AP, no verdict" in line and "Holm p" not in line for line in ap)
    assert all(line.endswith("(paired bootstrap)") for line in ap)
    assert "only they can be" in compare_pairs.pairs_caption(_settings(ds))
    _, _, every = summaries.verdicts_in_family(
        table, pairs.drop(columns=["Holm p", "role", "verdict"]), specs, family="all"
    )
    assert compare_table.column_label("AP", every) == "AP"
    assert every.size == len(pairs)
    assert "every metric × pair" in compare_pairs.pairs_caption(_settings(ds, family="all"))
    choices = compare_setup.family_choices(0.1, grouped=False, probabilities=True)
    assert list(choices.values()) == ["AUC", "AP", "pAUC (FPR ≤ 0.1)", "Brier", "Log loss", "all"]
