"""One self-contained HTML report of a predictions table (``metrics-lens report``).

Everything the file needs is inside it: plotly's JavaScript inline, no fonts, images or scripts
from the network, so it opens offline and can be attached to a ticket or a pull request. The
numbers come from :mod:`metrics` and the comparison tables of :mod:`ui.analyses.summaries` (the
ones the
Compare page shows); every figure is drawn from the same arrays.

Sections: the dataset; each model's AUC, AP, partial AUC and (for probabilities) Brier score
and log loss with paired bootstrap intervals; ROC and precision-recall curves overlaid with each
model's operating point; the confusion matrix and rates at each model's threshold; AP computed
the five ways people compute it; GAUC when a group column is given; the verdicts between
models, which rest on a declared family of tests (the primary metric, AUC unless another is
declared, with the other metrics exploratory; or Holm across every metric × pair:
:mod:`metrics.families`, as on the Compare page); and the settings that produced the report.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import html
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

import metrics
from metrics.conventions import gauc_conventions, roc_auc_conventions
from metrics_lens.inputs import BadInput, Table, inverted_notes
from metrics_lens.progress import Steps
from metrics_lens.report_cells import _cell, _e, _table, fmt
from metrics_lens.report_figures import _curves
from metrics_lens.report_verdicts import family_name, verdict_section
from ui.analyses import summaries
from ui.tables.roles import default_threshold, default_threshold_rule, infer_scale

__all__ = ["ReportHTML", "ReportSettings", "build_report", "thresholds_for"]


class ReportHTML(str):
    """The report's HTML (a ``str``) that Jupyter displays inline, in a frame of its own."""

    def _repr_html_(self) -> str:
        return (
            '<iframe style="width:100%;height:900px;border:1px solid #ddd" srcdoc="'
            + html.escape(str(self), quote=True)
            + '"></iframe>'
        )

    def save(self, path: str | Path) -> Path:
        """Write the report to ``path`` (UTF-8) and return the path."""
        p = Path(path)
        p.write_text(str(self), encoding="utf-8")
        return p


@dataclass(frozen=True)
class ReportSettings:
    """What produced the report, printed in its last section."""

    source: str
    n_resamples: int = 1000
    seed: int = 0
    max_fpr: float = 0.1
    thresholds: dict[str, float] = field(default_factory=dict)  # given by the user
    command: str = ""
    file_digest: str = ""
    family: str = "AUC"  # the primary metric the verdicts rest on, or "all"


def thresholds_for(table: Table, given: dict[str, float]) -> dict[str, tuple[float, str]]:
    """Each model's threshold and the rule behind it: the one given, else the dashboard's
    default for the score's scale (0.5 for probabilities, else as many predicted positive as
    there are positives)."""
    unknown = [m for m in given if m not in table.scores]
    if unknown:
        raise BadInput(
            f"--threshold names {unknown[0]!r}, which is not a score column (the scores: "
            f"{', '.join(table.scores)})."
        )
    out = {}
    for name, s in table.scores.items():
        if name in given:
            out[name] = (float(given[name]), "given with --threshold")
        else:
            kind = infer_scale(s, name).kind
            value = default_threshold(kind, table.y, s, table.weight)
            out[name] = (
                float(value),
                f"default for a {kind} scale: {default_threshold_rule(kind)}",
            )
    return out


def file_digest(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# --- formatting ------------------------------------------------------------------------------


RATE_UNDEFINED = {
    "precision": "no row is predicted positive at this threshold",
    "recall": "no positive rows",
    "f1": "no positive rows and none predicted positive",
    "fpr": "no negative rows",
    "specificity": "no negative rows",
    "accuracy": "no rows",
    "balanced_accuracy": "one class has no rows",
    "mcc": "a row or a column of the confusion matrix is empty (one class, or one prediction "
    "for every row)",
}


# --- sections --------------------------------------------------------------------------------


def _dataset_section(table: Table) -> str:
    m = table.mapping
    w = table.weight
    n = int(table.y.size)
    rows = [
        ("rows used", f"{n:,}"),
        ("rows dropped (missing or bad values)", f"{table.n_dropped:,}"),
        ("positives (rows)", f"{table.positives:,}"),
        ("negatives (rows)", f"{table.negatives:,}"),
        (
            "prevalence" + (" (weighted)" if w is not None else ""),
            fmt(np.average(table.y, weights=w)),
        ),
        ("label column", f"{m.label} (positive class {m.pos_label!r})"),
        ("models (score columns)", ", ".join(table.scores)),
        ("group column", m.group or "none"),
        ("weight column", m.weight or "none"),
    ]
    if table.groups is not None:
        rows.insert(4, ("groups", f"{pd.unique(table.groups).size:,}"))
    body = "".join(
        f'<tr><th>{_e(k)}</th><td data-field="{_e(k)}">{_e(v)}</td></tr>' for k, v in rows
    )
    notes = "".join(f"<li>{_e(note)}</li>" for note in (*table.notes, *inverted_notes(table)))
    return (
        f'<section id="dataset"><h2>Dataset</h2><p class="name">{_e(table.name)}</p>'
        f'<table class="kv">{body}</table>'
        + (f"<ul class='notes'>{notes}</ul>" if notes else "")
        + "</section>"
    )


def _data_why(table: Table) -> str:
    """Why no metric is defined on the table ("" when they are)."""
    for cls, rows in (("positive", table.y), ("negative", ~table.y)):
        if not rows.any():
            return f"no {cls} rows"
        if table.weight is not None and not np.sum(table.weight[rows]) > 0:
            return f"the {cls} rows have zero total weight"
    return ""


def _metrics_section(
    models: pd.DataFrame, specs, resampling: str, n_resamples: int, why: str = ""
) -> str:
    names = [s.name for s in specs]
    rows = []
    for _, r in models.iterrows():
        cells = f'<th class="model">{_e(r["model"])}</th>'
        for name in names:
            cells += _cell(
                r[name],
                metric=name,
                model=r["model"],
                low=r.get(f"{name} low"),
                high=r.get(f"{name} high"),
                why=why,
            )
        rows.append(cells)
    helps = "".join(f"<li><b>{_e(s.name)}</b>: {_e(s.help)}</li>" for s in specs)
    return (
        '<section id="metrics"><h2>Metrics per model</h2>'
        f"<p>Values with 95% paired bootstrap intervals ({n_resamples:,} Poisson resamples; "
        f"{_e(resampling)}). Lower is better for Brier and log loss.</p>"
        + _table(["model", *names], rows, "metrics")
        + f"<ul class='help'>{helps}</ul></section>"
    )


RATES = (
    ("precision", "precision"),
    ("recall", "recall (TPR)"),
    ("f1", "F1"),
    ("fpr", "FPR"),
    ("specificity", "specificity"),
    ("accuracy", "accuracy"),
    ("balanced_accuracy", "balanced accuracy"),
    ("mcc", "MCC"),
)


def _threshold_section(table: Table, thresholds: dict[str, tuple[float, str]]) -> str:
    blocks = []
    for name, s in table.scores.items():
        t, rule = thresholds[name]
        c = metrics.confusion_at_threshold(table.y, s, t, sample_weight=table.weight)
        d = c.as_dict()
        d["f1"] = c.f1

        def count(key: str, d=d, name=name) -> str:
            v = float(d[key])
            text = f"{v:,.0f}" if v == round(v) else f"{v:,.4f}"
            return f'<td class="num" data-model="{_e(name)}" data-cell="{key}">{text}</td>'

        matrix = (
            '<table class="confusion"><thead><tr><th></th><th>predicted positive</th>'
            "<th>predicted negative</th></tr></thead><tbody>"
            f"<tr><th>actual positive</th>{count('tp')}{count('fn')}</tr>"
            f"<tr><th>actual negative</th>{count('fp')}{count('tn')}</tr></tbody></table>"
        )
        rates = _table(
            [label for _, label in RATES],
            [
                "".join(
                    _cell(d[key], metric=key, model=name, why=RATE_UNDEFINED.get(key, ""))
                    for key, _ in RATES
                )
            ],
            "rates",
        )
        blocks.append(
            f'<div class="model-block" data-model="{_e(name)}"><h3>{_e(name)} at threshold '
            f'<span class="threshold" data-model="{_e(name)}">{t:.6g}</span></h3>'
            f"<p class='rule'>Predicted positive when score ≥ threshold; {_e(rule)}.</p>"
            f"{matrix}{rates}</div>"
        )
    return (
        '<section id="thresholds"><h2>At each model\'s threshold</h2>'
        + "".join(blocks)
        + "</section>"
    )


def _ap_section(table: Table) -> str:
    rows = []
    for method in metrics.AP_METHODS:
        cells = f"<th>{_e(method)}</th><td>{_e(metrics.AP_METHOD_SOURCES[method])}</td>"
        for name, s in table.scores.items():
            value = metrics.average_precision_score(
                table.y, s, sample_weight=table.weight, method=method
            )
            cells += _cell(value, metric=f"AP {method}", model=name)
        rows.append(cells)
    return (
        '<section id="ap-methods"><h2>Average precision, every way it is computed</h2>'
        "<p>The same precision-recall points summed five ways; libraries and benchmarks differ "
        "in which one they call AP. <code>step</code> is scikit-learn's and this report's AP.</p>"
        + _table(["method", "used by", *table.scores], rows, "ap")
        + "</section>"
    )


def _conventions_section(table: Table) -> str:
    """ROC AUC per model as scikit-learn, Keras and Spark's evaluator compute it."""
    found = {
        name: roc_auc_conventions(table.y, s, sample_weight=table.weight)
        for name, s in table.scores.items()
    }
    rows = []
    for i, first in enumerate(next(iter(found.values()))):
        cells = f"<th>{_e(first.library)}</th><td><code>{_e(first.setting)}</code></td>"
        for name, conventions in found.items():
            cells += _cell(conventions[i].auc, metric=f"ROC AUC {first.setting}", model=name)
        rows.append(cells)
    return (
        '<section id="auc-conventions"><h2>ROC AUC under other libraries\' conventions</h2>'
        "<p>Keras counts 200 thresholds evenly spaced over [0, 1] (rows between two are tied; "
        "minoring and majoring bound the trapezoid); Spark's evaluator groups the distinct "
        "scores into 1,000 bins. <code>roc_auc_score</code> is exact, and this report's AUC.</p>"
        + _table(["library", "as called", *table.scores], rows, "ap")
        + "</section>"
    )


GAUC_HEADER = [
    "model", "GAUC", "by positives (RecBole)", "each group once", "TorchRec GAUCMetric",
    "groups counted", "groups skipped",
]  # fmt: skip


def _torchrec_cell(table: Table, scores: np.ndarray, name: str) -> str:
    """TorchRec's GAUC (the plain mean over groups whose scores are not all equal), with the
    range its tie-breaking allows when ties matter."""
    torchrec = gauc_conventions(table.y, scores, table.groups)[-1]
    why = "no group has both classes and unequal scores"
    cell = _cell(torchrec.gauc, metric="GAUC torchrec", model=name, why=why)
    if fmt(torchrec.low) != fmt(torchrec.high):
        ties = f' <span class="why">(as ties fall: {fmt(torchrec.low)} to {fmt(torchrec.high)})'
        cell = cell.replace("</td>", ties + "</span></td>")
    return cell


def _gauc_section(table: Table, models: pd.DataFrame, n_resamples: int) -> str:
    rows = []
    for name, s in table.scores.items():
        t = metrics.group_auc_table(table.y, s, table.groups, sample_weight=table.weight)
        r = models.set_index("model").loc[name]
        rows.append(
            f'<th class="model">{_e(name)}</th>'
            + _cell(
                r["GAUC"],
                metric="GAUC",
                model=name,
                low=r["GAUC low"],
                high=r["GAUC high"],
                why="no group has both classes",
            )
            + "".join(
                _cell(
                    _other_weighting(table, s, weighting),
                    metric=f"GAUC {weighting}",
                    model=name,
                    why="no group has both classes",
                )
                for weighting in ("positives", "uniform")
            )
            + _torchrec_cell(table, s, name)
            + f'<td class="num">{int(t.defined.sum()):,}</td><td class="num">{t.n_skipped:,}</td>'
        )
    return (
        '<section id="gauc"><h2>GAUC (per-group AUC)</h2>'
        f"<p>The AUC within each group of <code>{_e(table.mapping.group)}</code>, averaged with "
        + (
            "each group weighted by its total sample weight"
            if table.weight is not None
            else "each group weighted by its rows"
        )
        + "; groups with one class only are skipped. Intervals: "
        f"cluster bootstrap over whole groups ({n_resamples:,} resamples). Other papers and "
        "libraries weight each group by its positives (clicks; RecBole) or count each group "
        "once: the same groups, other weights. TorchRec's GAUCMetric counts each group once, "
        "also skips groups whose scores are all equal, reads no sample weights and breaks tied "
        "scores by its sort's order: where ties matter, the range it can give follows its value."
        "</p>" + _table(GAUC_HEADER, rows, "gauc") + "</section>"
    )


def _other_weighting(table: Table, scores: np.ndarray, weighting: str) -> float:
    with warnings.catch_warnings():  # every group skipped: NaN, which the cell explains
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        return metrics.group_auc_score(
            table.y, scores, table.groups, weighting=weighting, sample_weight=table.weight
        )


def _settings_section(table: Table, settings: ReportSettings, thresholds, resampling: str) -> str:
    from metrics_lens._version import __version__

    rows = [
        ("source", settings.source),
        ("sha256 of the file", settings.file_digest or "n/a (not read from a file)"),
        ("label", f"{table.mapping.label} (positive class {table.mapping.pos_label!r})"),
        ("scores", ", ".join(table.scores)),
        ("group", table.mapping.group or "none"),
        ("weight", table.mapping.weight or "none"),
        (
            "bootstrap",
            f"{settings.n_resamples:,} Poisson resamples of {resampling}, seed "
            f"{settings.seed}, 95% percentile intervals",
        ),
        ("partial AUC", f"FPR ≤ {settings.max_fpr:g}, McClish-standardised"),
        (
            "verdicts rest on",
            "every metric (Holm across metrics × pairs)"
            if settings.family == "all"
            else f"the primary metric {settings.family} (the others exploratory)",
        ),
    ]
    rows += [(f"threshold of {m}", f"{t:.6g} ({rule})") for m, (t, rule) in thresholds.items()]
    rows += [
        ("command", settings.command or "metrics_lens.report_html(...)"),
        ("metrics-lens", __version__),
        ("numpy", np.__version__),
        ("written", _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")),
    ]
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    return f'<section id="settings"><h2>Settings</h2><table class="kv">{body}</table></section>'


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;
max-width:1200px;padding:0 1rem;color:#222}
h1{font-size:1.6rem}h2{font-size:1.25rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;
margin-top:2rem}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.5rem 0 1rem}th,td{border:1px solid #ddd;padding:.3rem .6rem;
text-align:left;vertical-align:top}td.num{text-align:right;font-variant-numeric:tabular-nums}
.ci{color:#666;font-size:.9em}.warn{background:#fff4e5;padding:.5rem;border-left:4px solid #f0a}
.figures{display:grid;grid-template-columns:1fr 1fr;gap:1rem}.model-block{margin-bottom:1rem}
.kv th{background:#fafafa;font-weight:600}
"""


def _model_table(table: Table, specs, settings: ReportSettings):
    return summaries.model_table(
        table.y,
        table.scores,
        specs,
        weight=table.weight,
        n_resamples=settings.n_resamples,
        seed=settings.seed,
        cluster=table.groups,
    )


def build_report(
    table: Table,
    settings: ReportSettings,
    *,
    thresholds: dict[str, float] | None = None,
    steps: Steps | None = None,
) -> ReportHTML:
    """The HTML report of ``table`` (see the module for its sections); ``steps`` shows each
    section as it is computed (the command's progress line)."""
    import plotly.offline

    steps = steps or Steps("report", mode="off")
    steps.add(3 + (table.groups is not None))

    if settings.n_resamples < 100:
        raise BadInput(f"--resamples must be at least 100, got {settings.n_resamples}.")
    if not 0 < settings.max_fpr <= 1:
        raise BadInput(f"--max-fpr must be in (0, 1], got {settings.max_fpr:g}.")
    chosen = thresholds_for(table, dict(thresholds or settings.thresholds))
    probabilities = all(bool(np.all((s >= 0) & (s <= 1))) for s in table.scores.values())
    specs = summaries.metric_specs(
        probabilities=probabilities, groups=table.groups, max_fpr=settings.max_fpr
    )
    settings = replace(settings, family=family_name(settings.family, [s.name for s in specs]))
    resampling = "rows" if table.groups is None else "whole groups (cluster bootstrap)"
    bootstrap = f"intervals: {settings.n_resamples:,} paired resamples of {resampling}"
    with warnings.catch_warnings(), steps.step(bootstrap):
        warnings.simplefilter("ignore")
        try:
            models, pairs, _ = _model_table(table, specs, settings)
        except ValueError as exc:  # GAUC with no group holding both classes
            if table.groups is None:
                raise
            raise BadInput(
                f"GAUC cannot be computed: {str(exc).rstrip('.')} (no group of "
                f"{table.mapping.group} holds both classes with weight); pass --group none."
            ) from None
        best, pairs, family = summaries.verdicts_in_family(
            models, pairs, specs, family=settings.family, n_resamples=settings.n_resamples
        )
    with steps.step("ROC and PR curves"):
        roc_html, pr_html = _curves(table, chosen)
    title = f"Metrics Lens report: {table.name}"
    with steps.step("thresholds, the ways of AP and other libraries' AUC"):
        threshold_html, ap_html = _threshold_section(table, chosen), _ap_section(table)
        conventions_html = _conventions_section(table)
    sections = [
        _dataset_section(table),
        _metrics_section(
            models,
            [s for s in specs if s.name != "GAUC"],
            resampling,
            settings.n_resamples,
            _data_why(table),
        ),
        '<section id="curves"><h2>ROC and precision-recall</h2><p>Circles: each model\'s '
        "operating point at its threshold.</p>"
        f'<div class="figures"><div>{roc_html}</div><div>{pr_html}</div></div></section>',
        threshold_html,
        ap_html,
        conventions_html,
    ]
    if table.groups is not None:
        with steps.step(f"GAUC by {table.mapping.group}"):
            sections.append(_gauc_section(table, models, settings.n_resamples))
    sections.append(verdict_section(best, pairs, family))
    sections.append(_settings_section(table, settings, chosen, resampling))
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(title)}</title><style>{CSS}</style>"
        f'<script type="text/javascript">{plotly.offline.get_plotlyjs()}</script></head><body>'
        f"<h1>{_e(title)}</h1>" + "".join(sections) + "</body></html>"
    )
    return ReportHTML(page)


def dataset_report(
    ds,
    models: tuple[str, ...],
    groups,
    chosen: dict[str, float],
    n_resamples: int,
    family: str = "AUC",
) -> bytes:
    """The report of these models on a dashboard dataset (its table, mapping and arrays), at the
    thresholds ``chosen``, resampling ``groups`` when given: what Compare's "Build the HTML
    report" downloads, the same report as ``metrics-lens report``."""
    table = Table(
        name=ds.name,
        frame=ds.frame,
        mapping=ds.mapping,
        y=ds.labels_for(models[0]).astype(bool),
        scores={m: ds.score(m) for m in models},
        groups=groups,
        weight=ds.weight,
        n_dropped=ds.prepared.n_dropped,
    )
    settings = ReportSettings(
        source=f"the dashboard: {ds.name}",
        n_resamples=max(100, n_resamples),
        thresholds=chosen,
        family=family,
    )
    return str(build_report(table, settings, thresholds=chosen)).encode()
