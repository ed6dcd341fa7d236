"""The report's verdicts between models (``metrics-lens report``): the family of tests they
rest on, declared before looking (:mod:`metrics.families`, as on the Compare page), each metric's
verdict and every pair's test; and the family a user names with ``--family``."""

from __future__ import annotations

import math
import re

import pandas as pd

from metrics_lens.inputs import BadInput

__all__ = ["family_name", "verdict_section"]


def family_name(given: str, names: list[str]) -> str:
    """The family the verdicts rest on, from what a user types (``auc``, ``pauc``, ``log-loss``,
    ``all``, or a metric's name as the report shows it); :class:`BadInput` when the table has
    no such metric."""
    key = given.strip().lower().replace("-", " ").replace("_", " ")
    if key in ("all", "every metric"):
        return "all"
    for name in names:
        short = "pauc" if name.startswith("pAUC") else name.lower()
        if key in (short, name.lower()):
            return name
    plain = ", ".join("pauc" if n.startswith("pAUC") else n.lower().replace(" ", "-")
                      for n in names)  # fmt: skip
    raise BadInput(
        f"--family {given!r} is not a metric of this report; declare one of {plain}, or all."
    )


def verdict_section(best: dict, pairs: pd.DataFrame, family=None) -> str:
    """The verdicts: the family in a sentence, each metric's verdict, every pair's test (an
    exploratory one without a family-adjusted p-value)."""
    from metrics_lens.report_cells import _cell, _e, _table

    if pairs.empty:
        return (
            '<section id="verdicts"><h2>Verdicts</h2><p>One model only: nothing to compare.'
            "</p></section>"
        )
    items = "".join(
        f'<li data-metric="{_e(metric)}"><b>{_e(metric)}</b>: {_e(_words(b.verdict))}</li>'
        for metric, b in best.items()
    )
    roles = "role" in pairs.columns
    beside = "row-level p" in pairs.columns
    rows = []
    for _, r in pairs.iterrows():
        row = (
            f"<td>{_e(r['metric'])}</td><td>{_e(r['model A'])}</td><td>{_e(r['model B'])}</td>"
            + _cell(r["A − B"], low=r["low"], high=r["high"], why="undefined for a model")
            + f'<td class="num">{_e(_p(r["p-value"]))}</td><td class="num">'
            + ("— (exploratory)" if roles and r["role"] == "exploratory" else _e(_p(r["Holm p"])))
            + f"</td><td>{_e(r['test'])}</td><td>{_e(_words(r['verdict']))}</td>"
        )
        if beside:
            row += f'<td class="num">{_e(_p(r["row-level p"]))}</td>'
        rows.append(row)
    header = ["metric", "model A", "model B", "A − B [95% CI]", "p", "Holm p (family)", "test",
              "verdict"]  # fmt: skip
    note = ""
    if beside:
        header.append("row-level p (DeLong, not the verdict)")
        note = (
            "<p>Rows of one group are not independent, so every interval and test resamples "
            "whole groups; DeLong's row-level p-value is shown beside, never as the verdict.</p>"
        )
    return (
        '<section id="verdicts"><h2>Verdicts between models</h2>'
        "<p>A model is called best only within the declared family of tests, when it beats "
        "every other with a Holm-adjusted p-value below 0.05 (paired tests on the same "
        "resamples). "
        + (f'<span class="family">{_e(family.description)}</span>' if family is not None else "")
        + "</p>"
        f"{note}<ul class='verdicts'>{items}</ul>" + _table(header, rows, "pairs") + "</section>"
    )


def _words(text: object) -> str:
    """A verdict as the report prints it: an undefined difference is "undefined", not "nan"."""
    return re.sub(r"[+-]?\bnan\b", "undefined", str(text), flags=re.IGNORECASE)


def _p(p) -> str:
    p = float(p)
    if not math.isfinite(p):
        return "undefined"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"
