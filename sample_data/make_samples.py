"""Generate the bundled sample datasets in ``sample_data/``.

Dev-only script: scikit-learn is a dev/test dependency and is never imported by the
product. Run from the repo root with ``python sample_data/make_samples.py``.

Each dataset is built by its own function so more can be added later; ``main()``
calls them all. Output is deterministic (fixed CV split and model seeds).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import ClassifierMixin
from sklearn.datasets import load_breast_cancer
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


def main() -> None:
    for path in (make_breast_cancer(),):
        print(f"wrote {path.relative_to(OUT_DIR.parent)}")


if __name__ == "__main__":
    main()
