"""``metrics-lens check``: the gate's bounds against a slow reference, and its exit codes.

The bounds are checked against :func:`metrics.paired_bootstrap` with the metric written out
(Poisson counts from the same seed draw the same resamples as the fast bootstrap), and the group
resampling against recomputing the metric on expanded copies of the drawn groups.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from metrics_lens.check import gate, parse_metric
from metrics_lens.cli import main
from metrics_lens.inputs import BadInput, Table
from tests.strategies import binary_tables, examples
from ui.tables.loading import ColumnMapping


def _table(y, a, b, *, weight=None, groups=None, extra=None) -> Table:
    frame = pd.DataFrame({"y": y.astype(int), "a": a, "b": b, **(extra or {})})
    return Table(
        name="t", frame=frame, mapping=ColumnMapping(label="y", scores=("a", "b")),
        y=np.asarray(y, bool), scores={"a": np.asarray(a, float), "b": np.asarray(b, float)},
        groups=groups, weight=weight, n_dropped=0,
    )  # fmt: skip


def _slow(spec, y, s, sample_weight=None):
    """Each metric computed the plain way, for the reference bootstrap."""
    if spec.kind == "auc":
        return metrics.roc_auc_score(y, s, sample_weight=sample_weight)
    if spec.kind == "ap":
        return metrics.average_precision_score(y, s, sample_weight=sample_weight)
    if spec.kind == "f1":
        c = metrics.confusion_at_threshold(y, s, spec.value, sample_weight=sample_weight)
        return c.f1
    return metrics.recall_at_precision(y, s, spec.value, sample_weight=sample_weight).value


def _ordered_differences(pairs) -> np.ndarray:
    """candidate - baseline per resample, the gate's rule written out: both undefined left
    out, the candidate alone undefined -inf, the baseline alone +inf."""
    out = []
    for base, cand in pairs:
        if np.isnan(base) and np.isnan(cand):
            continue
        out.append(-np.inf if np.isnan(cand) else np.inf if np.isnan(base) else cand - base)
    return np.array(out)


def _quantiles(d: np.ndarray, alpha: float):
    method = "inverted_cdf" if np.isinf(d).any() else "linear"
    return np.quantile(d, [alpha, 1 - alpha], method=method)


def _reference_bounds(spec, y, a, b, w, *, n, seed, alpha):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = metrics.paired_bootstrap(
            lambda yy, s, sample_weight=None: _slow(spec, yy, s, sample_weight),
            y, a, b, n_resamples=n, seed=seed, sample_weight=w, counts="poisson",
        )  # fmt: skip
    d = _ordered_differences(r.replicates)
    return _quantiles(d, alpha) if d.size else None


def _reference_decision(spec, y, a, b, w):
    """None (undefined: refuse on all rows), False (the candidate alone undefined: fail) or
    "bootstrap" (both defined: the bounds decide), from the full rows."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base, cand = _slow(spec, y, a, w), _slow(spec, y, b, w)
    if w is not None and not (w[y].sum() > 0 and w[~y].sum() > 0):
        return None
    if np.isnan(base):
        return None
    return False if np.isnan(cand) else "bootstrap"


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=binary_tables(max_size=70, max_models=2, weights=True),
    metric=st.sampled_from(["auc", "ap", "f1@0.3", "recall@precision=0.6"]),
    alpha=st.sampled_from([0.05, 0.1, 0.2]),
    max_drop=st.sampled_from([0.0, 0.01, 0.1]),
    strict=st.booleans(),
)
def test_bounds_and_decision_match_a_slow_paired_bootstrap(data, metric, alpha, max_drop, strict):
    y = data.y
    a = data.scores[0]
    b = data.scores[-1] if len(data.scores) > 1 else data.scores[0][::-1].copy()
    spec = parse_metric(metric)
    both = np.concatenate([a, b])
    if spec.kind == "f1" and not both.min() < spec.value <= both.max():
        # every row on one side of the threshold for both models: refused, not passed
        with pytest.raises(BadInput, match="would compare nothing"):
            gate(_table(y, a, b, weight=data.weights), "a", "b", [spec], n_resamples=120)
        return
    g = gate(
        _table(y, a, b, weight=data.weights), "a", "b", [spec], alpha=alpha,
        max_drop=max_drop, strict=strict, n_resamples=120, seed=7,
    )  # fmt: skip
    (row,) = g.rows
    decision = _reference_decision(spec, y, a, b, data.weights)
    bounds = _reference_bounds(spec, y, a, b, data.weights, n=120, seed=7, alpha=alpha)
    if decision is None or (decision == "bootstrap" and bounds is None):
        assert row.passed is None  # undefined on all rows: refused, never passed
        assert g.exit_code == 2
        assert g.error.startswith(f"{spec.text} is undefined on all rows (")
        return
    if decision is False:  # the candidate cannot reach what the baseline reaches
        assert row.passed is False
        assert g.exit_code == 1
        assert np.isnan(row.candidate)
        assert np.isfinite(row.baseline)
        return
    low, high = bounds
    assert row.lower == pytest.approx(low, abs=1e-12)
    assert row.upper == pytest.approx(high, abs=1e-12)
    expected = low >= -max_drop if strict else high >= -max_drop
    assert row.passed == expected
    assert g.exit_code == (0 if expected else 1)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=binary_tables(max_size=40, max_models=2, groups=True))
def test_group_resampling_equals_expanded_copies_of_the_drawn_groups(data):
    """recall@precision with a group column: each resample recomputed on real copies of rows."""
    y, a = data.y, data.scores[0]
    b = data.scores[-1] if len(data.scores) > 1 else -a
    spec = parse_metric("recall@precision=0.5")
    n, seed, alpha = 100, 3, 0.1
    (row,) = gate(_table(y, a, b, groups=data.groups), "a", "b", [spec], alpha=alpha,
                  n_resamples=n, seed=seed).rows  # fmt: skip
    codes = pd.factorize(pd.Series(data.groups), sort=True)[0]
    rng = np.random.default_rng(seed)
    decision = _reference_decision(spec, y, a, b, None)
    if decision != "bootstrap":
        assert row.passed is decision
        return
    pairs = []
    for _ in range(n):
        counts = rng.poisson(1.0, size=codes.max() + 1)
        rows = np.repeat(np.arange(y.size), counts[codes])
        yy = y[rows]
        if yy.any() and not yy.all():
            pairs.append((_slow(spec, yy, a[rows]), _slow(spec, yy, b[rows])))
    diffs = _ordered_differences(pairs)
    if diffs.size == 0:
        assert row.passed is None
        return
    low, high = _quantiles(diffs, alpha)
    assert row.lower == pytest.approx(low, abs=1e-12)
    assert row.upper == pytest.approx(high, abs=1e-12)


def test_identical_models_pass_in_both_modes():
    rng = np.random.default_rng(0)
    y = rng.random(300) < 0.4
    a = rng.random(300) + y
    for strict in (False, True):
        g = gate(_table(y, a, a.copy()), "a", "b", [parse_metric("auc")], strict=strict)
        assert g.passed
        assert g.rows[0].lower == 0.0
        assert g.rows[0].upper == 0.0


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [("auc", "auc", None), ("AP", "ap", None), ("gauc", "gauc", None), ("f1@0.25", "f1", 0.25),
     ("recall@precision=0.9", "recall@precision", 0.9)],
)  # fmt: skip
def test_metric_names_parse(text, kind, value):
    spec = parse_metric(text)
    assert (spec.kind, spec.value) == (kind, value)


@pytest.mark.parametrize("text", ["auroc", "f1@", "f1@x", "recall@precision=1.5", "f1@nan"])
def test_unknown_metrics_are_refused_with_the_list_of_known_ones(text):
    with pytest.raises(BadInput, match=r"auc|recall@precision"):
        parse_metric(text)


# --- the command's exit codes ----------------------------------------------------------------


@pytest.fixture(scope="module")
def predictions(tmp_path_factory):
    """2,000 rows in 100 users, two regions: ``better`` beats ``base`` everywhere except in
    region b, where it is noise; ``worse`` is noise everywhere; ``near`` is ``base`` a hair worse."""
    rng = np.random.default_rng(11)
    n = 2000
    user = rng.integers(0, 100, n)
    region = np.where(rng.random(n) < 0.3, "b", "a")
    y = rng.random(n) < 0.35
    base = y * 1.0 + rng.normal(0, 1.0, n)
    better = y * 2.0 + rng.normal(0, 1.0, n)
    better[region == "b"] = rng.normal(0, 1.0, (region == "b").sum())
    frame = pd.DataFrame(
        {
            "user": [f"u{u:03d}" for u in user],
            "region": region,
            "y": y.astype(int),
            "base": 1 / (1 + np.exp(-base)),
            "better_overall": 1 / (1 + np.exp(-better)),
            "worse": rng.random(n),
            "near": 1 / (1 + np.exp(-(base + rng.normal(0, 0.05, n)))),
            "all_ones": np.ones(n, int),
        }
    )
    path = tmp_path_factory.mktemp("check") / "preds.csv"
    frame.to_csv(path, index=False)
    return path


def _run(capsys, *argv):
    code = main(["check", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


METRICS = ["auc", "ap", "f1@0.5", "recall@precision=0.6"]


@pytest.mark.parametrize("metric", METRICS)
def test_a_worse_candidate_exits_1_and_a_better_one_0(predictions, capsys, metric):
    common = [predictions, "--label", "y", "--baseline", "base", "--metric", metric,
              "--resamples", 300]  # fmt: skip
    code, out, _ = _run(capsys, *common, "--candidate", "worse")
    assert code == 1, out
    assert out.strip().splitlines()[-1].startswith("FAILED")
    code, out, _ = _run(capsys, *common, "--candidate", "better_overall")
    assert code == 0, out
    assert out.strip().splitlines()[-1] == "passed"


def test_gauc_gates_both_ways_with_a_group_column(predictions, capsys):
    common = [predictions, "--label", "y", "--group", "user", "--baseline", "base",
              "--metric", "gauc", "--resamples", 300]  # fmt: skip
    assert _run(capsys, *common, "--candidate", "worse")[0] == 1
    assert _run(capsys, *common, "--candidate", "better_overall")[0] == 0


def test_the_allowed_drop_lets_a_slightly_worse_candidate_pass(predictions, capsys):
    common = [predictions, "--label", "y", "--baseline", "base", "--candidate", "worse",
              "--metric", "auc", "--resamples", 300]  # fmt: skip
    assert _run(capsys, *common)[0] == 1
    assert _run(capsys, *common, "--max-drop", "0.5")[0] == 0


def test_strict_mode_needs_evidence_of_non_inferiority(predictions, capsys):
    """``near`` is ``base`` plus a little noise: the default passes it, strict non-inferiority
    with no margin cannot show it is not worse, and a margin of 0.02 can."""
    common = [predictions, "--label", "y", "--baseline", "base", "--candidate", "near",
              "--metric", "auc", "--resamples", 300]  # fmt: skip
    assert _run(capsys, *common)[0] == 0
    assert _run(capsys, *common, "--strict")[0] == 1
    assert _run(capsys, *common, "--strict", "--max-drop", "0.02")[0] == 0


def test_every_slice_is_gated_and_the_failing_one_listed(predictions, capsys):
    common = [predictions, "--label", "y", "--baseline", "base", "--candidate", "better_overall",
              "--metric", "auc", "--resamples", 300, "--json"]  # fmt: skip
    code, out, _ = _run(capsys, *common)
    assert code == 0
    assert json.loads(out)["passed"] is True
    code, out, _ = _run(capsys, *common, "--slice", "region")
    report = json.loads(out)
    assert code == 1
    assert report["exit_code"] == 1
    assert report["failing"] == [{"metric": "auc", "slice": "region = b"}]
    by_slice = {r["slice"]: r for r in report["results"]}
    assert set(by_slice) == {"all rows", "region = a", "region = b"}
    assert by_slice["region = a"]["passed"] is True
    assert by_slice["region = b"]["upper"] < 0


def test_json_values_are_the_librarys(predictions, capsys):
    _code, out, _ = _run(capsys, predictions, "--label", "y", "--baseline", "base", "--candidate",
                        "better_overall", "--metric", "ap", "--json", "--resamples", 200)  # fmt: skip
    frame = pd.read_csv(predictions)
    (row,) = json.loads(out)["results"]
    y = frame["y"].to_numpy() == 1
    assert row["baseline"] == metrics.average_precision_score(y, frame["base"])
    assert row["candidate"] == metrics.average_precision_score(y, frame["better_overall"])
    assert row["rows"] == len(frame)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--candidate", "better_overall", "--metric", "auroc"], "Unknown metric 'auroc'"),
        (["--candidate", "nope", "--metric", "auc"], "No column named 'nope'"),
        (["--candidate", "better_overall", "--metric", "gauc", "--group", "none"],
         "gauc needs a user or query"),
        (["--candidate", "better_overall", "--metric", "auc", "--label", "all_ones"],
         "one class only"),
        (["--candidate", "better_overall", "--metric", "auc", "--label", "missing_col"],
         "No column named 'missing_col'"),
        (["--candidate", "better_overall", "--metric", "auc", "--slice", "nowhere"],
         "No column named 'nowhere'"),
        (["--candidate", "better_overall", "--metric", "auc", "--alpha", "0.7"], "--alpha"),
        (["--candidate", "better_overall", "--metric", "f1@1.5"], "above every score"),
        (["--candidate", "better_overall", "--metric", "f1@-3"], "at or below every score"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(predictions, capsys, args, says):
    if "--label" not in args:
        args = [*args, "--label", "y"]
    code, _out, err = _run(capsys, predictions, "--baseline", "base", *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert says in err
    assert "Traceback" not in err


def test_bad_input_with_json_prints_a_json_error_too(predictions, capsys):
    code, out, err = _run(capsys, predictions, "--label", "y", "--baseline", "base",
                          "--candidate", "b", "--metric", "nope", "--json")  # fmt: skip
    assert code == 2
    assert json.loads(out) == {
        "passed": False,
        "exit_code": 2,
        "error": err.split("error: ", 1)[1].strip(),
    }


def test_help_explains_how_the_gate_decides(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["check", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "one-sided (1 - alpha) bounds" in text
    assert "exit 1 when U < -max_drop" in text
    assert "non-inferiority" in text


def test_the_user_column_the_dashboard_guesses_is_resampled_and_said(predictions, capsys):
    """The same file gives the same numbers in the command as in the dashboard: its guessed
    user column ('user') groups the resamples unless --group none, and the log says which."""
    args = ("--label", "y", "--baseline", "base", "--candidate", "better_overall", "--metric",
            "auc", "--resamples", 200)  # fmt: skip
    _code, out, _ = _run(capsys, predictions, *args)
    assert "200 resamples of user values" in out
    assert "--group user" in out
    assert "--group none" in out
    _code, out, _ = _run(capsys, predictions, *args, "--group", "none")
    assert "200 resamples of rows" in out
    assert "--group user" not in out


def test_scores_of_the_other_class_are_named_with_the_way_out(tmp_path, capsys):
    """A spam/ham log scored for spam, gated with --pos-label ham: every number is right for
    ham, and the log and --json say the scores rank spam higher and how to turn the label."""
    rng = np.random.default_rng(4)
    y = rng.random(400) < 0.4
    frame = pd.DataFrame({"label": np.where(y, "spam", "ham"),
                          "a": y + rng.normal(0, 1, 400), "b": y + rng.normal(0, 1, 400)})  # fmt: skip
    path = tmp_path / "mail.csv"
    frame.to_csv(path, index=False)
    common = [path, "--label", "label", "--baseline", "a", "--candidate", "b", "--metric", "auc",
              "--resamples", 200]  # fmt: skip
    _, out, _ = _run(capsys, *common, "--pos-label", "ham")
    warned = [line for line in out.splitlines() if line.startswith("WARNING")]
    assert len(warned) == 2, out  # both models
    assert "a ranks label = spam above label = ham: AUC 0.2" in warned[0]
    assert "pass --pos-label spam" in warned[0]
    _, out, _ = _run(capsys, *common, "--pos-label", "ham", "--json")
    assert len(json.loads(out)["warnings"]) == 2
    _, out, _ = _run(capsys, *common, "--pos-label", "spam")
    assert "WARNING" not in out
