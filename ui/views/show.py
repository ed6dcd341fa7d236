"""Showing a plotly figure on a page: one place for the chart toolbar and download settings.

Every page calls :func:`chart` instead of ``st.plotly_chart`` so that all charts behave alike:
the camera button saves the figure under a meaningful file name in the format picked in the
sidebar (PNG or SVG), and a horizontal legend sits below the plot, where the toolbar (shown on
hover, or on tap on a phone) cannot cover it.
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ui.compute.data import UPLOAD_TTL
from ui.figures import charts
from ui.words.numbers import decimals
from ui.words.safe import file_name, neutralise_csv, safe_figure

charts.use_template()  # after Streamlit's import set its own default

FIGURE_FORMATS = ("png", "svg")

__all__ = [
    "FIGURE_FORMATS",
    "chart",
    "chart_config",
    "csv_download",
    "download_all_button",
    "export_title",
]


def _slug(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return slug[:80] or "chart"


def chart_config(name: str, figure_format: str | None = None) -> dict:
    """The plotly config for a chart saved as ``<name>.<format>``."""
    fmt = figure_format or st.session_state.get("figure_format", "png")
    return {
        "displaylogo": False,
        "modeBarButtonsToRemove": ["lasso2d", "select2d", "autoScale2d"],
        "toImageButtonOptions": {
            "format": fmt if fmt in FIGURE_FORMATS else "png",
            "filename": _slug(name),
            "scale": 2,
        },
    }


def _legend_below(layout, updates: dict) -> None:
    """Move a horizontal legend drawn above the plot to below it (the toolbar covers the top):
    the layout changes go into ``updates``."""
    legend = layout.legend
    if legend.orientation != "h" or legend.y is None or legend.y < 1:
        return
    margin_b = layout.margin.b if layout.margin.b is not None else 40
    updates["legend"] = dict(yref="container", y=0, yanchor="bottom", x=0, xanchor="left")
    updates["margin_b"] = margin_b + 50
    if layout.height:
        updates["height"] = layout.height + 40


PRESENTATION_FONT = 18  # chart text in presentation mode (plotly sets its sizes inline)
# Fonts every browser, renderer and slide program has. Plotly sizes the legend and the margins
# by measuring text on the page; an image export re-draws the SVG where the page's web font
# ('Source Sans', from Streamlit's theme) is not loaded, so the text fell back to a wider font
# and ran out of its measured box ("model_a (AUC 0.889" without its ")").
CHART_FONT = "Arial, 'Liberation Sans', Helvetica, sans-serif"


def finish(fig: go.Figure, presentation: bool) -> go.Figure:
    """The legend below the plot, a font the exported image has too, markers on the axes'
    edges drawn whole (an operating point at recall 1 was cut in half), and in presentation
    mode text readable from the back of the room. Once done, doing it again changes nothing (a
    figure shared between sessions is only read)."""
    # One update_layout for all of it: each call walks plotly's property paths again (a
    # quarter of a chart's build time went to these calls, one per change).
    layout, updates = fig.layout, {}
    _legend_below(layout, updates)
    if layout.title.text and layout.modebar.orientation is None:
        # A figure's own title sits top left, where a horizontal toolbar (top right) ran over
        # it on a narrow chart (Threshold's ROC and PR at 1280 px): a vertical toolbar at the
        # right edge leaves the title line free. The title's font is named: the page's theme
        # gives titles its web font, which the exported image then asked for.
        updates["modebar_orientation"] = "v"
    if layout.title.text and layout.title.font.family is None:
        updates["title_font_family"] = CHART_FONT
    if layout.font.family != CHART_FONT:
        updates["font_family"] = CHART_FONT
        fig.update_traces(cliponaxis=False, selector=lambda t: _draws_markers(t))
    if presentation and layout.font.size != PRESENTATION_FONT:
        # Sizes set on a title, an annotation or a heatmap's text ignore the layout font:
        # grow them by as much as the layout font grows (plotly's default is 12).
        # A small size (tick labels, iso-F1 labels) grows to the mode's size at least.
        charts.scale_chart_text(
            fig, PRESENTATION_FONT / (layout.font.size or 12), floor=PRESENTATION_FONT
        )
        updates["font_size"] = PRESENTATION_FONT
        # Streamlit's chart theme draws tick labels and the legend smaller than the layout
        # font (15.75 px at 18) unless the figure names their size.
        if layout.legend.font.size is None:
            updates["legend_font_size"] = PRESENTATION_FONT
        if layout.legend.title.font.size is None:
            updates["legend_title_font_size"] = PRESENTATION_FONT
        for each in (fig.for_each_xaxis, fig.for_each_yaxis):
            each(_tick_size, selector=lambda axis: axis.tickfont.size is None)
    if updates:
        fig.update_layout(**updates)
    return fig


def _tick_size(axis) -> None:
    axis.tickfont.size = PRESENTATION_FONT


def _draws_markers(trace) -> bool:
    return trace.type == "scatter" and "markers" in (trace.mode or "")


def chart(
    fig: go.Figure, *, key: str, name: str | None = None, title: str | None = None, where=None
) -> None:
    """Show ``fig`` full width; ``name`` (default: the key) names the downloaded image.

    The downloaded image carries a title (the page shows a chart's name as a heading above it,
    which an image leaves behind): the figure's own title, else ``title``, else ``name`` made
    readable (:func:`export_title`), else, in the browser, the heading above the chart. It
    travels in ``layout.meta`` to the page's export script (:func:`download_all_button`)."""
    finish(fig, bool(st.session_state.get("presentation")))
    label(fig, title or (export_title(name) if name else None))
    fig = safe_figure(fig)  # names from the data never act as plotly links or styles
    (where or st).plotly_chart(fig, width="stretch", key=key, config=chart_config(name or key))


_ACRONYMS = {"roc", "pr", "auc", "ap", "ks", "gauc", "prg", "cd", "tpr", "fpr", "f1", "ndcg"}


def export_title(name: str) -> str:
    """A chart's file name made readable for its image's title: ``"roc-curves"`` gives
    ``"ROC curves"``, ``"confusion-matrix-model_a"`` gives ``"Confusion matrix model_a"``."""
    words = [w for w in re.split(r"-+", name.strip()) if w]
    text = " ".join(w.upper() if w.lower() in _ACRONYMS else w for w in words)
    text = re.sub(r"(?i)\bprecision recall\b", lambda m: m.group(0).replace(" ", "-"), text)
    return text[:1].upper() + text[1:]


def label(fig: go.Figure, title: str | None) -> go.Figure:
    """Put ``title`` in ``fig.layout.meta["export_title"]`` for the downloaded image (nothing
    when the figure has a title of its own, or the label is there already: a figure shared
    between sessions, labelled before it was shared, is only read)."""
    if not title or fig.layout.title.text:
        return fig
    meta = fig.layout.meta
    if meta is None:
        fig.update_layout(meta={"export_title": title})
    elif isinstance(meta, dict) and meta.get("export_title") != title:
        fig.update_layout(meta={**meta, "export_title": title})
    return fig  # a list or string meta belongs to the figure's own text templates: left alone


_SCRIPT = Path(__file__).with_name("chart_export.js")

# The zip button (and the CSS that moves chart downloads to a button on touch screens). The
# body never changes, so Streamlit mounts it, and runs its script, once per page load.
_DOWNLOADS_CSS = """
<style>
.ml-zip-button, .ml-chart-download {
  font: inherit; font-size: 0.875rem; color: inherit; background: transparent; cursor: pointer;
  border: 1px solid rgba(128, 128, 128, 0.45); border-radius: 0.5rem; padding: 0.25rem 0.75rem;
}
.ml-zip-button { width: 100%; min-height: 2.5rem; }
.ml-zip-button:hover, .ml-chart-download:hover { border-color: currentColor; }
.ml-zip-button:disabled { opacity: 0.6; cursor: progress; }
.ml-zip-note { display: block; font-size: 0.8rem; opacity: 0.75; margin-top: 0.25rem; }
.ml-chart-download { display: none; margin-top: 0.25rem; }
/* A touch screen has no hover: plotly's toolbar, once tapped, stayed over the top of the chart.
   There the toolbar is hidden and each chart has a download button below it. */
@media (hover: none) {
  .js-plotly-plot .modebar-container { display: none !important; }
  .ml-chart-download { display: inline-block; }
}
</style>
"""


@functools.cache
def _downloads_html() -> str:
    return (
        _DOWNLOADS_CSS
        + '<div class="ml-chart-downloads">'
        + '<button type="button" class="ml-zip-button" title="Every chart of this page, in the '
        + 'format chosen above, titled, in one zip file">Download every chart (zip)</button>'
        + '<span class="ml-zip-note" role="status"></span></div>'
        + f"<script>{_SCRIPT.read_text()}</script>"
    )


def download_all_button() -> None:
    """ "Download every chart (zip)", drawn where it is called (the sidebar, under the format
    choice), and the page script behind every chart download: the camera button's image gets a
    title, the zip holds every chart of the page in the chosen format, and on a touch screen
    each chart has a download button instead of the toolbar. Call it once per run, on every
    page (it does nothing visible on a page without charts but say so when clicked)."""
    st.html(_downloads_html(), unsafe_allow_javascript=True)


def csv_download(
    label: str, table: pd.DataFrame | Callable[[], pd.DataFrame], name: str, *, key: str
) -> None:
    """A download button for ``table`` (or what a callable returns) as CSV, spreadsheet
    formulas neutralised. The CSV is written when the button is clicked, not on every rerun
    (half a second per rerun for the rows behind a cell of a 1M-row table). A callable must
    not be defined in a page: Streamlit keeps it with the session, and a page's function keeps
    the page's globals, its dataset among them, alive."""
    st.download_button(
        label,
        data=functools.partial(_csv_bytes, table),
        file_name=file_name(name),
        mime="text/csv",
        key=key,
        icon=":material/download:",
    )


def _csv_bytes(table: pd.DataFrame | Callable[[], pd.DataFrame]) -> bytes:
    frame = table() if callable(table) else table
    return neutralise_csv(frame).to_csv(index=False).encode()


MAX_ROWS_SHOWN = 1_000
MAX_COLUMNS_SHOWN = 60  # a table shown on every rerun: thousands of columns cost seconds


def rows_behind(frame: pd.DataFrame, positions, what: str, *, key: str) -> None:
    """The table's rows at ``positions`` (0-based): the first 1,000 shown, numbered from 1 as
    in every message, and all of them downloadable as CSV (spreadsheet formulas neutralised).

    A wide table shows its first columns only; the download has them all. The rows are copied
    out (never the whole table kept with the button: an upload the memory budget drops must not
    stay alive in the session's widget state)."""
    positions = np.asarray(positions)
    wide = frame.shape[1] > MAX_COLUMNS_SHOWN
    st.caption(
        f"{positions.size:,} rows {what}"
        + (f"; the first {MAX_ROWS_SHOWN:,} are shown" if positions.size > MAX_ROWS_SHOWN else "")
        + (
            f"; the first {MAX_COLUMNS_SHOWN} of {frame.shape[1]:,} columns are shown (the "
            "download has them all)."
            if wide
            else "."
        )
    )
    if wide:  # take the shown columns first: a wide table's rows cost per column
        shown = _numbered(frame.iloc[:, :MAX_COLUMNS_SHOWN], positions[:MAX_ROWS_SHOWN])
        # A weak reference: the session's widget state must not keep the table alive.
        table = functools.partial(_rows_of, weakref.ref(frame), positions)
    else:
        rows = _numbered(frame, positions)
        shown, table = rows.head(MAX_ROWS_SHOWN), functools.partial(pd.DataFrame.reset_index, rows)
    st.dataframe(shown, width="stretch", key=f"{key}_table")
    csv_download(
        f"Download these {positions.size:,} rows (CSV)", table, f"rows_{what}.csv",
        key=f"{key}_download",
    )  # fmt: skip


def _rows_of(frame_ref, positions: np.ndarray) -> pd.DataFrame:
    frame = frame_ref()
    if frame is None:
        return pd.DataFrame({"note": ["The table is no longer in memory: upload it again."]})
    return _numbered(frame, positions).reset_index()


def _numbered(frame: pd.DataFrame, positions: np.ndarray) -> pd.DataFrame:
    rows = frame.iloc[positions]
    return rows.set_axis(rows.index + 1).rename_axis("row")


@st.cache_resource(max_entries=64, ttl=UPLOAD_TTL, show_spinner=False)
def _auc_text(value: float, digits: int) -> str:
    """An AUC for a title: undefined when the labels hold one class only."""
    return decimals(value, digits) if np.isfinite(value) else "undefined (one class)"


def threshold_figures(
    key: tuple,
    model: str,
    threshold: float,
    normalize: str | None,
    beta: float,
    positive_name: str,
    negative_name: str,
    presentation: bool,
    _counts,
    _areas: dict,
) -> dict:
    """The Threshold page's four figures, shared by every session at the same threshold (a
    class opening the page at once builds them once). Finished here, so that showing them
    changes nothing: other sessions read the same objects. (Defined here, not in the page: a
    page's function keeps the page's globals, its dataset among them, alive.)"""
    curve = [charts.ModelCurve(model, _counts, _areas["auc"], _areas["ap"])]
    n = float(_counts.n_pos + _counts.n_neg)
    figures = {
        "matrix": charts.confusion_matrix_figure(
            _counts.at(threshold),
            normalize={"by actual": "true", "by predicted": "pred"}.get(normalize or ""),
            positive_name=positive_name, negative_name=negative_name, height=245,
        ),
        # heights for 1280x720: the strip above and these whole on the first screen
        "roc": charts.roc_figure(curve, threshold=threshold, height=275).update_layout(
            showlegend=False, title=dict(text=f"ROC · AUC {_auc_text(_areas['auc'], 3)}", x=0)
        ),
        "pr": charts.pr_figure(
            curve, prevalence=_counts.n_pos / n if n else 0.0, threshold=threshold, height=275
        ).update_layout(showlegend=False, title=dict(text=f"PR · AP {_areas['ap']:.3f}", x=0)),
        "rates": charts.rates_vs_threshold_figure(_counts, threshold=threshold, beta=beta),
    }  # fmt: skip
    label(figures["matrix"], export_title(f"confusion-matrix-{model}"))  # the page's names
    label(figures["rates"], export_title(f"rates-vs-threshold-{model}"))
    for fig in figures.values():
        finish(fig, presentation)
    return figures
