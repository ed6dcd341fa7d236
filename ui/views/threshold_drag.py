"""The scores of each class as a strip of dots (or a histogram when there are many), with the
threshold as a line the user drags on the chart itself: the Threshold page's matrix, ROC and PR
points follow while the line moves (issue 35, part 5; what MLU-Explain's precision-recall
explainer does, on the user's own scores).

A Streamlit ``components.v2`` component: the drawing is an SVG made by the script below (no
build step, no network). While the line is dragged the component sends the threshold at most
every ``THROTTLE_MS`` and once more when it is let go; the page's callback stores it as the
model's threshold (``ui.compute.thresholds``), so the slider, the matrix and the curves show
it on the rerun that follows. Values from the data reach the script only as numbers and as
text set with ``textContent``: a class name is never parsed as HTML.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

import numpy as np
import streamlit as st

from ui.compute import thresholds

__all__ = ["DOTS_UP_TO", "class_strip", "dragged_value", "nice_ticks", "strip_data"]

KEY = "threshold_drag"
NOTICE = "threshold_drag_notice"  # why the line's last value was not taken, for the next run
DOTS_UP_TO = 3_000  # one dot a row up to this many rows; a histogram per class above
BINS = 60
THROTTLE_MS = 200
COLORS = {"pos": "#d62728", "neg": "#1f77b4"}

_JS = """
export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let root = parentElement.querySelector('.lens-strip');
  if (!root) {
    root = document.createElement('div');
    root.className = 'lens-strip';
    parentElement.appendChild(root);
  }
  root.__data = data;
  if (root.__dragging) return;  // a rerun's data while dragging: drawn when the drag ends
  root.__sent = data.threshold;  // what the app has now (the slider may have moved it)
  const NS = 'http://www.w3.org/2000/svg';
  const el = (name, attrs, parent) => {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  };
  const draw = () => {
    const d = root.__data;
    const old = root.querySelector('svg');
    const focused = old !== null && old === root.getRootNode().activeElement;
    root.replaceChildren();
    const width = Math.max(240, root.getBoundingClientRect().width || 600);
    const height = d.height, left = d.gutter, right = 8, axis = 22;
    const band = (height - axis - 6) / 2, span = width - left - right;
    const x = (s) => left + (s - d.low) / (d.high - d.low || 1) * span;
    const inv = (px) => d.low + (px - left) / span * (d.high - d.low);
    const svg = el('svg', {width, height, role: 'slider', tabindex: '0',
      'aria-label': 'Class scores: drag the cut', 'aria-valuemin': d.low, 'aria-valuemax': d.high,
      'aria-valuenow': d.threshold, class: 'lens-strip-svg'}, root);
    d.rows.forEach((row, r) => {
      const top = 3 + r * band;
      el('rect', {x: left, y: top, width: width - left - right, height: band - 2,
        fill: row.color, 'fill-opacity': 0.05}, svg);
      if (row.dots) {
        row.dots.forEach((s, i) => {
          const jitter = ((i * 0.618034) % 1) * (band - 12) + 6;
          el('circle', {cx: x(s), cy: top + jitter, r: 2.6, fill: row.color,
            'fill-opacity': 0.55}, svg);
        });
      } else {
        const peak = Math.max(1, ...row.counts);
        row.counts.forEach((c, i) => {
          if (!c) return;
          const x0 = x(row.edges[i]), x1 = x(row.edges[i + 1]);
          const h = c / peak * (band - 8);
          el('rect', {x: x0, y: top + band - 2 - h, width: Math.max(1, x1 - x0 - 1), height: h,
            fill: row.color, 'fill-opacity': 0.6}, svg);
        });
      }
      const name = el('text', {x: left - 6, y: top + band / 2 + 4, 'font-size': d.font,
        fill: row.color, 'font-weight': 600, 'text-anchor': 'end'}, svg);
      name.textContent = row.name;
    });
    d.ticks.forEach((s) => {
      el('line', {x1: x(s), x2: x(s), y1: height - axis, y2: height - axis + 4,
        stroke: '#999'}, svg);
      const t = el('text', {x: x(s), y: height - 6, 'font-size': d.font - 1, fill: '#777',
        'text-anchor': 'middle'}, svg);
      t.textContent = Number(s.toPrecision(6)).toString();
    });
    const line = el('line', {y1: 0, y2: height - axis + 2, stroke: '#222', 'stroke-width': 2.5,
      class: 'lens-strip-line'}, svg);
    const handle = el('rect', {y: (height - axis) / 2 - 12, width: 10, height: 24, rx: 3,
      fill: '#222', class: 'lens-strip-handle'}, svg);
    const value = el('text', {y: d.font, 'font-size': d.font, fill: '#222',
      'font-weight': 600}, svg);
    const place = (t) => {
      const px = x(t);
      line.setAttribute('x1', px); line.setAttribute('x2', px);
      handle.setAttribute('x', px - 5);
      value.setAttribute('x', px + (px > width - 90 ? -6 : 6));
      value.setAttribute('text-anchor', px > width - 90 ? 'end' : 'start');
      value.textContent = Number(t.toPrecision(4)).toString();
      svg.setAttribute('aria-valuenow', t);
    };
    place(Math.min(Math.max(d.threshold, d.low), d.high));
    let last = 0, pending = null, timer = null;
    const send = (t, now) => {
      pending = null; last = now;
      // The value the app has already: sending it again asks for a rerun that carries every
      // other widget's value as the browser last had it, and the slider's, still the one from
      // before the drag, would put the threshold back there (its change, not the line's).
      if (t === root.__sent) return;
      root.__sent = t;
      setStateValue('threshold', t);
    };
    const at = (event) => {
      const box = svg.getBoundingClientRect();
      let t = inv(event.clientX - box.left);
      t = Math.min(Math.max(t, d.low), d.high);
      if (d.step > 0) t = Math.round((t - d.low) / d.step) * d.step + d.low;
      return Number(t.toPrecision(12));
    };
    const move = (event) => {
      const t = at(event);
      place(t);
      const now = performance.now();
      if (now - last >= d.throttle) send(t, now);
      else {
        pending = t;
        clearTimeout(timer);
        timer = setTimeout(() => pending !== null && send(pending, performance.now()),
          d.throttle - (now - last));
      }
    };
    svg.addEventListener('pointerdown', (event) => {
      root.__dragging = true;
      svg.setPointerCapture(event.pointerId);
      move(event);
    });
    svg.addEventListener('pointermove', (event) => { if (root.__dragging) move(event); });
    const end = (event) => {
      if (!root.__dragging) return;
      root.__dragging = false;
      clearTimeout(timer);
      const t = at(event);
      place(t);
      send(t, performance.now());
    };
    svg.addEventListener('pointerup', end);
    svg.addEventListener('pointercancel', end);
    // The keyboard moves the cut too (a step, ten with Shift), as a slider's keys do.
    svg.addEventListener('keydown', (event) => {
      const delta = {ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1}[event.key];
      if (!delta) return;
      event.preventDefault();
      const size = (d.step > 0 ? d.step : (d.high - d.low) / 100) * (event.shiftKey ? 10 : 1);
      let t = Number(svg.getAttribute('aria-valuenow')) + delta * size;
      t = Number(Math.min(Math.max(t, d.low), d.high).toPrecision(12));
      place(t);
      send(t, performance.now());
    });
    if (focused) svg.focus();
  };
  draw();
  if (!root.__observer) {
    root.__observer = new ResizeObserver(() => { if (!root.__dragging) draw(); });
    root.__observer.observe(root);
  }
}
"""

_CSS = """
.lens-strip { width: 100%; }
.lens-strip-svg { display: block; cursor: ew-resize; touch-action: none; user-select: none; }
.lens-strip-svg:focus { outline: none; }
"""

_renderer = None


def _component():
    global _renderer
    if _renderer is None:
        _renderer = st.components.v2.component("metrics_lens.threshold_drag", js=_JS, css=_CSS)
    return _renderer


def _row(
    name: str, scores: np.ndarray, amounts: np.ndarray, low: float, high: float, color: str,
    dots: bool,
) -> dict:  # fmt: skip
    if dots:  # one dot a row: each distinct score as often as rows have it
        return {"name": name, "color": color,
                "dots": np.repeat(scores, amounts.astype(np.int64)).tolist()}  # fmt: skip
    # In units of the range's largest end when the range is wider than a float holds (scores
    # near ±1.8e308): numpy refuses to cut it into bins ("Too many bins for data range").
    unit = max(abs(low), abs(high)) if not np.isfinite(high - low) else 1.0
    counts, edges = np.histogram(
        scores / unit, bins=BINS, range=(low / unit, high / unit), weights=amounts
    )
    edges = edges * unit
    return {"name": name, "color": color, "counts": counts.tolist(), "edges": edges.tolist()}


def nice_ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round tick values within [low, high], at most ``most`` + 1 of them, on a step of 1, 2 or
    5 times a power of ten (0, 0.2, ..., 1 for probabilities)."""
    span = float(high) - float(low)
    if not np.isfinite(span) or span <= 0:
        return [float(low)]
    raw = span / most
    power = 10.0 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = np.ceil(low / step) * step
    ticks = np.arange(first, high + step * 1e-9, step)
    return [float(round(t, 12)) + 0.0 for t in ticks]  # (+ 0.0: no -0)


def strip_data(
    scores: np.ndarray,
    positives: np.ndarray,
    negatives: np.ndarray,
    *,
    low: float,
    high: float,
    step: float,
    threshold: float,
    positive_name: str,
    negative_name: str,
    whole: bool = True,
    height: int = 130,
    font: float = 12,
) -> dict:
    """What the component draws, from each distinct score and how many positive and negative
    rows (or how much of their weight) have it, as the Threshold page's counts hold them (so a
    server table's per-score state draws as well as rows do): one dot a row up to
    ``DOTS_UP_TO`` rows of whole counts, else a histogram of ``BINS`` bins over [low, high]."""
    scores = np.asarray(scores, dtype=np.float64)
    positives = np.asarray(positives, dtype=np.float64)
    negatives = np.asarray(negatives, dtype=np.float64)
    finite = np.isfinite(scores)
    scores = np.clip(scores[finite], low, high)
    positives, negatives = positives[finite], negatives[finite]
    dots = whole and positives.sum() + negatives.sum() <= DOTS_UP_TO
    longest = max(len(positive_name), len(negative_name))  # the class names' gutter
    rows = [
        _row(positive_name, scores, positives, low, high, COLORS["pos"], dots),
        _row(negative_name, scores, negatives, low, high, COLORS["neg"], dots),
    ]
    return {
        "rows": rows,
        "low": float(low),
        "high": float(high),
        "step": float(step),
        "threshold": float(threshold),
        "height": int(height),
        "throttle": THROTTLE_MS,
        "ticks": nice_ticks(low, high),
        "font": float(font),
        "gutter": int(min(10 * font, 16 + 0.6 * font * longest)),
    }


def dragged_value(state: object) -> tuple[float | None, str | None]:
    """(the threshold the line sent, None) or (None, the sentence why it cannot be one).

    The script only ever sends a finite number within the strip's range, but the component's
    value comes from the browser, and a hostile client can send anything: a text, NaN (as
    JSON's null or a string), an infinity, an integer past a float's range, a list. None of
    them may raise in the callback; the page says what arrived and keeps its threshold."""
    if state is None:
        return None, None
    if not isinstance(state, Mapping):
        return None, "The threshold line sent a value that is not its state: the threshold stays."
    value = state.get("threshold")
    if value is None:
        return None, None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, (
            f"The threshold line sent a {type(value).__name__}, not a number: the threshold "
            "stays where it was. Drag the line or use the slider."
        )
    try:
        number = float(value)
    except OverflowError:  # an int past a float's range
        number = math.inf
    if not math.isfinite(number):
        return None, (
            f"The threshold line sent {number!r}, not a finite number: the threshold stays "
            "where it was. Drag the line or use the slider."
        )
    return number, None


def _dragged(model: str, low: float, high: float) -> None:
    """The line was moved: its value becomes the model's threshold (clamped to the slider's
    range), as a move of the slider would; a value that is no number is said, not taken."""
    value, refused = dragged_value(st.session_state.get(KEY))
    if refused:
        st.session_state[NOTICE] = refused
    if value is None:
        return
    st.session_state[thresholds.DRAGGED] = True
    thresholds.set_clamped(model, low, high, value)


def class_strip(counts, *, model: str, low: float, high: float, step: float, threshold: float,
                positive_name: str, negative_name: str, whole: bool = True,
                height: int = 130, font: float = 12) -> None:  # fmt: skip
    """Draw the strip with its draggable threshold line in the current container, from the
    page's threshold counts (distinct scores, descending, with cumulative positives and
    negatives: ``tps``, ``fps``)."""
    data = strip_data(
        counts.thresholds, np.diff(counts.tps, prepend=0), np.diff(counts.fps, prepend=0),
        low=low, high=high, step=step, threshold=threshold, positive_name=positive_name,
        negative_name=negative_name, whole=whole, height=height, font=font,
    )  # fmt: skip
    if refused := st.session_state.pop(NOTICE, None):
        st.warning(refused, icon=":material/warning:")
    _component()(
        key=KEY,
        data=data,
        height=height,
        on_threshold_change=functools.partial(_dragged, model, low, high),
    )
