"""Figures for the Decision curves page: cost curves, Brier curves, precision-recall gain and DET.

Pure plotly: values in (arrays from :mod:`metrics`), figure out; no Streamlit. Every figure
overlays several models, one colour each (``ui.figures.charts.PALETTE``).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import plotly.graph_objects as go

from ui.figures.charts import _BASE_LAYOUT, PALETTE, sample_indices

# Tick rates of a DET chart (as NIST's DET plots and scikit-learn's DetCurveDisplay).
DET_TICKS = (0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99, 0.999)
DET_LIMIT = 0.0005  # the axes run from probit(0.0005) to probit(0.9995)
_GREY = "#9a9a9a"


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _thin(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """At most about 2,000 points of each array (the same indices), ends kept."""
    idx = sample_indices(len(arrays[0]))
    return tuple(np.asarray(a)[idx] for a in arrays)


# --- cost curves --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostLines:
    """One model on a cost-curve chart: its lower envelope and its operating line.

    ``x``, ``cost``: :func:`metrics.cost_curve`. ``fpr``, ``fnr``: the rates at ``threshold``,
    the operating line ``fnr * x + fpr * (1 - x)``. ``area``: under the envelope.
    """

    name: str
    x: np.ndarray
    cost: np.ndarray
    fpr: float
    fnr: float
    threshold: float
    area: float
    threshold_text: str = ""  # the threshold as the page writes it (ui.compute.thresholds.label)


def _cost_top(models: list[CostLines]) -> float:
    """The y-axis top: 20% above the highest envelope or operating line, in [0.02, 0.55]."""
    highest = [float(np.nanmax(m.cost)) for m in models if np.isfinite(m.cost).any()]
    highest += [v for m in models for v in (m.fpr, m.fnr) if np.isfinite(v)]
    return min(0.55, max(0.02, 1.2 * max(highest, default=0.5)))


def cost_figure(models: list[CostLines], *, height: int = 460) -> go.Figure:
    """Drummond & Holte's cost space: treat-none and treat-all lines, each model's lower
    envelope (solid) and the operating line of its current threshold (dashed)."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, 1, None, 0, 1], y=[0, 1, None, 1, 0], mode="lines", name="treat none / treat all",
            line=dict(color=_GREY, width=1, dash="dot"), hoverinfo="skip",
        )
    )  # fmt: skip
    for i, m in enumerate(models):
        fig.add_trace(
            go.Scatter(
                x=m.x, y=m.cost, mode="lines", name=f"{m.name} envelope (area {m.area:.4f})",
                line=dict(color=_color(i), width=2.5), legendgroup=m.name,
                hovertemplate="probability cost %{x:.3f}<br>least cost %{y:.4f}<extra>"
                + m.name + "</extra>",
            )
        )  # fmt: skip
        fig.add_trace(
            go.Scatter(
                x=[0.0, 1.0], y=[m.fpr, m.fnr], mode="lines",
                name=f"{m.name} at threshold {m.threshold_text or format(m.threshold, '.4g')}",
                line=dict(color=_color(i), width=1.5, dash="dash"), legendgroup=m.name,
                hovertemplate=f"FPR {m.fpr:.3f} at x = 0, FNR {m.fnr:.3f} at x = 1"
                "<br>x %{x:.3f}, cost %{y:.4f}<extra>" + m.name + "</extra>",
            )
        )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        height=height,
        xaxis=dict(title="probability cost PC(+)", range=[0, 1]),
        # Up to a little above the highest model line (the trivial lines rise to 1 beyond).
        yaxis=dict(title="normalised expected cost", range=[0, _cost_top(models)]),
        legend=dict(orientation="h", y=1.02, x=0),
    )
    return fig


# --- Brier curves -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BrierLines:
    """One probability model on a Brier-curve chart: :func:`metrics.brier_curve` (``x``,
    ``loss``), its cost-curve envelope for comparison, and the Brier curve's area."""

    name: str
    x: np.ndarray
    loss: np.ndarray
    envelope_x: np.ndarray
    envelope: np.ndarray
    area: float


def brier_figure(models: list[BrierLines], *, height: int = 460) -> go.Figure:
    """Each model's Brier curve (solid) over its cost-curve envelope (dotted): the gap is the
    cost of setting the threshold from the probabilities instead of the best one."""
    fig = go.Figure()
    for i, m in enumerate(models):
        x, loss = _thin(m.x, m.loss)
        fig.add_trace(
            go.Scatter(
                x=x, y=loss, mode="lines", name=f"{m.name} Brier curve (area {m.area:.4f})",
                line=dict(color=_color(i), width=2.5), legendgroup=m.name,
                hovertemplate="x %{x:.3f}: threshold p ≥ %{customdata:.3f}<br>cost %{y:.4f}"
                "<extra>" + m.name + "</extra>", customdata=1.0 - x,
            )
        )  # fmt: skip
        fig.add_trace(
            go.Scatter(
                x=m.envelope_x, y=m.envelope, mode="lines", name=f"{m.name} cost envelope",
                line=dict(color=_color(i), width=1.5, dash="dot"), legendgroup=m.name,
                hoverinfo="skip",
            )
        )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        height=height,
        xaxis=dict(title="probability cost (threshold = 1 − x)", range=[0, 1]),
        yaxis=dict(title="normalised expected cost", rangemode="tozero"),
        legend=dict(orientation="h", y=1.02, x=0),
    )
    return fig


# --- precision-recall gain ----------------------------------------------------------------------


@dataclass(frozen=True)
class GainLines:
    """One model on the precision-recall-gain chart: :func:`metrics.precision_recall_gain_curve`
    and the areas shown beside it."""

    name: str
    precision_gain: np.ndarray
    recall_gain: np.ndarray
    auprg: float
    ap: float


def prg_figure(models: list[GainLines], *, height: int = 460) -> go.Figure:
    """Precision gain against recall gain over the unit square (points with a negative recall
    gain, recall below the prevalence, lie outside it), AUPRG and AP in the legend."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, 1], y=[1, 0], mode="lines", name="F1 gain ½, as flagging everyone",
            line=dict(color=_GREY, width=1, dash="dot"), hoverinfo="skip",
        )
    )  # fmt: skip
    low = 0.0
    for i, m in enumerate(models):
        pg, rg = np.asarray(m.precision_gain), np.asarray(m.recall_gain)
        keep = np.isfinite(pg) & np.isfinite(rg) & (rg >= 0)
        pg, rg = _thin(pg[keep], rg[keep]) if keep.any() else (pg[keep], rg[keep])
        order = np.argsort(rg, kind="stable")
        if pg.size:
            low = min(low, float(np.min(pg)))
        fig.add_trace(
            go.Scatter(
                x=rg[order], y=pg[order], mode="lines",
                name=f"{m.name}: AUPRG {m.auprg:.4f}, AP {m.ap:.4f}",
                line=dict(color=_color(i), width=2),
                hovertemplate="recall gain %{x:.3f}<br>precision gain %{y:.3f}<extra>"
                + m.name + "</extra>",
            )
        )  # fmt: skip
    fig.update_layout(
        **_BASE_LAYOUT,
        height=height,
        xaxis=dict(title="recall gain", range=[0, 1.02]),
        yaxis=dict(title="precision gain", range=[max(low, -1.0) - 0.02, 1.02]),
        legend=dict(orientation="h", y=1.02, x=0),
    )
    return fig


# --- DET ----------------------------------------------------------------------------------------


def probit(rates) -> np.ndarray:
    """The standard normal deviate of each rate (``-inf`` at 0, ``inf`` at 1)."""
    inv = NormalDist().inv_cdf
    out = []
    for r in np.asarray(rates, dtype=float).ravel():
        if r <= 0:
            out.append(-np.inf)
        elif r >= 1:
            out.append(np.inf)
        elif np.isnan(r):
            out.append(np.nan)
        else:
            out.append(inv(float(r)))
    return np.array(out)


def same_envelopes(models: list[CostLines]) -> list[tuple[str, str]]:
    """(later, earlier) for each model whose envelope equals an earlier one's: drawn after it,
    it hides that line completely."""
    out = []
    for j, later in enumerate(models):
        for earlier in models[:j]:
            if np.array_equal(later.x, earlier.x) and np.array_equal(later.cost, earlier.cost):
                out.append((later.name, earlier.name))
                break
    return out


@dataclass(frozen=True)
class DetLines:
    """One model on the DET chart: :func:`metrics.det_curve` rates and its equal error rate."""

    name: str
    fpr: np.ndarray
    fnr: np.ndarray
    eer: float
    eer_threshold: float
    eer_threshold_text: str = ""  # as the page writes it (ui.compute.thresholds.label)


def det_figure(models: list[DetLines], *, height: int = 560) -> go.Figure:
    """False negative against false positive rate, both on normal-deviate (probit) axes, so a
    model whose two classes' scores are normal with equal spread draws a straight line; the
    diagonal FPR = FNR and each model's equal error rate marked. Rates of 0 or 1 lie at
    infinity and are left out."""
    fig = go.Figure()
    lim = float(probit([DET_LIMIT])[0])
    fig.add_trace(
        go.Scatter(
            x=[lim, -lim], y=[lim, -lim], mode="lines", name="FPR = FNR",
            line=dict(color=_GREY, width=1, dash="dot"), hoverinfo="skip",
        )
    )  # fmt: skip
    for i, m in enumerate(models):
        fpr, fnr = _thin(np.asarray(m.fpr, float), np.asarray(m.fnr, float))
        x, y = probit(fpr), probit(fnr)
        keep = np.isfinite(x) & np.isfinite(y)
        fig.add_trace(
            go.Scatter(
                x=x[keep], y=y[keep], mode="lines", name=m.name,
                line=dict(color=_color(i), width=2.5), legendgroup=m.name,
                customdata=np.column_stack((fpr[keep], fnr[keep])),
                hovertemplate="FPR %{customdata[0]:.4f}<br>FNR %{customdata[1]:.4f}<extra>"
                + m.name + "</extra>",
            )
        )  # fmt: skip
        z = float(probit([m.eer])[0])
        if np.isfinite(z):
            fig.add_trace(
                go.Scatter(
                    x=[z], y=[z], mode="markers", legendgroup=m.name,
                    name=f"{m.name} EER {m.eer:.2%} (threshold "
                    f"{m.eer_threshold_text or format(m.eer_threshold, '.4g')})",
                    marker=dict(color=_color(i), size=11, symbol="diamond",
                                line=dict(color="white", width=1.5)),
                    hovertemplate=f"equal error rate {m.eer:.4f}<extra>{m.name}</extra>",
                )
            )  # fmt: skip
    ticks = probit(DET_TICKS)
    labels = [f"{t:.1%}" if t < 0.01 or t > 0.99 else f"{t:.0%}" for t in DET_TICKS]
    axis = dict(
        tickvals=ticks, ticktext=labels, range=[lim, -lim], zeroline=False, constrain="domain"
    )
    fig.update_layout(
        **_BASE_LAYOUT,
        height=height,
        xaxis=dict(title="false positive rate (normal-deviate scale)", **axis),
        yaxis=dict(title="false negative rate (normal-deviate scale)", scaleanchor="x", **axis),
        legend=dict(orientation="h", y=1.02, x=0),
    )
    return fig
