"""A gate never passes on an undefined value (issue: ``recall@precision=0.3`` printed "candidate
nan" and exited 0). Tables are generated so that each metric is undefined in one of the ways
users meet: one class only in a slice, one class of zero weight, a precision target a model
never reaches, every score tied, no group holding both classes."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics_lens.check import ALL_ROWS, gate, parse_metric, text_report
from metrics_lens.cli import main
from metrics_lens.inputs import Table
from tests.strategies import examples
from ui.tables.loading import ColumnMapping

NAN_WORD = re.compile(r"\bnan\b", re.IGNORECASE)


def _scores_file(tmp_path, n: int = 2000):
    """``hgb`` ranks well; ``weak`` ranks the negatives first, so with 10% positives its
    precision never reaches 0.3."""
    rng = np.random.default_rng(0)
    y = rng.random(n) < 0.1
    frame = pd.DataFrame(
        {
            "label": y.astype(int),
            "hgb": 1 / (1 + np.exp(-(3 * y + rng.normal(size=n) - 1.5))),
            "weak": 1 / (1 + np.exp(-(-2 * y + rng.normal(size=n)))),
        }
    )
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_a_candidate_that_never_reaches_the_precision_fails_and_is_named(tmp_path, capsys):
    path, frame = _scores_file(tmp_path)
    y = frame["label"].to_numpy() == 1
    order = np.argsort(-frame["weak"].to_numpy(), kind="stable")
    highest = max(np.cumsum(y[order])[k] / (k + 1) for k in range(y.size))
    code = main(["check", str(path), "--baseline", "hgb", "--candidate", "weak",
                 "--metric", "recall@precision=0.3", "--resamples", "200"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1, out
    assert (
        f"FAIL  recall@precision=0.3   all rows: candidate weak never reaches precision 0.3: "
        f"its highest is {highest:.4f}; baseline hgb" in out
    )
    assert not NAN_WORD.search(out)
    code = main(["check", str(path), "--baseline", "hgb", "--candidate", "weak", "--json",
                 "--metric", "recall@precision=0.3", "--resamples", "200"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert (code, result["exit_code"], result["passed"]) == (1, 1, False)
    assert result["results"][0]["candidate"] is None
    assert "candidate weak never reaches precision 0.3" in result["results"][0]["reason"]


def test_a_baseline_that_never_reaches_it_is_refused_with_exit_2(tmp_path, capsys):
    path, _ = _scores_file(tmp_path)
    code = main(["check", str(path), "--baseline", "weak", "--candidate", "hgb",
                 "--metric", "recall@precision=0.3", "--resamples", "200"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "recall@precision=0.3 is undefined on all rows (baseline weak never reaches " in err
    assert out.strip().splitlines()[-1].startswith("REFUSED: ")
    assert not NAN_WORD.search(out + err)


# --- generated: every metric, every way of being undefined -----------------------------------


def _table(frame: pd.DataFrame, weight, groups) -> Table:
    return Table(
        name="t", frame=frame, mapping=ColumnMapping(label="y", scores=("a", "b"), group="g"),
        y=frame["y"].to_numpy() == 1,
        scores={"a": frame["a"].to_numpy(float), "b": frame["b"].to_numpy(float)},
        groups=groups, weight=weight, n_dropped=0,
    )  # fmt: skip


@st.composite
def undefined_tables(draw):
    """A table with a ``part`` slice column, where something is undefined on purpose."""
    n = draw(st.integers(12, 90))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    prevalence = draw(st.sampled_from([0.1, 0.2, 0.5]))
    y = rng.random(n) < prevalence
    y[0], y[1] = True, False
    part = np.where(rng.random(n) < 0.5, "p", "q")
    how = draw(
        st.sampled_from(
            [
                "one_class_slice",
                "zero_weight_class",
                "zero_weight_slice",
                "tied",
                "inverted",
                "no_mixed_group",
                "plain",
            ]
        )
    )

    def model(kind):
        if kind == "tied":
            return np.full(n, 0.5)
        if kind == "inverted":
            return -y.astype(float) + 0.1 * rng.random(n)
        return y * draw(st.floats(0.0, 2.0)) + rng.normal(size=n)

    kinds = [draw(st.sampled_from(["tied", "inverted", "normal"])) for _ in range(2)]
    if how in ("tied", "inverted"):
        kinds[draw(st.integers(0, 1))] = how
    a, b = (model(k) for k in kinds)
    w = None
    if how == "one_class_slice":
        part[y] = "p"  # slice q has negatives only
        part[1] = "q"
    elif how == "zero_weight_class":
        w = np.where(y, 0.0, 1.0) if draw(st.booleans()) else np.where(y, 1.0, 0.0)
    elif how == "zero_weight_slice":
        w = np.ones(n)
        w[(part == "q") & y] = 0.0
    groups = None
    if how == "no_mixed_group":
        groups = np.where(y, "pos", "neg")  # every group one class: no group AUC anywhere
    elif draw(st.booleans()):
        groups = rng.integers(0, 5, n).astype(str)
    frame = pd.DataFrame({"y": y.astype(int), "a": a, "b": b, "part": part})
    return _table(frame, w, groups), how


METRICS = ["auc", "ap", "f1@0.3", "recall@precision=0.3", "recall@precision=0.9", "gauc"]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=undefined_tables(), metric=st.sampled_from(METRICS), strict=st.booleans())
def test_no_gate_passes_on_an_undefined_value(case, metric, strict):
    table, how = case
    spec = parse_metric(metric)
    if spec.kind == "gauc" and table.groups is None:
        return
    both = np.concatenate([table.scores["a"], table.scores["b"]])
    if spec.kind == "f1" and not both.min() < spec.value <= both.max():
        return  # refused before any work (BadInput), tested in test_check.py
    g = gate(table, "a", "b", [spec], slice_column="part", strict=strict, n_resamples=100)
    text = text_report(g)
    assert not NAN_WORD.search(text), text
    assert not NAN_WORD.search(json.dumps(g.to_json()))
    for r in g.rows:
        if r.passed is True:  # a pass stands on defined values and a defined interval
            assert np.isfinite(r.baseline), r
            assert np.isfinite(r.candidate), r
            assert not np.isnan(r.lower), r
            assert not np.isnan(r.upper), r
        if r.passed is None:
            assert r.reason, r
        if np.isnan(r.candidate) and r.passed is not None:
            assert r.passed is False
    (whole,) = [r for r in g.rows if r.slice == ALL_ROWS]
    if whole.passed is None:
        assert g.exit_code in (1, 2)  # a failing slice still reads as a failure
        assert g.exit_code == 2 or g.failing
        assert g.exit_code != 0
    assert g.exit_code == (1 if g.failing else 2 if g.refused else 0)
    assert g.passed == (g.exit_code == 0)
    if how == "zero_weight_class":
        assert whole.passed is None
        assert "zero total weight" in whole.reason or spec.kind == "gauc"
    if how == "one_class_slice" and spec.kind != "gauc":
        (q,) = [r for r in g.rows if r.slice == "part = q"]
        assert q.passed is None
        assert "one class only" in q.reason


def test_a_slice_of_one_class_is_skipped_and_all_rows_still_decide():
    rng = np.random.default_rng(3)
    n = 400
    y = rng.random(n) < 0.4
    part = np.where(y, "p", np.where(rng.random(n) < 0.5, "p", "q"))
    a = y + rng.normal(size=n)
    frame = pd.DataFrame({"y": y.astype(int), "a": a, "b": a + 0.01, "part": part})
    g = gate(_table(frame, None, None), "a", "b", [parse_metric("auc")], slice_column="part",
             n_resamples=100)  # fmt: skip
    assert g.exit_code == 0
    assert (
        "SKIP  auc                    part = q: undefined (one class only: no positive rows)"
        in (text_report(g))
    )
