"""Input checks shared by every metric.

Each check turns user input (lists, numpy arrays, pandas Series) into plain numpy arrays and
raises a ``ValueError`` that says what is wrong, where, and how to fix it. The hot paths of the
metrics take the already-checked arrays, so a caller that validated once can skip this module.

Positions in messages count from 0, like numpy and pandas' default index.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = [
    "UndefinedMetricWarning",
    "as_real",
    "check_binary_inputs",
    "check_binary_labels",
    "check_sample_weight",
    "check_scores",
    "refuse_complex",
    "warn_undefined",
]

# How many offending positions an error message lists before it says "...".
_MAX_LISTED = 5

# Label encodings that need no pos_label: the positive class is 1 (or True).
_STANDARD_LABEL_SETS = ({0, 1}, {-1, 1})


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for this input (for example AUC with one class) and is NaN."""


class BytesLabelsError(TypeError, ValueError):
    """Bytes labels with no ``pos_label``: a ``TypeError`` as scikit-learn raises, and a
    ``ValueError`` as every other refusal of ours."""


def warn_undefined(message: str) -> None:
    warnings.warn(message, UndefinedMetricWarning, stacklevel=3)


def _positions(mask: np.ndarray) -> str:
    where = np.flatnonzero(mask)
    listed = ", ".join(str(i) for i in where[:_MAX_LISTED])
    more = ", ..." if where.size > _MAX_LISTED else ""
    return f"position{'s' if where.size > 1 else ''} {listed}{more}"


def _plural(count: int, noun: str) -> str:
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun}{'es' if noun.endswith(('s', 'x', 'ch', 'sh')) else 's'}"


def refuse_complex(arr: np.ndarray, name: str) -> None:
    """Refuse complex numbers, as object values are refused: numpy would drop the imaginary
    part with a warning and carry on with numbers nobody gave."""
    if arr.dtype.kind == "c":
        bad = np.asarray(arr.imag != 0)
        example = arr.flat[int(np.argmax(bad))] if bad.any() else arr.flat[0] if arr.size else 0j
        raise ValueError(
            f"{name} holds complex numbers (for example {complex(example)!r}); scores, labels "
            "and weights must be real numbers: pass the real part (np.real) if that is what "
            "you mean."
        )


def as_real(values: Any, name: str) -> np.ndarray:
    """``values`` as a float64 array, complex numbers refused (:func:`refuse_complex`)."""
    arr = np.asarray(values)
    refuse_complex(arr, name)
    return arr.astype(np.float64, copy=False)


def _as_1d(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    refuse_complex(arr, name)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be one-dimensional (one value per row), got shape {arr.shape}."
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty; a metric needs at least one row.")
    return arr


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _to_float(arr: np.ndarray, name: str, what: str) -> np.ndarray:
    refuse_complex(arr, name)
    if arr.dtype.kind in "biuf":
        return arr.astype(np.float64, copy=False)
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError):
        pass
    # Only reached when conversion already failed: a per-row scan to say which rows are bad.
    bad = ~np.fromiter((_is_number(v) for v in arr), dtype=bool, count=arr.size)
    example = arr[np.flatnonzero(bad)[0]]
    example = example.item() if isinstance(example, np.generic) else example
    raise ValueError(
        f"{name} has {_plural(int(bad.sum()), 'non-numeric value')} at {_positions(bad)} "
        f"(for example {example!r}); {what} must be numbers."
    )


def check_scores(y_score: Any, name: str = "y_score") -> np.ndarray:
    """Return the scores as a finite float64 array of shape (n_samples,)."""
    arr = _to_float(_as_1d(y_score, name), name, "scores")
    finite = np.isfinite(arr)
    if not finite.all():
        bad = ~finite
        kinds = [
            _plural(int(count), label)
            for count, label in (
                (np.isnan(arr).sum(), "NaN value"),
                (np.isposinf(arr).sum(), "+inf value"),
                (np.isneginf(arr).sum(), "-inf value"),
            )
            if count
        ]
        raise ValueError(
            f"{name} has {' and '.join(kinds)} at {_positions(bad)}; scores must be finite. "
            "Drop or fill those rows first."
        )
    return arr


def check_sample_weight(sample_weight: Any, n_samples: int) -> np.ndarray | None:
    """Return the weights as a finite, non-negative float64 array, or None."""
    if sample_weight is None:
        return None
    arr = _to_float(_as_1d(sample_weight, "sample_weight"), "sample_weight", "weights")
    if arr.size != n_samples:
        raise ValueError(
            f"sample_weight has {arr.size} rows but y_true has {n_samples}; "
            "they must be the same length."
        )
    finite = np.isfinite(arr)
    if not finite.all():
        raise ValueError(
            f"sample_weight has {_plural(int((~finite).sum()), 'non-finite value')} "
            f"(NaN or inf) at {_positions(~finite)}; weights must be finite numbers >= 0."
        )
    negative = arr < 0
    if negative.any():
        raise ValueError(
            f"sample_weight has {_plural(int(negative.sum()), 'negative value')} at "
            f"{_positions(negative)}; weights must be >= 0."
        )
    return arr


def _distinct(arr: np.ndarray) -> np.ndarray:
    try:
        return np.unique(arr)
    except TypeError:  # mixed types (say 1 and "1") do not sort; keep first-seen order
        return np.array(list(dict.fromkeys(arr.tolist())), dtype=object)


def _describe_values(arr: np.ndarray) -> str:
    values = _distinct(arr)
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in values[:10])
    return "{" + shown + (", ..." if values.size > 10 else "") + "}"


def check_binary_labels(
    y_true: Any, pos_label: Any = None, *, default_positive: str = "error"
) -> np.ndarray:
    """Return a boolean array of shape (n_samples,) that is True for the positive class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Two label values at most: {0, 1}, {-1, 1}, booleans, or any two values with ``pos_label``.
    pos_label : scalar, optional
        The positive class. ``None`` accepts the standard encodings, where 1 (or True) is positive.
    default_positive : {"error", "greater"}
        What ``pos_label=None`` does with other label values: raise, or take the greater of the
        two values as positive (scikit-learn's ``roc_auc_score`` does the latter).
    """
    arr = _as_1d(y_true, "y_true")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        missing = np.isnan(arr)
        raise ValueError(
            f"y_true has {_plural(int(missing.sum()), 'missing value')} at "
            f"{_positions(missing)}; every row needs a label. Drop those rows first."
        )
    if arr.dtype.kind == "O":
        missing = (arr == None) | (arr != arr)  # noqa: E711 (elementwise: None and NaN)
        if missing.any():
            raise ValueError(
                f"y_true has {_plural(int(missing.sum()), 'missing value')} at "
                f"{_positions(missing)}; every row needs a label. Drop those rows first."
            )

    standard = arr.dtype.kind in "biuf"
    if pos_label is None:
        if arr.dtype.kind == "S" or (arr.dtype.kind == "O" and isinstance(arr[0], bytes)):
            raise BytesLabelsError(
                f"y_true holds bytes labels {_describe_values(arr)}; decode them to text "
                "(for example np.char.decode(y_true)) or pass pos_label= naming the positive "
                "one. scikit-learn refuses bytes labels."
            )
        if arr.dtype.kind == "b":
            return arr.copy()
        if standard:
            positive = arr == 1
            rest = np.compress(~positive, arr)
            if rest.size == 0 or ((rest == rest[0]).all() and rest[0] in (0, -1)):
                return positive
        values = _distinct(arr)
        if default_positive == "greater" and values.size == 2:
            return arr == values[1]
        if values.size > 2:
            raise ValueError(
                f"y_true has {values.size} distinct values {_describe_values(arr)}; a binary "
                "metric needs exactly two classes. Map the labels to 0/1 first."
            )
        raise ValueError(
            f"y_true takes the values {_describe_values(arr)}; pass pos_label= to say which "
            "one is the positive class (labels 0/1, -1/1 and booleans need no pos_label)."
        )

    positive = arr == pos_label
    if not isinstance(positive, np.ndarray):  # numpy compares mismatched types to a scalar
        positive = np.zeros(arr.shape, dtype=bool)
    rest = np.compress(~positive, arr)
    if not positive.any():
        # All-negative data in a standard encoding is a legitimate (if degenerate) input: the
        # metric is undefined and says so. Anything else means pos_label is wrong.
        standard_pos = pos_label is True or (
            not isinstance(pos_label, (str, bytes)) and pos_label == 1
        )
        if not (standard and standard_pos and (rest == rest[0]).all() and rest[0] in (0, -1)):
            raise ValueError(
                f"pos_label={pos_label!r} is not among y_true's values "
                f"{_describe_values(arr)}; pass one of them as pos_label."
            )
    if rest.size and not (rest == rest[0]).all():
        raise ValueError(
            f"y_true has {_distinct(arr).size} distinct values {_describe_values(arr)}; a "
            "binary metric needs exactly two classes. Map the labels to two values first."
        )
    return positive


def check_binary_inputs(
    y_true: Any,
    y_score: Any,
    sample_weight: Any = None,
    pos_label: Any = None,
    *,
    default_positive: str = "error",
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validate a binary problem: (positive mask, float64 scores, float64 weights or None)."""
    y = check_binary_labels(y_true, pos_label, default_positive=default_positive)
    n_scores = len(y_score) if hasattr(y_score, "__len__") else None
    if n_scores is not None and n_scores != y.size:
        raise ValueError(
            f"y_true has {y.size} rows but y_score has {n_scores}; they must be the same length."
        )
    s = check_scores(y_score)
    if s.size != y.size:
        raise ValueError(
            f"y_true has {y.size} rows but y_score has {s.size}; they must be the same length."
        )
    w = check_sample_weight(sample_weight, y.size)
    return y, s, w
