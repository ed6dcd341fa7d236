"""``check``'s guaranteed targets ('recall@precision>=0.9@95%'): parsed, gated on the bound."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics_lens.check import parse_metric
from metrics_lens.inputs import BadInput
from tests.lens_browser import ROOT, run_module


def test_parse_reads_the_target_the_confidence_and_the_metrics():
    spec = parse_metric("Recall@Precision>=0.9@95%")
    assert (spec.kind, spec.reported, spec.constraint) == ("guarantee", "recall", "precision")
    assert (spec.value, spec.confidence) == (0.9, 0.95)
    assert parse_metric("recall@fpr<=0.05@99%").constraint == "fpr"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("recall@fpr>=0.05@95%", "fpr is held <= its target; write fpr<=P"),
        ("recall@precision<=0.9@95%", "precision is held >= its target"),
        ("recall@precision>=1.5@95%", "the target needs 0 < P < 1"),
        ("recall@precision>=0.9@100%", "the confidence 50 <= C <= 99.9999"),
        ("recall@precision>=0.9@30%", "the confidence 50 <= C <= 99.9999"),
    ],
)
def test_bad_targets_get_one_sentence(text, message):
    with pytest.raises(BadInput, match=message):
        parse_metric(text)


def _table(tmp_path, n=1500, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    frame = pd.DataFrame(
        {
            "label": y.astype(int),
            "weak": rng.normal(size=n) + 0.3 * y,
            "strong": rng.normal(size=n) + 2.5 * y,
        }
    )
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_check_passes_on_the_bound_and_fails_without_one(tmp_path):
    path, frame = _table(tmp_path)
    target = "recall@precision>=0.9@95%"
    ok = run_module("check", str(path), "--baseline", "weak", "--candidate", "strong",
                    "--metric", target, "--json", cwd=tmp_path)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    row = json.loads(ok.stdout)["results"][0]
    want = metrics.threshold_with_guarantee(
        frame["label"], frame["strong"], metric="precision", target=0.9
    )
    assert f"lower bound {want.bound:.4f}" in row["reason"]
    recall = metrics.confusion_at_threshold(frame["label"], frame["strong"], want.threshold).recall
    assert row["candidate"] == pytest.approx(recall)
    bad = run_module("check", str(path), "--baseline", "strong", "--candidate", "weak",
                     "--metric", target, cwd=tmp_path)  # fmt: skip
    assert bad.returncode == 1
    assert "no threshold of the candidate holds precision at 0.9 with 95% confidence" in bad.stdout


def test_check_help_names_the_syntax():
    out = run_module("check", "--help", cwd=ROOT)
    assert "recall@precision>=P@C%" in out.stdout
