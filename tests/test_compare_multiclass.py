"""Compare on per-class tables (issue 31 §1-2): a table's classes are never ranked against each
other; two or more multi-class / multi-label models are compared with the library's values,
intervals and verdicts."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from tests.apptest_utils import markdown_text, open_page, upload_frame
from ui.tables.loading import guess_mapping


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def multilabel_table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """One model's label_<class> / score_<class> pairs; the first class is the best scored, so
    ranking classes as models would star it."""
    rng = np.random.default_rng(seed)
    frame = {}
    for k, (c, strength) in enumerate((("health", 2.5), ("limit", 0.8), ("insurance", 0.2))):
        y = rng.random(n) < 0.3 + 0.1 * k
        frame[f"label_{c}"] = y.astype(int)
        frame[f"score_{c}"] = 1 / (1 + np.exp(-(rng.normal(size=n) + strength * (2 * y - 1))))
    order = [f"label_{c}" for c in ("health", "limit", "insurance")]
    return pd.DataFrame(frame)[order + [f"score_{c}" for c in ("health", "limit", "insurance")]]


def two_model_multiclass(n: int = 300, seed: int = 1) -> tuple[pd.DataFrame, np.ndarray, dict]:
    """A Chile-like export with two models: respondent (row number), region, vote, lr__A ..."""
    rng = np.random.default_rng(seed)
    classes = np.array(list("ANUY"))
    y = rng.integers(0, 4, n)
    truth = np.eye(4, dtype=bool)[y]
    probs = {
        "lr": _softmax(rng.normal(size=(n, 4)) + 1.6 * truth),
        "hgb": _softmax(rng.normal(size=(n, 4)) + 1.0 * truth),
    }
    frame = pd.DataFrame(
        {"respondent": np.arange(1, n + 1), "region": rng.choice(["C", "M", "N", "S"], n),
         "vote": classes[y]}
    )  # fmt: skip
    for m, p in probs.items():
        for k, c in enumerate(classes):
            frame[f"{m}__{c}"] = p[:, k]
    return frame, y, probs


def _numbers(cell: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.\d+", cell)]


def test_one_multilabel_model_gets_a_sentence_and_never_ranks_its_classes():
    at = open_page("pages/compare.py")
    upload_frame(at, multilabel_table())
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    text = " ".join(i.value for i in at.info)
    assert "never the classes of one" in text
    assert "two or more models" in text
    assert "Multi-class & multi-label page" in text
    assert len(at.dataframe) == 0  # no class-vs-class numbers
    assert "★" not in markdown_text(at)
    assert not any("best" in m.value for m in at.markdown)
    assert not any(re.search(r"\d\.\d{3}", m.value) for m in at.markdown)


def test_two_multiclass_models_are_compared_with_the_values_of_scikit_learn():
    frame, y, probs = two_model_multiclass()
    assert guess_mapping(frame).class_models == ("lr", "hgb")
    at = open_page("pages/compare.py")
    upload_frame(at, frame)
    at.switch_page("pages/compare.py").run()
    at.select_slider(key="compare_mc_resamples").set_value(200).run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert table["model"].tolist() == ["lr", "hgb"]
    for i, m in enumerate(("lr", "hgb")):
        p, pred = probs[m], np.argmax(probs[m], axis=1)
        expected = {
            "macro AUC": skm.roc_auc_score(y, p, multi_class="ovr", average="macro"),
            "micro AUC": skm.roc_auc_score(y, p, multi_class="ovr", average="micro"),
            "weighted AUC": skm.roc_auc_score(y, p, multi_class="ovr", average="weighted"),
            "macro AP": skm.average_precision_score(np.eye(4)[y], p, average="macro"),
            "log loss": skm.log_loss(y, p),
            "Brier": skm.brier_score_loss(y, p),
            "accuracy": skm.accuracy_score(y, pred),
            "macro F1": skm.f1_score(y, pred, average="macro"),
            "micro F1": skm.f1_score(y, pred, average="micro"),
        }
        for metric, value in expected.items():
            shown, low, high = _numbers(table.loc[i, metric])
            assert shown == pytest.approx(value, abs=5e-5), (m, metric)
            assert low <= shown <= high
    # lr is built stronger: starred on macro AUC, with the library's verdict in words.
    assert table.loc[0, "macro AUC"].startswith("★ ")
    assert not table.loc[1, "macro AUC"].startswith("★")
    text = markdown_text(at)
    assert "lr is best" in text
    assert "lr is better than hgb on macro AUC by" in text
    # The family (issue 51): macro AUC primary, the rest exploratory, accuracy = micro-F1 once.
    said = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "Primary metric macro AUC, declared before looking: one test (its one pair)" in said
    assert "One number, tested once: accuracy = micro F1." in said
    plain = text.replace("\\", "")
    assert "exploratory on accuracy, no verdict" in plain
    assert "exploratory on micro F1, no verdict" in plain
    assert "(the same number as accuracy)" in plain
    assert not table.loc[0, "accuracy"].startswith("★")
    # The per-class rows on demand: four classes, two models, each within a class.
    per_class = at.dataframe[1].value
    assert per_class.shape[0] == 8
    for k, c in enumerate("ANUY"):
        row = per_class[(per_class["class"] == c) & (per_class["model"] == "hgb")].iloc[0]
        auc = skm.roc_auc_score(y == k, probs["hgb"][:, k])
        assert _numbers(row["AUC"])[0] == pytest.approx(auc, abs=5e-5)


def test_one_multiclass_model_with_a_row_number_first_gets_the_sentence():
    frame, _, _ = two_model_multiclass()
    one = frame[["respondent", "region", "vote"]].assign(
        **{f"score_{c}": frame[f"lr__{c}"] for c in "ANUY"}
    )
    at = open_page("pages/compare.py")
    upload_frame(at, one)
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    assert not at.error  # the table is usable: vote is the label, not respondent
    assert "never the classes of one" in " ".join(i.value for i in at.info)
    assert len(at.dataframe) == 0


def test_every_metric_family_and_a_cut_off_that_disagrees_with_the_ranking():
    """A multi-label pair where a ranks every class better (macro AUC) but scores everything
    below 0.5, so macro-F1 at 0.5 favours b: the page says why they disagree, and under the
    every-metric family Holm covers every test."""
    rng = np.random.default_rng(5)
    y = (rng.random((400, 3)) < 0.4).astype(int)
    frame = pd.DataFrame({f"label_{c}": y[:, k] for k, c in enumerate("xyz")})
    scores = {
        "a": 0.4 / (1 + np.exp(-(2.5 * (2 * y - 1) + rng.normal(size=y.shape)))),
        "b": 1 / (1 + np.exp(-(0.8 * (2 * y - 1) + rng.normal(size=y.shape)))),
    }
    for m, s in scores.items():
        for k, c in enumerate("xyz"):
            frame[f"{m}__{c}"] = s[:, k]
    at = open_page("pages/compare.py")
    upload_frame(at, frame)
    at.switch_page("pages/compare.py").run()
    at.select_slider(key="compare_mc_resamples").set_value(100).run()
    assert not at.exception, at.exception
    said = " ".join(i.value for i in at.info).replace("\\", "")
    assert "macro AUC favours a while" in said
    assert "at the decision rule (score ≥ 0.5) favour" in said
    assert "a thresholded metric depends on the cut-off" in said
    at.selectbox(key="compare_mc_family").set_value("every metric (Holm)").run()
    assert not at.exception, at.exception
    caption = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "Every metric: Holm across 11 metrics × 1 pair (11 tests)" in caption
    assert "exploratory" not in markdown_text(at)
