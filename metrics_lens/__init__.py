"""Metrics Lens as a command and a notebook entry.

* ``metrics-lens app [FILE ...]``: the dashboard with the file(s) loaded;
* ``metrics-lens report FILE -o report.html``: one self-contained HTML report;
* ``metrics-lens check FILE --baseline A --candidate B --metric auc``: a CI gate;
* ``metrics-lens sql ...``: exact metrics of tables too large to load (``python -m metrics.sql``).

In a notebook, :func:`show` starts the dashboard on a DataFrame and shows it in the output cell,
and :func:`report_html` returns the static report's HTML, which displays inline::

    import metrics_lens
    metrics_lens.show(predictions_df, label="clicked", score=["model_a", "model_b"])
    metrics_lens.report_html(predictions_df, label="clicked", score=["model_a", "model_b"])

The metrics themselves are :mod:`metrics_lens.metrics` once installed
(``from metrics_lens.metrics import roc_auc_score``); in a clone, the top-level ``metrics``
package (``from metrics import roc_auc_score``), the same code.
"""

from __future__ import annotations

from pathlib import Path as _Path

from metrics_lens._version import __version__
from metrics_lens.notebook import Dashboard, show

__all__ = ["Dashboard", "__version__", "report_html", "show"]


def report_html(
    data,
    *,
    label: str | None = None,
    score: str | list[str] | tuple[str, ...] | None = None,
    group: str | None = None,
    weight: str | None = None,
    pos_label: str | None = None,
    threshold: dict[str, float] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    max_fpr: float = 0.1,
    drop_bad_rows: bool = False,
    family: str = "auc",
):
    """The HTML report of a predictions table, displayed inline by Jupyter.

    Parameters
    ----------
    data : pandas.DataFrame, or a path to a CSV or Parquet file
        One row per example: a binary label and one score column per model.
    label, score, group, weight : str, optional
        Column roles; the ones not given are guessed as the dashboard guesses an upload's.
        ``group`` (a user or query id) adds GAUC.
    pos_label : str, optional
        The positive class, when it is not guessed right.
    threshold : dict of str -> float, optional
        A model's threshold for the operating point and confusion matrix; default per the
        score's scale.
    n_resamples, seed : int
        The paired bootstrap behind every interval.
    max_fpr : float, default 0.1
        The partial AUC's FPR limit.
    drop_bad_rows : bool, default False
        Drop rows with a missing or bad label, score, weight or group instead of refusing.
    family : str, default "auc"
        What the verdicts rest on, declared before looking: a primary metric (auc, ap, pauc,
        gauc, brier, log-loss), the others exploratory; or "all", Holm across metrics × pairs.

    Returns
    -------
    metrics_lens.report.ReportHTML
        A ``str`` holding the whole HTML page (``.save(path)`` writes it); Jupyter shows it
        inline through its ``_repr_html_``.

    Raises
    ------
    metrics_lens.inputs.BadInput
        With one sentence saying what is wrong (a missing column, a one-class label, ...).
    """
    import pandas as pd

    from metrics_lens.inputs import load_frame, mapped_table
    from metrics_lens.report import ReportSettings, build_report, file_digest

    scores = [score] if isinstance(score, str) else score
    if isinstance(data, pd.DataFrame):
        frame, notes, name, digest = data, [], "DataFrame", ""
    else:
        frame, notes = load_frame(data)
        name, digest = _Path(data).name, file_digest(data)
    table = mapped_table(
        frame,
        name=name,
        label=label,
        scores=scores,
        group=group,
        weight=weight,
        pos_label=pos_label,
        drop_bad_rows=drop_bad_rows,
        notes=notes,
    )
    settings = ReportSettings(
        source=name if digest else "a pandas DataFrame",
        n_resamples=n_resamples,
        seed=seed,
        max_fpr=max_fpr,
        thresholds=dict(threshold or {}),
        file_digest=digest,
        family=family,
    )
    return build_report(table, settings)
