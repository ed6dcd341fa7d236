"""Bounds and real numbers at the library's doors (issue 50 §5).

Every public function whose work or memory grows with an argument checks it against a bound
kept in :mod:`metrics._bounds` and refuses a value past it with a ``ValueError`` that names the
argument and the bound, before it allocates anything (``n_resamples=10**12`` asked numpy for
7.28 TiB). And complex numbers are refused everywhere, as object values are: numpy would drop
the imaginary part with a warning and compute on numbers nobody gave.

The complex test is generated over the public API itself: every function of ``metrics.__all__``
(bands, guarantees and classification aside: their own owners) that a table of plain inputs can
call is called again with ONE of its numeric arguments made complex, and must refuse it.
"""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from metrics import _bounds
from tests.strategies import examples

SKIP_MODULES = ("metrics.bands", "metrics.guarantees", "metrics.classification")
N = 40
_rng = np.random.default_rng(0)
Y = np.tile([0, 1], N // 2)
S = _rng.random(N)
S2 = _rng.random(N)
G = np.repeat(np.arange(8), 5)
YC = np.tile([0, 1, 2], 14)[:N]
P = _rng.dirichlet(np.ones(3), N)
IND = (_rng.random((N, 3)) < 0.4).astype(int)
IND[0], IND[1] = 1, 0
# Plain inputs by parameter name; a list holds variants (binary, multi-class, multi-label).
FILL = {
    "y_true": [Y, YC, IND], "y_score": [S, P, P], "y_prob": [S, P, P], "y_proba": [S, P, P],
    "score_a": [S], "score_b": [S2], "y_pred": [Y, YC], "pred_a": [Y], "pred_b": [1 - Y],
    "groups": [G], "thresholds": [np.array([0.2, 0.5])], "threshold": [0.5],
    "threshold_a": [0.5], "threshold_b": [0.5], "metric": [metrics.roc_auc_score],
    "difference": [0.05], "ratings": [(_rng.random((N, 3)) < 0.5).astype(float)],
    "table": [_rng.random((10, 3))], "values": [S], "replicates": [S - 0.5],
    "p_values": [np.array([0.01, 0.2])], "sizes": [np.array([3.0, 4.0, 5.0])],
    "scores": [[S, S2], {"a": P, "b": P}], "x": [np.sort(S)], "y": [S],
    "min_recall": [0.5], "min_precision": [0.5], "max_fpr": [0.5], "k": [3],
}  # fmt: skip
IDENTIFIERS = {"groups", "metric", "k", "threshold", "threshold_a", "threshold_b", "difference",
               "min_recall", "min_precision", "max_fpr"}  # fmt: skip


def _public() -> list[str]:
    out = []
    for name in metrics.__all__:
        f = getattr(metrics, name)
        if inspect.isfunction(f) and not f.__module__.startswith(SKIP_MODULES):
            out.append(name)
    return out


def _call(name: str):
    """``(function, args, kwargs)`` of a call with plain inputs that works, or None."""
    f = getattr(metrics, name)
    params = inspect.signature(f).parameters.values()
    needed = [p for p in params if p.default is inspect.Parameter.empty
              and p.kind is not inspect.Parameter.VAR_POSITIONAL]  # fmt: skip
    if any(p.name not in FILL for p in needed):
        return None
    for variant in range(3):
        args, kwargs = [], {}
        for p in needed:
            value = FILL[p.name][min(variant, len(FILL[p.name]) - 1)]
            if p.kind is inspect.Parameter.KEYWORD_ONLY:
                kwargs[p.name] = value
            else:
                args.append(value)
        names = {p.name for p in params}
        # *models (scores side by side); not *args, keywords still taken by position
        if any(p.kind is inspect.Parameter.VAR_POSITIONAL and p.name != "args" for p in params):
            args += [S, S2] if variant == 0 else [P[:, 0], P[:, 1]]
        if "n_resamples" in names:
            kwargs["n_resamples"] = 30
        if "sample_weight" in names and variant == 0:
            kwargs["sample_weight"] = np.ones(N)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                f(*args, **kwargs)
        except Exception:
            continue
        return f, args, kwargs
    return None


CALLS = {name: call for name in _public() if (call := _call(name)) is not None}


def _numeric(value) -> bool:
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


def _slots(args: list, kwargs: dict) -> list:
    """The numeric array arguments of a call: positions and keyword names."""
    return [i for i, a in enumerate(args) if _numeric(a)] + [
        k for k, v in kwargs.items() if _numeric(v) and k not in IDENTIFIERS
    ]


def test_the_table_calls_most_of_the_public_api():
    assert len(CALLS) >= 60, sorted(set(_public()) - set(CALLS))


@settings(max_examples=examples(150), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(data=st.data(), imaginary=st.sampled_from([0.0, 1e-300, 0.5, -3.0]))
def test_complex_numbers_are_refused_by_every_public_function(data, imaginary):
    name = data.draw(st.sampled_from(sorted(CALLS)))
    f, args, kwargs = CALLS[name]
    slots = _slots(args, kwargs)
    if not slots:
        return
    slot = data.draw(st.sampled_from(slots))
    args, kwargs = list(args), dict(kwargs)
    if isinstance(slot, int):
        args[slot] = args[slot] + 1j * imaginary
    else:
        kwargs[slot] = kwargs[slot] + 1j * imaginary
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)  # never a dropped part
        with pytest.raises(ValueError, match="complex numbers") as e:
            f(*args, **kwargs)
    assert "must be real numbers" in str(e.value), (name, slot)


def test_complex_scores_are_refused_as_object_scores_are():
    with pytest.raises(
        ValueError, match=r"y_score holds complex numbers \(for example \(0\.4\+1j\)\)"
    ):
        metrics.roc_auc_score([0, 1, 1], np.array([0.1, 0.4, 0.8]) + np.array([0, 1j, 0]))
    with pytest.raises(ValueError, match="y_true holds complex numbers"):
        metrics.roc_auc_score(np.array([0, 1, 1], complex), [0.1, 0.4, 0.8])


# --- bounds -------------------------------------------------------------------------------


def _bound_calls():
    """``(label, call(value), argument, bound)``: each bounded argument of the library."""
    y, s = Y, S
    return [
        ("paired_bootstrap", lambda v: metrics.paired_bootstrap(
            metrics.roc_auc_score, y, s, n_resamples=v), "n_resamples", _bounds.MAX_RESAMPLES),
        ("fast_paired_bootstrap", lambda v: metrics.fast_paired_bootstrap(
            y, s, n_resamples=v), "n_resamples", _bounds.MAX_RESAMPLES),
        ("cluster_bootstrap", lambda v: metrics.cluster_bootstrap(s, n_resamples=v),
         "n_resamples", _bounds.MAX_RESAMPLES),
        ("calibration_error_interval", lambda v: metrics.calibration_error_interval(
            y, s, n_resamples=v), "n_resamples", _bounds.MAX_RESAMPLES),
        ("decision_intervals", lambda v: metrics.decision_intervals(IND, IND, n_resamples=v),
         "n_resamples", _bounds.MAX_RESAMPLES),
        ("compare_multiclass_models", lambda v: metrics.compare_multiclass_models(
            YC, {"a": P, "b": P}, n_resamples=v), "n_resamples", _bounds.MAX_RESAMPLES),
        ("threshold_interval", lambda v: metrics.threshold_interval(y, s, n_resamples=v),
         "n_resamples", _bounds.MAX_RESAMPLES),
        ("score_against_annotators", lambda v: metrics.score_against_annotators(
            FILL["ratings"][0], y, n_resamples=v), "n_resamples", _bounds.MAX_RESAMPLES),
        ("calibration_curve", lambda v: metrics.calibration_curve(y, s, n_bins=v), "n_bins",
         _bounds.MAX_BINS),
        ("calibration_error", lambda v: metrics.calibration_error(y, s, n_bins=v), "n_bins",
         _bounds.MAX_BINS),
        ("brier_decomposition", lambda v: metrics.brier_decomposition(y, s, n_bins=v),
         "n_bins", _bounds.MAX_BINS),
        ("lift_table", lambda v: metrics.lift_table(y, s, bins=v), "bins", _bounds.MAX_BINS),
        ("threshold_interval grid", lambda v: metrics.threshold_interval(y, s, max_grid=v),
         "max_grid", _bounds.MAX_GRID),
        ("auc_pair_grid", lambda v: metrics.auc_pair_grid(y, s, max_per_class=v),
         "max_per_class", _bounds.MAX_PAIR_SIDE),
        ("roc_grid", lambda v: metrics.fast_paired_bootstrap(
            y, s, n_resamples=10, roc_grid=np.zeros(v, np.int8)), "roc_grid",
         _bounds.MAX_GRID),
        ("threshold_grid", lambda v: metrics.fast_paired_bootstrap(
            y, s, n_resamples=10, threshold_grid=[np.zeros(v, np.int8)]), "threshold_grid",
         _bounds.MAX_GRID),
    ]  # fmt: skip


BOUNDS = {label: rest for label, *rest in _bound_calls()}


@settings(max_examples=examples(60), deadline=None)
@given(label=st.sampled_from(sorted(BOUNDS)), past=st.integers(1, 10**15))
def test_a_value_past_its_bound_is_refused_naming_the_argument_and_the_bound(label, past):
    call, argument, bound = BOUNDS[label]
    if "grid" in argument:
        past = min(past, 2_000_000)  # the grid itself is the caller's array
    with pytest.raises(ValueError, match=re.escape(argument)) as e:
        call(bound + past)
    message = str(e.value)
    assert argument in message, message
    assert f"{bound:,}" in message, message


def test_the_bounds_hold_what_the_pages_and_commands_ask_for():
    """The command's --resamples is bounded by the library's own constant; the pages' grids
    and the pair grid's largest side run."""
    from metrics_lens import cli_parser as cli

    assert cli.MAX_RESAMPLES is _bounds.MAX_RESAMPLES
    from ui.compute import uncertainty as u

    models = 30  # the Compare page's curves: every grid of 30 models at its most resamples
    points = u.THRESHOLD_POINTS + u.DECISION_GRID.size
    _bounds.check_grids("curves", u.CURVE_RESAMPLES, {
        "threshold_grid": (points, models * 6), "roc_grid": (u.BAND_GRID.size, models),
        "pr_grid": (u.BAND_GRID.size - 1, models)})  # fmt: skip
    r = metrics.fast_paired_bootstrap(Y, S, n_resamples=200, roc_grid=np.linspace(0, 1, 1001))
    assert r.n_resamples == 200
    assert metrics.auc_pair_grid(Y, S, max_per_class=_bounds.MAX_PAIR_SIDE).auc > 0


def test_resamples_times_grid_points_are_bounded_together():
    grid = np.linspace(0, 1, 1000)
    with pytest.raises(
        ValueError, match=re.escape(f"more than the bound of {_bounds.MAX_CELLS:,}")
    ):
        metrics.fast_paired_bootstrap(Y, S, S2, n_resamples=50_000, roc_grid=grid)
    with pytest.raises(
        ValueError, match="threshold_interval would keep n_resamples 100,000 x max_grid 1,000"
    ):
        metrics.threshold_interval(Y, S, n_resamples=100_000, max_grid=1_000)
    with pytest.raises(ValueError, match="calibration_error_interval would keep"):
        metrics.calibration_error_interval(Y, S, n_resamples=100_000, n_bins=1_000)
