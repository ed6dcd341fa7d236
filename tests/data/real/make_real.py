"""Write the real-shaped export corpus and its manifest (run from the repository root:
``python tests/data/real/make_real.py``). Deterministic: the same files every time.

The manifest is the ground truth a careful data scientist would write down for each file:
which column is the label and which value is positive, which columns are models and on what
scale, which are the user / query group and the weight, which are slices, and which must never be
taken as a model. Default thresholds are computed here with a brute-force loop over the distinct
scores, independently of the project's code: 0.5 for probabilities, 50 for percentages, and for
other scales the highest score t whose rows (score >= t) weigh at least as much as the positives.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
rng = np.random.default_rng(20261123)
MANIFEST: dict[str, dict] = {}


def _threshold(scale: str, positive: np.ndarray, score: np.ndarray, weight=None) -> float:
    if scale == "probability":
        return 0.5
    if scale == "percent":
        return 50.0
    keep = ~np.isnan(score)
    s, y = score[keep], positive[keep]
    w = np.ones(s.size) if weight is None else np.asarray(weight, float)[keep]
    need = w[y].sum()
    best = None
    for t in np.unique(s):
        if w[s >= t].sum() >= need - 1e-9:
            best = t  # unique() is ascending: the last one that qualifies is the highest
    return float(best)


def _latent(positive: np.ndarray, separation: float = 1.2) -> np.ndarray:
    return rng.normal(size=positive.size) + separation * positive


def _prob(z: np.ndarray) -> np.ndarray:
    return np.round(1 / (1 + np.exp(-(z - 1))), 4)


def write(
    name: str,
    frame: pd.DataFrame,
    *,
    label: str,
    pos_label,
    positive: np.ndarray,
    scores: dict[str, str],
    group: str | None = None,
    weight: str | None = None,
    ignore: list[str] = (),
    slices: list[str] = (),
    sep: str = ",",
    decimal: str = ".",
    what: str,
) -> None:
    path = HERE / name
    frame.to_csv(path, index=False, sep=sep, decimal=decimal)
    w = None if weight is None else frame[weight].to_numpy(float)
    MANIFEST[name] = {
        "what": what,
        "label": label,
        "pos_label": pos_label,
        "scores": {
            col: {
                "scale": scale,
                "threshold": _threshold(
                    scale, positive, pd.to_numeric(frame[col], errors="coerce").to_numpy(float), w
                ),
            }
            for col, scale in scores.items()
        },
        "group": group,
        "weight": weight,
        "ignore": list(ignore),
        "slice": list(slices),
    }


def main() -> None:
    n = 400
    y = rng.random(n) < 0.3
    z = _latent(y)
    write(
        "percent_scores.csv",
        pd.DataFrame(
            {"label": y.astype(int), "model_pct": np.round(_prob(z) * 100, 2), "p": _prob(z + 0.3)}
        ),
        label="label", pos_label=1, positive=y,
        scores={"model_pct": "percent", "p": "probability"},
        what="0/1 labels; one model as a percentage with decimals, one as a probability",
    )  # fmt: skip

    y = rng.random(n) < 0.25
    z = _latent(y, 1.5)
    write(
        "percent_integers.csv",
        pd.DataFrame(
            {
                "outcome": np.where(y, "yes", "no"),
                "score": np.round(_prob(z) * 100).astype(int),
            }
        ),
        label="outcome", pos_label="yes", positive=y, scores={"score": "percent"},
        what='"yes"/"no" labels; whole-number percentages',
    )  # fmt: skip

    y = rng.random(n) < 0.2
    write(
        "logits_true_false.csv",
        pd.DataFrame(
            {
                "target": np.where(y, "TRUE", "FALSE"),
                "logit_a": np.round(_latent(y) - 1.5, 3),
                "logit_b": np.round(_latent(y, 0.8) - 1.5, 3),
            }
        ),
        label="target", pos_label=True, positive=y,
        scores={"logit_a": "margin", "logit_b": "margin"},
        what="TRUE/FALSE labels (read as booleans); two models as logits of both signs",
    )  # fmt: skip

    y = rng.random(n) < 0.35
    write(
        "margins_minus_one.csv",
        pd.DataFrame(
            {
                "label": np.where(y, 1, -1),
                "log_prob": np.round(-np.abs(rng.normal(size=n)) * 3 + 1.5 * y - 1.5, 4),
                "svm_margin": np.round(_latent(y) - 0.6, 4),
            }
        ),
        label="label", pos_label=1, positive=y,
        scores={"log_prob": "margin", "svm_margin": "margin"},
        what="-1/1 labels; a log-probability (never above 0) and an SVM margin of both signs",
    )  # fmt: skip
    assert MANIFEST["margins_minus_one.csv"]  # log_prob must be <= 0 everywhere:
    frame = pd.read_csv(HERE / "margins_minus_one.csv")
    if frame["log_prob"].max() > 0:
        raise SystemExit("log_prob went above 0; change the generator")

    y = rng.random(n) < 0.3
    clicks = rng.poisson(np.where(y, 60, 25)) + rng.integers(0, 200, n)
    write(
        "counts.csv",
        pd.DataFrame(
            {"clicked": y.astype(int), "n_views_7d": clicks, "p_click": _prob(_latent(y))}
        ),
        label="clicked", pos_label=1, positive=y,
        scores={"n_views_7d": "rank", "p_click": "probability"},
        what="a count used as a score (whole numbers beyond 100) beside a probability",
    )  # fmt: skip

    m = 600
    users = rng.integers(0, 60, m)
    y = rng.random(m) < 0.12
    ts = pd.Timestamp("2026-03-01") + pd.to_timedelta(np.sort(rng.integers(0, 86400 * 7, m)), "s")
    write(
        "click_log.csv",
        pd.DataFrame(
            {
                "timestamp": ts.strftime("%Y-%m-%d %H:%M:%S"),
                "user_id": [f"u{u:03d}" for u in users],
                "session_id": [f"s{u:03d}-{d}" for u, d in zip(users, ts.day, strict=True)],
                "item_id": rng.integers(10_000, 99_999, m),
                "item": rng.integers(0, 5_000, m),
                "clicked": y.astype(int),
                "model_a": _prob(_latent(y)),
                "model_b": _prob(_latent(y, 0.9)),
            }
        ),
        label="clicked", pos_label=1, positive=y, group="user_id",
        scores={"model_a": "probability", "model_b": "probability"},
        ignore=["timestamp", "session_id", "item_id", "item"],
        what="a click log: user, session and item ids, a timestamp, two models",
    )  # fmt: skip

    y = rng.random(n) < 0.15
    write(
        "spam_ham.csv",
        pd.DataFrame({"label": np.where(y, "spam", "ham"), "spam_score": _prob(_latent(y, 2))}),
        label="label", pos_label="spam", positive=y, scores={"spam_score": "probability"},
        what='"spam"/"ham" labels, spam the rarer',
    )  # fmt: skip

    y = rng.random(n) < 0.3
    write(
        "clicked_not_clicked.csv",
        pd.DataFrame(
            {"event": np.where(y, "clicked", "not_clicked"), "ctr_model": _prob(_latent(y))}
        ),
        label="event", pos_label="clicked", positive=y, scores={"ctr_model": "probability"},
        what='"clicked"/"not_clicked": the word, not the substring, is positive',
    )  # fmt: skip

    y = rng.random(n) < 0.6  # the positive class is the majority here
    write(
        "upper_case_yes_no_majority.csv",
        pd.DataFrame({"churned": np.where(y, "YES", "NO"), "churn_prob": _prob(_latent(y) + 1)}),
        label="churned", pos_label="YES", positive=y, scores={"churn_prob": "probability"},
        what='"YES"/"NO" in capitals, YES the majority: still the positive class',
    )  # fmt: skip

    y = rng.random(n) < 0.8
    write(
        "majority_ones.csv",
        pd.DataFrame({"y": y.astype(int), "score": _prob(_latent(y) + 1)}),
        label="y", pos_label=1, positive=y, scores={"score": "probability"},
        what="0/1 labels with 1 in 80% of rows: 1 stays positive",
    )  # fmt: skip

    y = rng.random(n) < 0.1
    write(
        "rare_value_positive.csv",
        pd.DataFrame(
            {"status": np.where(y, "defect", "ok"), "line": rng.choice(["A", "B", "C"], n),
             "defect_prob": _prob(_latent(y, 1.8))}
        ),
        label="status", pos_label="defect", positive=y, scores={"defect_prob": "probability"},
        slices=["line"],
        what="two arbitrary words, the rarer (defect) positive; a production line to slice by",
    )  # fmt: skip

    y = rng.random(n) < 0.3
    model = _prob(_latent(y)).astype(object)
    model[rng.choice(n, 5, replace=False)] = None
    write(
        "blank_scores.csv",
        pd.DataFrame({"label": y.astype(int), "model": model, "baseline": _prob(_latent(y, 0.5))}),
        label="label", pos_label=1, positive=y,
        scores={"model": "probability", "baseline": "probability"},
        what="a score column with five blank cells",
    )  # fmt: skip

    k = 500
    y = rng.random(k) < 0.2
    wide = {
        "request_id": [f"req-{i:06x}" for i in rng.permutation(k)],
        "row": np.arange(1, k + 1),
        "event_date": pd.date_range("2026-01-01", periods=k, freq="h").strftime("%Y-%m-%d"),
        "ts": 1_767_225_600 + np.arange(k) * 60,
        "country": rng.choice(["DE", "FR", "US", "JP"], k),
        "device": rng.choice(["ios", "android", "web"], k),
        "browser": rng.choice(["chrome", "safari", "firefox"], k),
        "app_version": "4.2.0",
        "age": rng.integers(18, 80, k),
        "income": np.round(rng.lognormal(10, 0.5, k), 2),
        "tenure_days": rng.integers(0, 3000, k),
        "n_orders": rng.poisson(4, k),
        "avg_basket": np.round(rng.gamma(2, 20, k), 2),
        "discount_rate": np.round(rng.random(k) * 0.3, 3),
        "visits_30d": rng.poisson(8, k),
        "is_member": rng.random(k) < 0.4,
        "segment": rng.choice(["new", "regular", "vip"], k),
        "channel": rng.choice(["seo", "ads", "mail", "direct"], k),
        "converted": y.astype(int),
        "pred_xgb": _prob(_latent(y, 1.5)),
        "pred_lr": _prob(_latent(y, 1.0)),
        "notes": [f"customer note {i}" for i in range(k)],
    }
    write(
        "wide_export.csv",
        pd.DataFrame(wide),
        label="converted", pos_label=1, positive=y,
        scores={"pred_xgb": "probability", "pred_lr": "probability"},
        ignore=["request_id", "row", "event_date", "ts", "app_version", "age", "income",
                "tenure_days", "n_orders", "avg_basket", "discount_rate", "visits_30d", "notes"],
        slices=["country", "device", "browser", "is_member", "segment", "channel"],
        what="22 columns: ids, dates, features, categories, a constant, and two model scores",
    )  # fmt: skip

    y = rng.random(n) < 0.3
    write(
        "semicolon_decimal_comma.csv",
        pd.DataFrame({"label": y.astype(int), "score_a": _prob(_latent(y)),
                      "score_b": _prob(_latent(y, 0.7))}),
        label="label", pos_label=1, positive=y,
        scores={"score_a": "probability", "score_b": "probability"},
        sep=";", decimal=",",
        what="a spreadsheet export: semicolons between columns, commas for decimals",
    )  # fmt: skip

    y = rng.random(n) < 0.3
    weights = rng.integers(1, 5, n)
    write(
        "weighted.tsv",
        pd.DataFrame(
            {"y_true": y.astype(int), "y_score": np.round(_latent(y) * 2.5, 3), "weight": weights}
        ),
        label="y_true", pos_label=1, positive=y, weight="weight",
        scores={"y_score": "margin"}, sep="\t",
        what="tab-separated, a weight column, an unbounded score",
    )  # fmt: skip

    m = 500
    sessions = rng.integers(0, 80, m)
    y = rng.random(m) < 0.2
    write(
        "sessions.csv",
        pd.DataFrame(
            {
                "session_id": [f"sess{s:04d}" for s in sessions],
                "position": rng.integers(1, 11, m),
                "clicked": y.astype(int),
                "relevance_score": np.round(_latent(y) * 4 + 10, 3),
            }
        ),
        label="clicked", pos_label=1, positive=y, group="session_id",
        scores={"relevance_score": "margin"},
        slices=["position"],
        what="sessions as groups; a score between 0 and 30 that is no percentage",
    )  # fmt: skip

    y = rng.random(n) < 0.3
    frame = pd.DataFrame({"label": y.astype(int), "prob": _prob(_latent(y))})
    (HERE / "pandas_index.csv").write_text(frame.to_csv(index=True))
    MANIFEST["pandas_index.csv"] = {
        "what": "written by pandas with its index: an unnamed first column of row numbers",
        "label": "label",
        "pos_label": 1,
        "scores": {"prob": {"scale": "probability", "threshold": 0.5}},
        "group": None,
        "weight": None,
        "ignore": ["column_1"],
        "slice": [],
    }

    y = rng.random(n) < 0.25
    write(
        "epoch_millis.csv",
        pd.DataFrame(
            {
                "event_ms": 1_767_225_600_000 + np.sort(rng.integers(0, 10**9, n)),
                "is_fraud": y,
                "fraud_score": np.round(_latent(y, 1.4) * 10 + 50, 1).clip(0, 100),
            }
        ),
        label="is_fraud", pos_label=True, positive=y,
        scores={"fraud_score": "percent"}, ignore=["event_ms"],
        what="booleans as labels, a millisecond timestamp, a 0-100 risk score",
    )  # fmt: skip

    y = rng.random(n) < 0.3
    write(
        "uuid_and_constant.csv",
        pd.DataFrame(
            {
                "id": [f"{rng.integers(0, 2**63):016x}" for _ in range(n)],
                "model_version": "2026-11-01",
                "label": y.astype(int),
                "confidence": _prob(_latent(y)),
            }
        ),
        label="label", pos_label=1, positive=y, scores={"confidence": "probability"},
        ignore=["id", "model_version"],
        what="a random hex id per row and a constant model version",
    )  # fmt: skip

    ordered = dict(sorted(MANIFEST.items()))  # files by name; columns in table order
    (HERE / "manifest.json").write_text(json.dumps(ordered, indent=1) + "\n")
    lines = ["# Real-shaped exports", "", "Written by `make_real.py`; the manifest is the truth "
             "the loader's guesses are tested against.", "", "| file | what it holds |",
             "|---|---|"]  # fmt: skip
    lines += [f"| `{name}` | {spec['what']} |" for name, spec in sorted(MANIFEST.items())]
    (HERE / "README.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
