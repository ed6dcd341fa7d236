"""ui/analyses/decision_rules.py: predictions against direct loops, tables against counts recounted by
hand and against scikit-learn, on generated tables with ties, empty rows, absent classes and
zero/fractional weights."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from tests.strategies import examples
from ui.analyses import decision_rules as dr
from ui.figures.multilabel_charts import ClassScores
from ui.words.numbers import count


@st.composite
def problems(draw, multiclass: bool | None = None):
    """Small multi-label or multi-class problems: tied scores, rows with no label, a class
    with no positives, integer or fractional or zero weights."""
    n = draw(st.integers(1, 25))
    c = draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    levels = draw(st.sampled_from([1, 2, 3, 5, 1000]))  # 1: every score tied
    scores = rng.integers(0, levels, (n, c)) / max(levels - 1, 1)
    mc = draw(st.booleans()) if multiclass is None else multiclass
    if mc:
        truth = rng.integers(0, c, n)
        if draw(st.booleans()):
            truth[:] = truth[0]  # one class only: the others have no positives
        y = np.zeros((n, c), dtype=bool)
        y[np.arange(n), truth] = True
    else:
        y = rng.random((n, c)) < draw(st.sampled_from([0.0, 0.2, 0.5, 0.9]))
        if draw(st.booleans()):
            y[:, 0] = False  # a class with no positives
    weight = draw(st.sampled_from(["none", "ints", "fractions", "zeros"]))
    w = None
    if weight == "ints":
        w = rng.integers(1, 4, n).astype(float)
    elif weight == "fractions":
        w = rng.uniform(0.1, 2.0, n).round(2)
    elif weight == "zeros":
        w = rng.integers(0, 3, n).astype(float)
        w[0] = 1.0
    classes = tuple(f"k{i}" for i in range(c))
    return ClassScores("generated", y, scores, classes, w, multiclass=mc)


def _rules(draw, p: ClassScores) -> dr.Rule:
    if p.multiclass:
        kind = draw(st.sampled_from(["argmax", "abstain", "top-k"]))
    else:
        kind = draw(st.sampled_from(["shared", "per-class", "top-k"]))
    if kind == "abstain":
        return dr.Rule("abstain", threshold=draw(st.sampled_from([0.0, 0.3, 0.5, 1.0])))
    if kind == "top-k":
        return dr.Rule("top-k", k=draw(st.integers(1, p.n_classes + 1)))
    if kind == "shared":
        return dr.Rule("shared", threshold=draw(st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.5])))
    if kind == "per-class":
        values = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, np.inf]), min_size=p.n_classes,
                               max_size=p.n_classes))  # fmt: skip
        return dr.Rule("per-class", thresholds=tuple(values))
    return dr.Rule("argmax")


def _loop_predictions(p: ClassScores, rule: dr.Rule) -> np.ndarray:
    """The rule, one row and one class at a time."""
    out = np.zeros(p.y.shape, dtype=bool)
    for i in range(p.n_rows):
        row = list(p.scores[i])
        if rule.kind in ("argmax", "abstain"):
            best = 0
            for j in range(1, p.n_classes):
                if row[j] > row[best]:
                    best = j
            if rule.kind == "argmax" or row[best] >= rule.threshold:
                out[i, best] = True
        elif rule.kind == "top-k":
            order = sorted(range(p.n_classes), key=lambda j: (-row[j], j))
            for j in order[: rule.k]:
                out[i, j] = True
        else:
            for j in range(p.n_classes):
                t = rule.threshold if rule.kind == "shared" else rule.thresholds[j]
                out[i, j] = row[j] >= t
    return out


def _div(a: float, b: float) -> float:
    return a / b if b else 0.0


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_rules_and_per_class_table_against_loops(data):
    p = data.draw(problems())
    rule = _rules(data.draw, p)
    pred = _loop_predictions(p, rule)
    np.testing.assert_array_equal(dr.indicator(p, rule), pred)
    beta = data.draw(st.sampled_from([1.0, 0.5, 2.0]))
    ev = dr.evaluate(p, rule, beta=beta)
    table = dr.per_class_table(ev)
    w = np.ones(p.n_rows) if p.weight is None else p.weight
    b2 = beta**2
    for c in range(p.n_classes):
        tp = fp = fn = tn = 0.0
        for i in range(p.n_rows):
            t, q = bool(p.y[i, c]), bool(pred[i, c])
            tp += w[i] * (t and q)
            fp += w[i] * (q and not t)
            fn += w[i] * (t and not q)
            tn += w[i] * (not t and not q)
        r = table.iloc[c]
        assert r["class"] == p.classes[c]
        np.testing.assert_allclose(
            [r["TP"], r["FP"], r["FN"], r["TN"]], [tp, fp, fn, tn], atol=1e-9
        )
        np.testing.assert_allclose(r["support"], tp + fn)
        np.testing.assert_allclose(r["precision"], _div(tp, tp + fp), atol=1e-12)
        np.testing.assert_allclose(r["recall"], _div(tp, tp + fn), atol=1e-12)
        fb = _div((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)
        np.testing.assert_allclose(r[f"F{beta:g}"], fb, atol=1e-12)
        np.testing.assert_allclose(r["Jaccard"], _div(tp, tp + fp + fn), atol=1e-12)
        den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        mcc = (tp * tn - fp * fn) / den if den else 0.0
        np.testing.assert_allclose(r["MCC"], mcc, atol=1e-9)
    if beta != 1:
        np.testing.assert_allclose(table["F1"], ev.f1)


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_averages_table_equals_scikit_learn(data):
    p = data.draw(problems())
    rule = _rules(data.draw, p)
    ev = dr.evaluate(p, rule)
    table = dr.averages_table(ev).set_index("metric")
    yt, yp, labels = dr.predictions(p, rule)
    fns = {
        "precision": skm.precision_score,
        "recall": skm.recall_score,
        "F1": skm.f1_score,
        "Jaccard": skm.jaccard_score,
    }
    for name, fn in fns.items():
        for avg in dr.AVERAGES:
            got = table.loc[name, avg]
            if rule.single and avg == "samples":
                assert np.isnan(got)
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = fn(yt, yp, average=avg, labels=labels, sample_weight=p.weight)
            np.testing.assert_allclose(got, want, atol=1e-12, err_msg=f"{name} {avg}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc = skm.accuracy_score(yt, yp, sample_weight=p.weight)
    np.testing.assert_allclose(ev.accuracy, acc)
    if rule.kind == "argmax" and (p.weight is None or p.weight.sum() > 0):
        # one true and one predicted class per row: micro-F1 is accuracy
        np.testing.assert_allclose(ev.averages[("F1", "micro")], ev.accuracy, atol=1e-12)


@settings(max_examples=examples(80), deadline=None)
@given(problems(multiclass=False), st.sampled_from([0.0, 0.5, 1.0]))
def test_samples_terms_and_empty_rows(p, t):
    rule = dr.Rule("shared", threshold=t)
    ev = dr.evaluate(p, rule)
    row_f1 = dr.samples_row_f1(ev)
    pred = _loop_predictions(p, rule)
    for i in range(p.n_rows):
        inter = int((p.y[i] & pred[i]).sum())
        size = int(p.y[i].sum() + pred[i].sum())
        assert row_f1[i] == pytest.approx(_div(2 * inter, size))
    w = np.ones(p.n_rows) if p.weight is None else p.weight
    if w.sum() > 0:
        np.testing.assert_allclose(np.average(row_f1, weights=w), ev.averages[("F1", "samples")])
    no_true = [i for i in range(p.n_rows) if not p.y[i].any()]
    assert ev.n_no_true == len(no_true)
    assert ev.n_no_true_predicted == sum(pred[i].any() for i in no_true)
    text = " ".join(dr.lessons(ev, multiclass=False))
    if no_true:
        assert f"{len(no_true):,} of {p.n_rows:,} rows have no true label" in text
    else:
        assert "Every row has at least one true label" in text


def test_wine_like_argmax_lesson_and_abstention_matrix():
    rng = np.random.default_rng(3)
    n, c = 60, 3
    truth = rng.integers(0, c, n)
    y = np.zeros((n, c), dtype=bool)
    y[np.arange(n), truth] = True
    s = rng.dirichlet(np.ones(c), n) + 0.5 * y
    s /= s.sum(axis=1, keepdims=True)
    p = ClassScores("wine-like", y, s, ("a", "b", "c"), multiclass=True)
    ev = dr.evaluate(p, dr.Rule("argmax"))
    acc = float(np.mean(np.argmax(s, axis=1) == truth))
    assert ev.accuracy == pytest.approx(acc)
    assert f"accuracy {acc:.4f}" in dr.lessons(ev, True)[0]
    assert f"micro-F1 {acc:.4f}" in dr.lessons(ev, True)[0]
    ab = dr.evaluate(p, dr.Rule("abstain", threshold=0.6))
    fig = dr.rule_confusion_figure(ab)
    z = np.asarray(fig.data[0].z)
    assert list(fig.data[0].x) == ["pred a", "pred b", "pred c", f"pred {dr.ABSTAINED}"]
    for i in range(c):
        for j in range(c):
            want = sum((truth == i) & (np.argmax(s, axis=1) == j) & (s.max(axis=1) >= 0.6))
            assert z[i, j] == want
        assert z[i, c] == sum((truth == i) & (s.max(axis=1) < 0.6))
    assert ab.n_no_pred == int((s.max(axis=1) < 0.6).sum())
    by_row = np.asarray(dr.rule_confusion_figure(ab, "true").data[0].z)
    np.testing.assert_allclose(by_row.sum(axis=1), 1)
    # the abstained rows are misses: recall falls, precision does not count them
    np.testing.assert_allclose(ab.recall, [z[i, i] / z[i].sum() for i in range(c)])


@pytest.mark.parametrize("normalize", [None, "true", "pred", "all"])
def test_normalized_equals_scikit_learn(normalize):
    rng = np.random.default_rng(5)
    t, q = rng.integers(0, 4, 50), rng.integers(0, 4, 50)
    t[t == 3] = 2  # class 3 never true: an all-zero row
    counts = skm.confusion_matrix(t, q, labels=[0, 1, 2, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = skm.confusion_matrix(t, q, labels=[0, 1, 2, 3], normalize=normalize)
    np.testing.assert_allclose(dr.normalized(counts, normalize), want)


def test_class_matrices_figure_shows_each_class_counts():
    y = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 0]], dtype=bool)
    s = np.array([[0.9, 0.2, 0.1], [0.6, 0.7, 0.2], [0.4, 0.8, 0.9], [0.1, 0.1, 0.1]])
    p = ClassScores("small", y, s, ("x", "y", "z"))
    ev = dr.evaluate(p, dr.Rule("shared", threshold=0.5))
    fig = dr.class_matrices_figure(ev)
    assert len(fig.data) == 3
    for c, trace in enumerate(fig.data):
        m = ev.mcm[c]
        np.testing.assert_array_equal(trace.customdata, [[m[1, 1], m[1, 0]], [m[0, 1], m[0, 0]]])
    # class x: TP rows 0; FN row 2 (0.4); FP row 1 (0.6)
    assert fig.data[0].text[0] == ["TP 1", "FN 1"]
    assert fig.data[0].text[1] == ["FP 1", "TN 1"]
    assert [a.text for a in fig.layout.annotations] == ["x", "y", "z"]


def test_explain_lines_fill_the_formulas_with_the_counts():
    y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]], dtype=bool)
    s = np.array([[0.9, 0.2], [0.6, 0.7], [0.4, 0.8], [0.1, 0.6]])
    p = ClassScores("small", y, s, ("x", "y"))
    ev = dr.evaluate(p, dr.Rule("shared", threshold=0.5))
    # x: TP 1 (row 0), FP 1 (row 1), FN 1 (row 2); y: TP 2, FP 1 (row 3), FN 0
    micro, _ = dr.explain_lines(ev, "micro")
    assert r"\frac{3}{3 + 2}" in micro[0]
    assert r"\frac{2 \cdot 3}{2 \cdot 3 + 2 + 1}" in micro[2]
    assert micro[2].endswith(r"\tfrac{2}{3}")
    macro, _ = dr.explain_lines(ev, "macro")
    assert r"\frac{\tfrac{1}{2} + \tfrac{4}{5}}{2}" in macro[0]
    weighted, _ = dr.explain_lines(ev, "weighted")
    assert r"2 \cdot \tfrac{1}{2} + 2 \cdot \tfrac{4}{5}" in weighted[0]
    samples, note = dr.explain_lines(ev, "samples")
    assert "1 row with no true label" in note
    assert samples[0].endswith(dr.tex(ev.averages[("F1", "samples")]))


def test_finite_thresholds_predict_the_same_rows():
    s = np.array([[0.2, 0.9], [0.8, 0.95], [0.5, 0.1]])
    p = ClassScores("small", np.zeros((3, 2), dtype=bool), s, ("a", "b"))
    got = dr.finite_thresholds(p, np.array([np.inf, 0.9]))
    assert np.isfinite(got).all()
    assert got[1] == 0.9
    np.testing.assert_array_equal(
        metrics.predict_at_thresholds(s, got), metrics.predict_at_thresholds(s, [np.inf, 0.9])
    )


def test_thresholds_table_holds_the_library_choice():
    rng = np.random.default_rng(1)
    y = rng.random((80, 3)) < [0.5, 0.2, 0.05]
    s = (0.4 * y + rng.random(y.shape)).round(2)
    p = ClassScores("t", y, s, ("a", "b", "c"))
    best = metrics.optimise_thresholds(y, s, objective="macro")
    micro = metrics.optimise_thresholds(y, s, objective="micro")
    table = dr.thresholds_table(p, best, micro)
    # written with fewer digits, each shown threshold predicts the rows the chosen one does
    for column, choice in (("best F1 threshold", best), ("micro-optimal threshold", micro)):
        for c in range(3):
            shown, chosen = table[column][c], choice.thresholds[c]
            np.testing.assert_array_equal(s[:, c] >= shown, s[:, c] >= chosen)
    # the per-class F1 at the chosen thresholds is what the per-class rule then shows
    ev = dr.evaluate(p, dr.Rule("per-class", thresholds=tuple(best.thresholds)))
    np.testing.assert_allclose(table["F1 there"], ev.f1)
    np.testing.assert_allclose(ev.averages[("F1", "macro")], best.macro)


# --- the cost matrix (ui/analyses/cost_matrix.py) ---------------------------------------------------------


def _exact_proba(draw, p: ClassScores) -> np.ndarray:
    """Scores k / 2^m: every product and sum with integer costs is exact in floating point, so
    ties in expected cost are exact ties for the library and for the loop alike."""
    levels = draw(st.sampled_from([1, 2, 3, 5, 9, 17]))  # 1: every score 0, every cost tied
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    return rng.integers(0, levels, (p.n_rows, p.n_classes)) / max(levels - 1, 1)


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_cost_comparison_against_loops(data):
    from ui.analyses import cost_matrix as cm

    p = data.draw(problems(multiclass=True))
    proba = _exact_proba(data.draw, p)
    c = p.n_classes
    cost = np.array(
        data.draw(st.lists(st.integers(0, 5), min_size=c * c, max_size=c * c)), dtype=float
    ).reshape(c, c)
    if data.draw(st.booleans()):
        np.fill_diagonal(cost, 0)
    r = cm.compare(p, proba, cost)
    w = np.ones(p.n_rows) if p.weight is None else p.weight
    truth = [int(np.flatnonzero(p.y[i])[0]) for i in range(p.n_rows)]
    ours, top = [], []
    for i in range(p.n_rows):
        expected = [sum(proba[i, a] * cost[a, j] for a in range(c)) for j in range(c)]
        ours.append(min(range(c), key=lambda j: (expected[j], j)))  # a tie: the first column
        top.append(min(range(c), key=lambda j: (-proba[i, j], j)))
        np.testing.assert_array_equal(cm.expected_costs(proba[i], cost), expected)
    np.testing.assert_array_equal(r.comparison.min_cost_pred, ours)
    np.testing.assert_array_equal(r.comparison.argmax_pred, top)
    total_ours = sum(w[i] * cost[truth[i], ours[i]] for i in range(p.n_rows))
    total_top = sum(w[i] * cost[truth[i], top[i]] for i in range(p.n_rows))
    assert r.min_cost_total == pytest.approx(total_ours, abs=1e-9)
    assert r.argmax_total == pytest.approx(total_top, abs=1e-9)
    assert r.saving_total == pytest.approx(total_top - total_ours, abs=1e-9)
    assert r.comparison.changed == sum(a != b for a, b in zip(ours, top, strict=True))
    np.testing.assert_array_equal(r.changed_rows, [i for i in range(p.n_rows) if ours[i] != top[i]])
    table = cm.class_table(r)
    assert table["cost, min cost"].sum() == pytest.approx(total_ours, abs=1e-9)
    assert table["cost, argmax"].sum() == pytest.approx(total_top, abs=1e-9)
    names = np.asarray(p.classes)
    for pred, conf, recall in (
        (ours, r.confusion_min_cost, r.recall_min_cost),
        (top, r.confusion_argmax, r.recall_argmax),
    ):
        loop = np.zeros((c, c))
        for i in range(p.n_rows):
            loop[truth[i], pred[i]] += w[i]
        np.testing.assert_allclose(conf, loop, atol=1e-9)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = skm.recall_score(
                names[truth], names[pred], labels=list(p.classes), average=None,
                sample_weight=p.weight, zero_division=np.nan,
            )  # fmt: skip
        np.testing.assert_allclose(recall, want, atol=1e-12)
    np.testing.assert_allclose(table["recall change"], r.recall_min_cost - r.recall_argmax)
    # the 0-1 cost is argmax
    zero_one = cm.compare(p, proba, cm.default_cost(c))
    np.testing.assert_array_equal(zero_one.comparison.min_cost_pred, top)
    assert zero_one.saving_total == 0


def test_cost_row_unfolded_with_the_users_numbers():
    from ui.analyses import cost_matrix as cm

    y = np.eye(3, dtype=bool)[[0, 1, 2, 0]]
    proba = np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.125, 0.375, 0.5], [0.75, 0.25, 0]])
    p = ClassScores("small", y, proba, ("cat", "dog", "fish"), multiclass=True)
    cost = cm.missing_cost(cm.default_cost(3), 2, 10.0)  # missing a fish costs 10
    np.testing.assert_array_equal(cost, [[0, 1, 1], [1, 0, 1], [10, 10, 0]])
    r = cm.compare(p, proba, cost)
    # row 0: E = (0.25*1 + 0.25*10, 0.5 + 2.5, 0.5 + 0.25) = (2.75, 3, 0.75): fish
    table = cm.row_table(r, 0)
    np.testing.assert_allclose(table["expected cost if predicted"], [2.75, 3.0, 0.75])
    assert table["picked by"].tolist() == ["argmax", "", "min expected cost"]
    assert table["true class"].tolist() == [True, False, False]
    lines, note = cm.explain_lines(r, 0)
    assert lines[0] == r"p = (\text{cat}: 0.5,\ \text{dog}: 0.25,\ \text{fish}: 0.25)"
    assert lines[1].endswith(r"0.5 \cdot 0 + 0.25 \cdot 1 + 0.25 \cdot 10 = 2.75")
    assert lines[3].endswith(r"= 0.75\quad\leftarrow \min")
    assert r"\arg\min_j" in lines[4]
    assert lines[4].endswith(r"\arg\max_j p_j = \text{cat}")
    assert r"C_{\text{truth},\,\hat y} = 1" in lines[5]
    assert "Elkan" in note
    # rows 0 and 1 switch to fish (row 1: E = (0.25 + 2.5, 2.75, 0.75)); rows 2, 3 do not
    np.testing.assert_array_equal(r.changed_rows, [0, 1])
    assert r.argmax_total == 0  # argmax is right on every row here
    assert r.min_cost_total == 2
    assert "2 rows change decision, and the realised cost **rises** by 2" in cm.summary(r)
    many = cm.explain_lines(cm.compare(p, proba, cost), 0, max_classes=2)
    assert len(many[0]) == 2 + 2 + 1  # p, the argmin's and argmax's lines (truth = argmax), ...
    assert "only the chosen" in many[1]


def test_cost_editor_frame_parses_and_says_what_is_wrong():
    from ui.analyses import cost_matrix as cm

    classes = ("a", "b", "c")
    frame = cm.editor_frame(classes, cm.default_cost(3))
    assert frame.columns.tolist() == [cm.CORNER, "a", "b", "c"]
    cost, message = cm.parse_cost(frame, classes)
    np.testing.assert_array_equal(cost, cm.default_cost(3))
    assert message == ""
    frame.loc[1, "a"] = -2.0
    frame.loc[2, "b"] = np.nan
    cost, message = cm.parse_cost(frame, classes)
    assert cost is None
    assert "true c → predicted b is empty, not a number" in message
    assert "true b → predicted a is -2, below 0" in message
    assert "The rest of the page is unaffected" in message
    text = frame.astype(object)
    text.loc[1, "a"] = "lots"
    text.loc[2, "b"] = np.inf
    cost, message = cm.parse_cost(text, classes)
    assert cost is None
    assert "'lots', not a number" in message
    assert "inf, not a number" in message
    cost, message = cm.parse_cost(frame.drop(columns="c"), classes)
    assert cost is None
    assert "one row and one column per class (3)" in message
    with pytest.raises(ValueError, match=">= 0"):
        cm.missing_cost(cm.default_cost(3), 0, -1.0)
    # a column that never beats another
    said = cm.dominated(np.array([[0, 2, 1], [1, 3, 1], [1, 2, 0]]), classes)
    assert said == [
        "Predicting b costs at least as much as predicting a whatever the truth: the "
        "minimum-expected-cost rule never prefers b to a."
    ]
    assert cm.dominated(cm.default_cost(3), classes) == []


def test_cost_probabilities_used_normalised_or_refused():
    from ui.analyses import cost_matrix as cm

    s = np.array([[0.2, 0.8], [0.5, 0.5]])
    got = cm.probabilities(s)
    assert got.proba is s or np.array_equal(got.proba, s)
    assert not got.normalised
    assert not got.refusal
    raw = np.array([[0.2, 0.4], [0.9, 0.9]])
    got = cm.probabilities(raw)
    np.testing.assert_allclose(got.proba.sum(axis=1), 1)
    np.testing.assert_allclose(got.proba, [[1 / 3, 2 / 3], [0.5, 0.5]])
    assert got.normalised
    assert "sum to 0.6–1.8, not 1: each row was divided by its sum" in got.note
    pct = cm.probabilities(np.array([[20.0, 80.0]]), "percent")
    np.testing.assert_allclose(pct.proba, [[0.2, 0.8]])
    assert "NaN" in cm.probabilities(np.array([[np.nan, 1.0]])).refusal
    margin = cm.probabilities(np.array([[-1.0, 2.0]]), "margin", "scores of both signs")
    assert margin.proba is None
    assert "read as margin (scores of both signs)" in margin.refusal
    assert "Calibration page" in margin.refusal
    zero = cm.probabilities(np.array([[0.0, 0.0], [0.5, 0.5]]))
    assert zero.proba is None
    assert "1 row scores 0 for every class" in zero.refusal


def test_weighted_rules_speak_of_weight_and_print_weights_like_counts():
    """On a weighted table the rarest-class sentence gives the class's true weight, not a row
    count, and a weight of 78.5 prints as "78.5" (beside "381"), not "78.500"."""
    rng = np.random.default_rng(5)
    n, c = 40, 3
    truth = np.r_[np.zeros(30, int), np.ones(7, int), np.full(3, 2)]
    y = np.zeros((n, c), dtype=bool)
    y[np.arange(n), truth] = True
    s = rng.dirichlet(np.ones(c), n) + 0.5 * y
    w = np.where(truth == 2, 1.5, 1.0)  # class c: 3 rows of weight 4.5
    weighted = dr.evaluate(ClassScores("w", y, s, ("a", "b", "c"), weight=w, multiclass=True),
                           dr.Rule("argmax"))  # fmt: skip
    assert weighted.weighted
    text = " ".join(dr.lessons(weighted, True))
    assert "**The rarest class, c** (true rows of weight 4.5, " in text
    plain = dr.evaluate(ClassScores("p", y, s, ("a", "b", "c"), multiclass=True), dr.Rule("argmax"))
    assert "**The rarest class, c** (3 true rows, " in " ".join(dr.lessons(plain, True))
    assert [count(x) for x in (381, 78.5, 1234.5678, 0.25, 2e6)] == [
        "381", "78.5", "1,234.568", "0.25", "2,000,000"
    ]  # fmt: skip


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False),
            st.sampled_from([0.0, 0.717641, 0.71762, 0.7176, 1e-9, -0.3, 5e-324]),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_a_typed_threshold_selects_the_same_rows_and_is_no_longer(values):
    """The threshold a page writes (0.7176 for 0.717641...) predicts the same rows as the one
    chosen, for every score used as a threshold: ties, negative, tiny and huge scores."""
    col = np.array(values)
    for t in np.unique(col):
        cut = dr.typed_cut(col, t)
        np.testing.assert_array_equal(col >= cut, col >= t)
        assert cut <= t
        assert len(repr(cut)) <= len(repr(float(t)))
    assert dr.typed_cut(col, np.inf) == np.inf


def test_zero_division_notes_give_the_value_without_advice_the_page_cannot_follow():
    """A class no row is predicted: the library warns and says to pass zero_division=; the page
    has no such control, so its note gives the value and scikit-learn's default instead."""
    y = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=bool)
    s = np.array([[0.9, 0.1, 0.0], [0.2, 0.7, 0.1], [0.5, 0.4, 0.1], [0.8, 0.1, 0.1]])
    ev = dr.evaluate(ClassScores("z", y, s, ("a", "b", "c"), multiclass=True), dr.Rule("argmax"))
    said = [m for msgs in ev.notes.values() for m in msgs]
    assert any("Precision is ill-defined and set to 0.0" in m for m in said), said
    assert not any("zero_division" in m for m in said), said
    assert any(m.endswith("(scikit-learn's default).") for m in said), said
