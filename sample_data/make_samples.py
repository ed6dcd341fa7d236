"""Generate the bundled sample datasets in ``sample_data/``.

Dev-only script: scikit-learn is a dev/test dependency and is never imported by the
product. Run from the repo root with ``python sample_data/make_samples.py``.

Each dataset is built by its own function so more can be added later; ``main()``
calls them all. Output is deterministic: fixed CV splits and model seeds for the files derived
from data bundled with scikit-learn, ``numpy.random.default_rng(0)`` for the synthetic ones.
Nothing is downloaded. ``README.md`` describes every file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import ClassifierMixin
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

OUT_DIR = Path(__file__).resolve().parent
SEED = 0
DECIMALS = 6


def _oof_positive_proba(model: ClassifierMixin, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Out-of-fold P(y == 1), so every score comes from a model that never saw that row."""
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=SEED)
    proba = cross_val_predict(model, x, y, cv=cv, method="predict_proba")
    return proba[:, 1]


def make_breast_cancer() -> Path:
    """Wisconsin Diagnostic Breast Cancer: label 1 = malignant, plus three models' scores."""
    data = load_breast_cancer()
    # sklearn encodes malignant as 0; flip so the positive class is the disease.
    y = (data.target == 0).astype(np.int64)
    x = data.data

    models: dict[str, ClassifierMixin] = {
        # Scaling lets lbfgs converge; max_iter is headroom, not tuning.
        "logistic_regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        "gradient_boosting": HistGradientBoostingClassifier(random_state=SEED),
        "naive_bayes": GaussianNB(),
    }

    frame = pd.DataFrame({"label": y})
    for name, model in models.items():
        frame[name] = _oof_positive_proba(model, x, y).round(DECIMALS)

    path = OUT_DIR / "breast_cancer.csv"
    # Fixed float format keeps the file byte-stable across pandas versions.
    frame.to_csv(path, index=False, float_format=f"%.{DECIMALS}f", lineterminator="\n")
    return path


def _write_csv(frame: pd.DataFrame, name: str, decimals: dict[str, int] | None = None) -> Path:
    """Write ``frame`` with every float column at a fixed number of decimals (byte-stable).

    Float columns get ``DECIMALS`` places unless ``decimals`` names another count for them.
    """
    decimals = decimals or {}
    out = frame.copy()
    for col in out.columns:
        if pd.api.types.is_float_dtype(out[col]):
            places = decimals.get(col, DECIMALS)
            out[col] = [f"{v:.{places}f}" for v in out[col].to_numpy()]
    path = OUT_DIR / name
    out.to_csv(path, index=False, lineterminator="\n")
    return path


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _scaled_logistic() -> ClassifierMixin:
    # Scaling lets lbfgs converge; max_iter is headroom, not tuning.
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))


# Overlapping properties of the digit each 8x8 image shows: the multi-label targets.
DIGIT_LABELS: dict[str, tuple[int, ...]] = {
    "even": (0, 2, 4, 6, 8),
    "prime": (2, 3, 5, 7),
    "greater_than_4": (5, 6, 7, 8, 9),
    "closed_loop": (0, 6, 8, 9),  # 4 counts as open, as most handwritten 4s are
    "multiple_of_3": (0, 3, 6, 9),
    "two_loops": (8,),
}


def make_digits_multilabel() -> Path:
    """UCI handwritten digits recast as 6 overlapping yes/no labels, one logistic model each."""
    data = load_digits()
    x, digit = data.data, data.target
    # One split for every label, stratified on the digit, so each row is out-of-fold for all.
    folds = list(StratifiedKFold(n_splits=5, shuffle=True, random_state=SEED).split(x, digit))

    frame = pd.DataFrame({"digit": digit})
    scores = {}
    for name, members in DIGIT_LABELS.items():
        y = np.isin(digit, members).astype(np.int64)
        frame[f"label_{name}"] = y
        proba = cross_val_predict(_scaled_logistic(), x, y, cv=folds, method="predict_proba")
        scores[f"score_{name}"] = proba[:, 1].round(DECIMALS)
    frame = pd.concat([frame, pd.DataFrame(scores)], axis=1)
    return _write_csv(frame, "digits_multilabel.csv")


def make_wine_multiclass() -> Path:
    """UCI wine (3 cultivars): the true class and out-of-fold P(class) for each of the three."""
    data = load_wine()
    x, y = data.data, data.target
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=SEED)
    proba = cross_val_predict(_scaled_logistic(), x, y, cv=cv, method="predict_proba")

    names = [str(n) for n in data.target_names]  # class_0, class_1, class_2
    frame = pd.DataFrame({"label": [names[i] for i in y]})
    for i, name in enumerate(names):
        frame[f"score_{name}"] = proba[:, i].round(DECIMALS)
    return _write_csv(frame, "wine_multiclass.csv")


def make_user_impressions() -> Path:
    """Synthetic recommender log: clicks of 300 users, one model that knows the users and one
    that ranks each user's items, so that global AUC and GAUC disagree."""
    rng = np.random.default_rng(SEED)
    n_users = 300

    # Heavy-tailed activity: median ~35 impressions, a few users with hundreds or more.
    counts = np.clip(np.round(rng.lognormal(mean=3.7, sigma=1.25, size=n_users)), 2, 1500)
    counts = counts.astype(np.int64)
    log_counts = np.log(counts)
    # Each user's click propensity (log-odds): heavy browsers click a little less.
    user_logit = -2.4 - 0.4 * (log_counts - log_counts.mean()) + rng.normal(0.0, 1.3, n_users)
    # A few "enthusiasts": short sessions in which nearly everything gets clicked.
    fans = rng.choice(n_users, size=8, replace=False)
    counts[fans] = rng.integers(2, 6, size=fans.size)
    user_logit[fans] = rng.normal(3.0, 0.5, size=fans.size)

    user = np.repeat(np.arange(n_users), counts)
    n = user.size
    appeal = rng.normal(0.0, 1.0, n)  # how much this user likes this item
    clicked = (rng.random(n) < _sigmoid(user_logit[user] + 1.2 * appeal)).astype(np.int64)

    # model_a learned each user's click rate (with a little error) but little about items.
    user_error = rng.normal(0.0, 0.2, n_users)
    a_logit = user_logit[user] + user_error[user] + 0.3 * appeal + rng.normal(0.0, 0.8, n)
    # model_b knows nothing about users but ranks the items well.
    b_logit = -2.3 + 1.0 * appeal + rng.normal(0.0, 0.5, n)

    frame = pd.DataFrame(
        {
            "user_id": [f"u{u + 1:04d}" for u in user],
            "clicked": clicked,
            "model_a": _sigmoid(a_logit).round(DECIMALS),
            "model_b": _sigmoid(b_logit).round(DECIMALS),
        }
    )
    return _write_csv(frame, "user_impressions.csv")


def make_query_ranking() -> Path:
    """Synthetic search results: graded relevance of 10-50 documents for each of 200 queries,
    scored by a lexical (BM25-like) model and a neural (graded) model."""
    rng = np.random.default_rng(SEED)
    n_queries = 200

    n_docs = rng.integers(10, 51, size=n_queries)
    no_answer = rng.random(n_queries) < 0.1  # queries the collection has nothing for
    prevalence = rng.beta(1.5, 5.0, size=n_queries)  # share of relevant documents
    idf_scale = rng.uniform(0.6, 1.8, size=n_queries)  # BM25 scales differ between queries

    query = np.repeat(np.arange(n_queries), n_docs)
    n = query.size
    relevant = (rng.random(n) < prevalence[query]) & ~no_answer[query]
    grade = np.where(relevant, rng.choice([1, 2, 3], size=n, p=[0.5, 0.3, 0.2]), 0)

    # Lexical match: relevant documents share the query's terms whatever their grade; a quarter
    # of the others share none and score exactly 0, as in BM25.
    match = np.where(relevant, rng.normal(1.8, 1.0, n) + 0.15 * grade, rng.normal(0.0, 1.0, n))
    no_overlap = ~relevant & (rng.random(n) < 0.25)
    bm25 = np.where(no_overlap, 0.0, np.maximum(0.0, idf_scale[query] * (6.0 + 3.0 * match)))
    # Neural: tracks the grade closely, but grade-1 documents sit near the irrelevant ones.
    grade_shift = np.array([0.0, 1.3, 2.5, 3.6])[grade]
    neural = _sigmoid(-2.0 + grade_shift + rng.normal(0.0, 1.0, n))

    query_id = [f"q{q + 1:03d}" for q in query]
    doc_in_query = np.arange(n) - np.repeat(np.cumsum(n_docs) - n_docs, n_docs)
    frame = pd.DataFrame(
        {
            "query_id": query_id,
            "doc_id": [f"{q}-d{d + 1:02d}" for q, d in zip(query_id, doc_in_query, strict=True)],
            "relevance": grade.astype(np.int64),
            "bm25_like": bm25.round(4),
            "neural_like": neural.round(DECIMALS),
        }
    )
    return _write_csv(frame, "query_ranking.csv", decimals={"bm25_like": 4})


def main() -> None:
    for make in (
        make_breast_cancer,
        make_digits_multilabel,
        make_wine_multiclass,
        make_user_impressions,
        make_query_ranking,
    ):
        path = make()
        print(f"wrote {path.relative_to(OUT_DIR.parent)}")


if __name__ == "__main__":
    main()
