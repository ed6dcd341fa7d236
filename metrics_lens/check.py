"""``metrics-lens check``: a metric gate for CI, judged on a paired bootstrap.

For each metric the baseline and the candidate are scored on the same resamples of the rows (or,
with a group column, of whole groups), and the gate reads the one-sided ``1 - alpha`` bound of
the difference ``candidate - baseline``:

* default ("no significant drop"): the candidate **fails** when even the upper bound
  ``U = quantile(differences, 1 - alpha)`` is below ``-max_drop``, that is when the data show,
  at confidence ``1 - alpha``, that it is worse than the baseline by more than the allowed
  drop. Equal models pass; a small test set that cannot tell them apart passes.
* ``strict=True`` (non-inferiority): the candidate **passes** only when the lower bound
  ``L = quantile(differences, alpha)`` is at least ``-max_drop``: the data must show it is not
  worse by more than the allowed drop. With ``max_drop = 0`` this asks for evidence that it is
  at least as good, so give a margin.

Every metric here is higher-is-better. With ``slice_column`` the gate runs on every value of
that column as well as on all rows, and fails when any of them fails.

The family of tests the verdict rests on is every metric gated on every slice (the guaranteed
thresholds aside, which hold their own confidence). By default a FAIL claims that some test
shows a drop, so with ``k`` tests each bound is taken at ``alpha / k`` (Bonferroni): the chance
of a wrong FAIL anywhere stays at most ``alpha``. With one metric on all rows (``k = 1``) nothing
changes. With ``strict=True`` a PASS needs every test to show non-inferiority (an
intersection-union test), which already holds the chance of a wrong PASS at ``alpha`` without
any adjustment. :attr:`Gate.family` says which it is, and the log prints it.

A gate never passes on an undefined value. A metric is undefined on rows with one class only
(or one class of zero total weight), gauc on rows where no group has both classes, and
``recall@precision=P`` for a model whose precision never reaches ``P``:

* the candidate undefined where the baseline is defined **fails** (exit 1): the candidate
  cannot reach what the baseline reaches, a fact about the candidate, which a CI must read as
  "worse" and never as a configuration error it might retry or ignore;
* undefined for the baseline, or for the data, the gate cannot decide: on all rows it
  **refuses** (exit 2, a sentence naming the model or the reason), on a slice the slice is
  listed as skipped;
* on a resample where only one model is undefined, it counts as worse than any defined value
  (a difference of -inf for the candidate, +inf for the baseline); resamples where both are
  undefined are left out, and with none left the gate refuses (all rows) or skips (a slice).
  With infinite differences the bounds are empirical quantiles (no interpolation).

Exit status: 1 when any row fails; else 2 when a metric is undefined on all rows; else 0.
"""

from __future__ import annotations

import inspect
import re
import warnings
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

import metrics
from metrics_lens.inputs import BadInput, Table, inverted_notes
from metrics_lens.progress import Steps

__all__ = ["Gate", "GateRow", "MetricSpec", "gate", "parse_metric"]

METRIC_HELP = (
    "auc, ap, gauc (needs --group), f1@T (F1 at threshold T), recall@precision=P, "
    "recall@precision>=P@C% (a guaranteed threshold)"
)
# recall@precision>=0.9@95%: the candidate passes when some threshold holds precision >= 0.9
# with 95% confidence (metrics.threshold_with_guarantee); the row reports recall there.
_GUARANTEE = re.compile(
    r"(recall|precision|specificity|fpr|npv)@(recall|precision|specificity|fpr|npv)"
    r"(>=|<=)([0-9.eE+-]+)@([0-9.]+)%"
)


@dataclass(frozen=True)
class MetricSpec:
    """A gated metric: ``kind`` is auc, ap, gauc, f1 or recall@precision; ``value`` its T or P."""

    text: str
    kind: str
    value: float | None = None
    # kind "guarantee": the metric held to ``value`` at ``confidence``, and the one reported
    constraint: str = ""
    confidence: float = 0.0
    reported: str = ""


def parse_metric(text: str) -> MetricSpec:
    """``auc``, ``ap``, ``gauc``, ``f1@0.5``, ``recall@precision=0.9``; :class:`BadInput` else."""
    t = text.strip().lower()
    if t in ("auc", "ap", "gauc"):
        return MetricSpec(t, t)
    m = _GUARANTEE.fullmatch(t)
    if m:
        return _guarantee_spec(t, *m.groups())
    m = re.fullmatch(r"f1@([-+0-9.eE]+)", t)
    if m:
        try:
            value = float(m.group(1))
        except ValueError:
            value = float("nan")
        if np.isfinite(value):
            return MetricSpec(t, "f1", value)
    m = re.fullmatch(r"recall@precision=([0-9.eE+-]+)", t)
    if m:
        try:
            value = float(m.group(1))
        except ValueError:
            value = float("nan")
        if 0 < value <= 1:
            return MetricSpec(t, "recall@precision", value)
        raise BadInput(f"recall@precision=P needs 0 < P <= 1, got {m.group(1)!r}.")
    raise BadInput(f"Unknown metric {text!r}: use {METRIC_HELP}.")


def _guarantee_spec(t: str, reported: str, constraint: str, op: str, target: str, conf: str):
    want = "<=" if constraint == "fpr" else ">="
    if op != want:
        raise BadInput(f"{t}: {constraint} is held {want} its target; write {constraint}{want}P.")
    try:
        value, confidence = float(target), float(conf) / 100
    except ValueError:
        value = confidence = float("nan")
    low, high = metrics.guarantees.CONFIDENCE_RANGE
    if not (0 < value < 1 and low <= confidence <= high):
        raise BadInput(
            f"{t}: the target needs 0 < P < 1 and the confidence {100 * low:g} <= C <= "
            f"{100 * high:g} (say {reported}@{constraint}{want}0.9@95%)."
        )
    return MetricSpec(t, "guarantee", value, constraint, confidence, reported)


def _guarantee_row(spec: MetricSpec, name: str, y, a, b, w, g) -> GateRow:
    """Pass when the candidate has a threshold whose ``constraint`` bound meets the target;
    both models' ``reported`` metric at their guaranteed thresholds, for the log."""
    if not (y.any() and not y.all()):
        nan = float("nan")
        return GateRow(spec.text, name, int(y.size), nan, nan, nan, nan, nan, None, "one class")
    found, values = [], []
    for s in (a, b):
        r = metrics.threshold_with_guarantee(
            y, s, metric=spec.constraint, target=spec.value, confidence=spec.confidence,
            sample_weight=w, groups=g,
        )  # fmt: skip
        found.append(r)
        if r.threshold is None:
            values.append(float("nan"))
            continue
        c = metrics.confusion_at_threshold(y, s, r.threshold, sample_weight=w)
        values.append(float(getattr(c, spec.reported)))
    cand = found[1]
    side = "upper" if spec.constraint == "fpr" else "lower"
    level = f"{spec.confidence:.0%}"
    reason = (
        f"{spec.constraint} {level} {side} bound {cand.bound:.4f} at threshold "
        f"{cand.threshold:.6g} ({cand.method})"
        if cand.threshold is not None
        else f"no threshold of the candidate holds {spec.constraint} at {spec.value:g} with "
        f"{level} confidence"
    )
    nan = float("nan")
    return GateRow(
        spec.text, name, int(y.size), values[0], values[1], values[1] - values[0], nan, nan,
        cand.threshold is not None, reason,
    )  # fmt: skip


@dataclass(frozen=True)
class GateRow:
    """One metric on one slice: both models' values and the difference's one-sided bounds."""

    metric: str
    slice: str
    rows: int
    baseline: float
    candidate: float
    difference: float
    lower: float  # quantile(differences, alpha)
    upper: float  # quantile(differences, 1 - alpha)
    passed: bool | None  # None: undefined on this slice (one class, no group with both)
    reason: str = ""


@dataclass(frozen=True)
class Gate:
    baseline: str
    candidate: str
    alpha: float
    max_drop: float
    strict: bool
    resampling: str
    n_resamples: int
    seed: int
    rows: list[GateRow] = field(default_factory=list)
    note: str = ""
    warnings: tuple[str, ...] = ()  # e.g. a model whose scores rank the other class higher
    family_size: int = 1  # metrics (but guaranteed thresholds) x slices: the tests gated
    row_alpha: float = 0.05  # the level of each test's bound (alpha / family_size by default)

    @property
    def family(self) -> str:
        """The family of tests the verdict rests on, in one sentence."""
        level = _percent(self.alpha)
        k = self.family_size
        if k == 0:
            return (
                "family: no bootstrap test (guaranteed thresholds only, each at its own confidence)"
            )
        if k == 1:
            return (
                f"family: one test (one metric on all rows), so the chance of a wrong "
                f"{'PASS' if self.strict else 'FAIL'} is at most {level}"
            )
        if self.strict:
            return (
                f"family: {k} tests (metrics x slices); a PASS needs every one "
                f"(intersection-union), so the chance of a wrong PASS is at most {level} with "
                "each bound at its plain level"
            )
        return (
            f"family: {k} tests (metrics x slices); a FAIL on any one fails the gate, so each "
            f"one-sided bound is at {_percent(1 - self.row_alpha)} (Bonferroni, alpha / {k}) "
            f"and the chance of a wrong FAIL is at most {level}"
        )

    @property
    def exit_code(self) -> int:
        """1 when a row fails, else 2 when a metric is undefined on all rows, else 0."""
        if self.failing:
            return 1
        return 2 if self.refused else 0

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    @property
    def refused(self) -> list[GateRow]:
        """Rows undefined on all rows: the gate cannot decide on them."""
        return [r for r in self.rows if r.passed is None and r.slice == ALL_ROWS]

    @property
    def error(self) -> str:
        """The sentence a refusal prints (empty when nothing is refused)."""
        if not self.refused:
            return ""
        return " ".join(
            f"{r.metric} is undefined on all rows ({r.reason}), so the gate cannot decide on "
            "it: pick a metric or target defined for both models on these rows."
            for r in self.refused
        )

    @property
    def failing(self) -> list[GateRow]:
        return [r for r in self.rows if r.passed is False]

    def to_json(self) -> dict:
        return {
            "passed": self.passed,
            "exit_code": self.exit_code,
            **({"error": self.error} if self.exit_code == 2 else {}),
            "baseline": self.baseline,
            "candidate": self.candidate,
            "rule": self.rule,
            "family": self.family,
            "family_size": self.family_size,
            "row_alpha": self.row_alpha,
            "alpha": self.alpha,
            "max_drop": self.max_drop,
            "strict": self.strict,
            "resampling": self.resampling,
            "note": self.note,
            "warnings": list(self.warnings),
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "results": [_plain(asdict(r)) for r in self.rows],
            "failing": [{"metric": r.metric, "slice": r.slice} for r in self.failing],
            "refused": [{"metric": r.metric, "reason": r.reason} for r in self.refused],
        }

    @property
    def rule(self) -> str:
        level = _percent(1 - self.row_alpha)
        if self.strict:
            return (
                f"pass when the {level} one-sided lower bound of candidate - baseline is >= "
                f"{-self.max_drop:g}"
            )
        return (
            f"fail when the {level} one-sided upper bound of candidate - baseline is < "
            f"{-self.max_drop:g}"
        )


ALL_ROWS = "all rows"


def _percent(x: float) -> str:
    """0.95 -> "95%", 0.98333 -> "98.33%"."""
    return f"{100 * x:.2f}".rstrip("0").rstrip(".") + "%"


def _plain(d: dict) -> dict:
    return {k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in d.items()}


def fast_bootstrap_takes_groups() -> bool:
    """True once :func:`metrics.fast_paired_bootstrap` resamples whole groups (``groups=``)."""
    return "groups" in inspect.signature(metrics.fast_paired_bootstrap).parameters


# --- one metric's paired replicates ----------------------------------------------------------


def _score(spec: MetricSpec, y, s, w) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if spec.kind == "auc":
            return float(metrics.roc_auc_score(y, s, sample_weight=w))
        if spec.kind == "ap":
            return float(metrics.average_precision_score(y, s, sample_weight=w))
        if spec.kind == "f1":
            return float(metrics.confusion_at_threshold(y, s, spec.value, sample_weight=w).f1)
        if spec.kind == "recall@precision":
            return float(metrics.recall_at_precision(y, s, spec.value, sample_weight=w).value)
    raise AssertionError(spec.kind)


FAST_KEYS = {"auc": "roc_auc", "ap": "average_precision", "f1": "f1"}


def _replicates(
    spec: MetricSpec, y, a, b, w, groups, *, n_resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """(estimates of shape (2,), replicates of shape (n_resamples, 2)) for baseline a and
    candidate b, paired: both scored on the same resample."""
    if spec.kind == "gauc":
        tables = [metrics.group_auc_table(y, s, groups, sample_weight=w) for s in (a, b)]
        if not all(t.defined.any() for t in tables):
            raise _Undefined("no group has both classes")
        r = metrics.cluster_bootstrap(
            np.column_stack([t.auc for t in tables]),
            np.column_stack([t.weights() for t in tables]),
            n_resamples=n_resamples,
            seed=seed,
        )
        return np.array([iv.estimate for iv in r.models]), r.replicates
    empty = _empty_class(y, w)
    if empty:
        raise _Undefined(empty)
    if groups is None or (spec.kind in FAST_KEYS and fast_bootstrap_takes_groups()):
        if spec.kind in FAST_KEYS:
            options = {"groups": groups} if groups is not None else {}
            if spec.kind == "f1":
                options["thresholds"] = [spec.value, spec.value]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = metrics.fast_paired_bootstrap(
                    y, a, b, n_resamples=n_resamples, seed=seed, sample_weight=w,
                    only=(FAST_KEYS[spec.kind],), **options,
                )  # fmt: skip
            result = r.results[FAST_KEYS[spec.kind]]
            return np.array([iv.estimate for iv in result.models]), result.replicates
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = metrics.paired_bootstrap(
                lambda yy, s, sample_weight=None: _score(spec, yy, s, sample_weight),
                y,
                a,
                b,
                n_resamples=n_resamples,
                seed=seed,
                sample_weight=w,
                counts="poisson",
            )
        return np.array([iv.estimate for iv in result.models]), result.replicates
    # Whole groups: every group drawn Poisson(1) times, its rows weighted by that count.
    codes = pd.factorize(pd.Series(groups), sort=True)[0]
    rng = np.random.default_rng(seed)
    base = np.ones(y.size) if w is None else np.asarray(w, dtype=np.float64)
    estimates = np.array([_score(spec, y, s, w) for s in (a, b)])
    reps = np.full((n_resamples, 2), np.nan)
    for r in range(n_resamples):
        counts = rng.poisson(1.0, size=codes.max() + 1)
        rw = base * counts[codes]
        if rw[y].sum() > 0 and rw[~y].sum() > 0:
            reps[r] = [_score(spec, y, s, rw) for s in (a, b)]
    return estimates, reps


class _Undefined(Exception):
    pass


def _empty_class(y: np.ndarray, w) -> str:
    """Why no metric is defined on these rows ("" when one is)."""
    for cls, rows in (("positive", y), ("negative", ~y)):
        if not rows.any():
            return f"one class only: no {cls} rows"
        if w is not None and not np.sum(w[rows]) > 0:
            return f"the {cls} rows have zero total weight"
    return ""


def _why_undefined(spec: MetricSpec, role: str, name: str, y, s, w) -> str:
    """Why ``spec`` is undefined for one model on rows where the data define it."""
    if spec.kind == "recall@precision":
        c = metrics.threshold_counts(y, s, sample_weight=w)
        flagged = c.tps + c.fps  # every distinct threshold flags some rows (weight, maybe 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(flagged > 0, c.tps / np.where(flagged > 0, flagged, 1), np.nan)
        said = f"{role} {name} never reaches precision {spec.value:g}"
        if np.isfinite(precision).any():
            said += f": its highest is {np.nanmax(precision):.4f}"
        return said
    return f"{spec.text} is undefined for {role} {name}"


def _differences(reps: np.ndarray) -> tuple[np.ndarray, str]:
    """candidate - baseline per resample: both undefined left out, one undefined as -inf
    (candidate) or +inf (baseline); and a note of how many were."""
    base, cand = reps[:, 0], reps[:, 1]
    nb, nc = np.isnan(base), np.isnan(cand)
    diff = np.where(nc & ~nb, -np.inf, np.where(nb & ~nc, np.inf, cand - base))[~(nb & nc)]
    n = reps.shape[0]
    notes = [
        f"{k} of {n} resamples undefined for the {who} only"
        for k, who in ((int(np.sum(nc & ~nb)), "candidate"), (int(np.sum(nb & ~nc)), "baseline"))
        if k
    ]
    if (nb & nc).any():
        notes.append(f"{int(np.sum(nb & nc))} of {n} undefined for both (left out)")
    return diff, "; ".join(notes)


def _row(spec, name, mask, table: Table, baseline, candidate, *, groups, options) -> GateRow:
    y = table.y if mask is None else table.y[mask]
    w = table.weight if table.weight is None or mask is None else table.weight[mask]
    a = table.scores[baseline] if mask is None else table.scores[baseline][mask]
    b = table.scores[candidate] if mask is None else table.scores[candidate][mask]
    g = groups if groups is None or mask is None else groups[mask]
    alpha, max_drop, strict = options["alpha"], options["max_drop"], options["strict"]
    if spec.kind == "guarantee":  # gated on the candidate's bound, not on a difference
        return _guarantee_row(spec, name, y, a, b, w, g)
    try:
        est, reps = _replicates(
            spec, y, a, b, w, g, n_resamples=options["n_resamples"], seed=options["seed"]
        )
    except _Undefined as exc:
        nan = float("nan")
        return GateRow(spec.text, name, int(y.size), nan, nan, nan, nan, nan, None, str(exc))
    nan, n = float("nan"), int(y.size)
    b_est, c_est = float(est[0]), float(est[1])
    if not (np.isfinite(b_est) and np.isfinite(c_est)):
        roles = ((b_est, "baseline", baseline, a), (c_est, "candidate", candidate, b))
        why = "; ".join(
            _why_undefined(spec, role, model, y, s, w)
            for value, role, model, s in roles
            if not np.isfinite(value)
        )
        # only the candidate undefined: it fails; the baseline (or both): nothing to compare
        fails = np.isfinite(b_est) and not np.isfinite(c_est)
        return GateRow(
            spec.text, name, n, b_est, c_est, nan, nan, nan, False if fails else None, why
        )
    diff, note = _differences(reps)
    if diff.size == 0:
        return GateRow(
            spec.text, name, n, b_est, c_est, c_est - b_est, nan, nan, None,
            "undefined on every resample",
        )  # fmt: skip
    if np.isinf(diff).any():  # interpolating towards an infinity is meaningless
        q = np.quantile(diff, [alpha, 1 - alpha], method="inverted_cdf")
    else:
        q = np.quantile(diff, [alpha, 1 - alpha])
    lower, upper = float(q[0]), float(q[1])
    passed = lower >= -max_drop if strict else not upper < -max_drop
    return GateRow(
        spec.text, name, n, b_est, c_est, c_est - b_est, lower, upper, bool(passed), note
    )


def gate(
    table: Table,
    baseline: str,
    candidate: str,
    specs: list[MetricSpec],
    *,
    max_drop: float = 0.0,
    alpha: float = 0.05,
    slice_column: str | None = None,
    strict: bool = False,
    rows_independent: bool = False,
    n_resamples: int = 1000,
    seed: int = 0,
    steps: Steps | None = None,
) -> Gate:
    """Gate ``candidate`` against ``baseline`` on every metric (and slice); see the module.
    ``steps`` shows each metric and slice as it runs (the command's progress line)."""
    for name, flag in ((baseline, "--baseline"), (candidate, "--candidate")):
        if name not in table.scores:
            raise BadInput(
                f"{flag} {name!r} is not a score column of {table.name} (its scores: "
                f"{', '.join(table.scores)})."
            )
    if baseline == candidate:
        raise BadInput("--baseline and --candidate name the same column.")
    if not 0 < alpha < 0.5:
        raise BadInput(f"--alpha must be between 0 and 0.5, got {alpha:g}.")
    if not (np.isfinite(max_drop) and max_drop >= 0):
        raise BadInput(f"--max-drop must be a number >= 0, got {max_drop:g}.")
    if n_resamples < 100:
        raise BadInput(f"--resamples must be at least 100, got {n_resamples}.")
    if any(s.kind == "gauc" for s in specs) and table.groups is None:
        raise BadInput("gauc needs a user or query column: pass --group COLUMN.")
    for spec in specs:  # a threshold outside every score compares two constant predictions
        if spec.kind != "f1":
            continue
        both = np.concatenate([table.scores[baseline], table.scores[candidate]])
        low, high = float(np.min(both)), float(np.max(both))
        if spec.value > high or spec.value <= low:
            side = "above every score" if spec.value > high else "at or below every score"
            raise BadInput(
                f"{spec.text}: {spec.value:g} is {side} of {baseline} and {candidate} (they run "
                f"from {low:.4g} to {high:.4g}), so both predict "
                + ("no row" if spec.value > high else "every row")
                + " positive and the gate would compare nothing; pick a threshold inside them."
            )
    if slice_column is not None and slice_column not in table.frame.columns:
        raise BadInput(
            f"No column named {slice_column!r} (--slice); the table has "
            + ", ".join(repr(str(c)) for c in list(table.frame.columns)[:12])
            + "."
        )
    groups = table.groups
    row_groups = None if rows_independent else groups
    if groups is None:
        resampling = "rows"
    elif rows_independent:
        resampling = "rows (--rows-independent); gauc resamples groups"
    else:
        resampling = f"{table.mapping.group} values"
    slices_count = 1 + (
        0
        if slice_column is None
        else table.frame[slice_column].dropna().nunique()
        + int(table.frame[slice_column].isna().any())
    )
    family_size = sum(s.kind != "guarantee" for s in specs) * slices_count
    # A FAIL on any test claims a drop: Bonferroni across the family. A strict PASS needs every
    # test (intersection-union): each at its plain level.
    row_alpha = alpha if strict or family_size <= 1 else alpha / family_size
    options = {
        "alpha": row_alpha,
        "max_drop": max_drop,
        "strict": strict,
        "n_resamples": n_resamples,
        "seed": seed,
    }
    result = Gate(baseline, candidate, alpha, max_drop, strict, resampling, n_resamples, seed,
                  # the CI log says which columns the numbers depend on, and how to drop one
                  note=table.notes[-1] if table.guessed else "",
                  warnings=tuple(inverted_notes(table)),
                  family_size=family_size, row_alpha=row_alpha)  # fmt: skip
    slices: list[tuple[str, np.ndarray | None]] = [(ALL_ROWS, None)]
    if slice_column is not None:
        column = table.frame[slice_column]
        for value in pd.unique(column.dropna()):
            plain = value.item() if hasattr(value, "item") else value
            slices.append((f"{slice_column} = {plain}", (column == value).to_numpy()))
        missing = column.isna().to_numpy()
        if missing.any():
            slices.append((f"{slice_column} missing", missing))
    steps = steps or Steps("check", mode="off")
    steps.add(len(specs) * len(slices))
    for spec in specs:
        for name, mask in slices:
            g = groups if spec.kind == "gauc" else row_groups
            with steps.step(f"{spec.text} · {name}"):
                row = _row(spec, name, mask, table, baseline, candidate, groups=g, options=options)
            result.rows.append(row)
    return result


def text_report(g: Gate) -> str:
    """The gate in lines a CI log shows."""
    lines = (
        [
            f"candidate {g.candidate} vs baseline {g.baseline}: {g.rule} "
            f"(paired bootstrap, {g.n_resamples} resamples of {g.resampling}, seed {g.seed})"
        ]
        + [g.family]
        + ([g.note] if g.note else [])
        + [f"WARNING  {w}" for w in g.warnings]
    )
    for r in g.rows:
        if r.passed is None:
            word = "UNDEFINED" if r.slice == ALL_ROWS else "SKIP "
            lines.append(f"{word} {r.metric:<22} {r.slice}: undefined ({r.reason}), {r.rows} rows")
            continue
        if not np.isfinite(r.candidate) and r.passed is False:
            lines.append(
                f"FAIL  {r.metric:<22} {r.slice}: {r.reason}; baseline {g.baseline} "
                f"{_num(r.baseline)} ({r.rows} rows)"
            )
            continue
        if np.isnan(r.lower):  # no interval (a guaranteed threshold): its reason instead
            bounds = r.reason
        else:
            bounds = f"[{_num(r.lower, '+')}, {_num(r.upper, '+')}]" + (
                f"; {r.reason}" if r.reason else ""
            )
        lines.append(
            f"{'PASS' if r.passed else 'FAIL'}  {r.metric:<22} {r.slice}: baseline "
            f"{_num(r.baseline)}, candidate {_num(r.candidate)}, difference "
            f"{_num(r.difference, '+')} {bounds} ({r.rows} rows)"
        )
    if g.exit_code == 0:
        lines.append("passed")
    elif g.exit_code == 2:
        lines.append(f"REFUSED: {g.error}")
    else:
        failing = ", ".join(f"{r.metric} on {r.slice}" for r in g.failing)
        lines.append(f"FAILED: {failing}")
    return "\n".join(lines)


def _num(x: float, sign: str = "") -> str:
    """A value for the log: never "nan" (undefined) and infinities as ∞."""
    if np.isnan(x):
        return "undefined"
    if np.isinf(x):
        return "+∞" if x > 0 else "-∞"
    return f"{x:{sign}.4f}"
