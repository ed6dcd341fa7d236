"""The dashboard from a notebook: ``metrics_lens.show(df)``.

One call starts the dashboard's server in the background, on a free port, with the DataFrame
loaded exactly as ``metrics-lens app FILE`` loads a file: as rows when it fits the memory
budget, through the engine otherwise. It returns a :class:`Dashboard` that Jupyter shows as the
app in an output cell (an IFrame, with a link to open it in a tab); anywhere else it prints as
its address. A kernel holds one dashboard: calling :func:`show` again with another frame
replaces it on the same port, so a re-run cell (or an IFrame reloaded) shows the new data.
``.stop()``, the kernel's exit and the kernel being killed all end the server.
"""

from __future__ import annotations

import atexit
import html
import shutil
import tempfile
from pathlib import Path

__all__ = ["Dashboard", "show"]

_current: Dashboard | None = None


class Dashboard:
    """A running dashboard started by :func:`show`.

    Attributes
    ----------
    url : str
        The address a browser opens.
    data_file : pathlib.Path
        The Parquet file the server reads (the frame as it was when ``show`` was called).
    """

    def __init__(self, started, data_file: Path, height: int, name: str):
        self._started = started
        self.url: str = started.url
        self.data_file = data_file
        self.height = height
        self.name = name

    @property
    def port(self) -> int:
        return int(self._started.base.rsplit(":", 1)[1])

    @property
    def pid(self) -> int:
        return self._started.proc.pid

    def running(self) -> bool:
        """Whether the server process is still alive."""
        return self._started.running()

    def stop(self) -> None:
        """End the server and remove its files (safe to call twice)."""
        global _current
        self._started.stop()
        if _current is self:
            _current = None

    def __repr__(self) -> str:
        state = "running" if self.running() else "stopped"
        return f"Metrics Lens dashboard of {self.name} ({state}): {self.url}"

    def _repr_html_(self) -> str:
        if not self.running():
            return f"<p>The Metrics Lens dashboard of {html.escape(self.name)} was stopped.</p>"
        url = html.escape(self.url, quote=True)
        return (
            f'<iframe src="{url}" width="100%" height="{int(self.height)}" '
            f'style="border: 1px solid #ddd; border-radius: 4px;" '
            f'title="Metrics Lens: {html.escape(self.name, quote=True)}"></iframe>'
            f'<p style="font-size: 0.85em;">Metrics Lens at <a href="{url}" target="_blank">'
            f"{url}</a> (<code>.stop()</code> ends it).</p>"
        )


def show(
    data,
    *,
    label: str | None = None,
    score: str | list[str] | tuple[str, ...] | None = None,
    group: str | None = None,
    weight: str | None = None,
    pos_label: str | None = None,
    name: str = "DataFrame",
    port: int | None = None,
    host: str = "127.0.0.1",
    height: int = 800,
    timeout: float = 120,
) -> Dashboard:
    """Start the dashboard on a predictions table and show it in the notebook.

    Parameters
    ----------
    data : pandas.DataFrame, or a path to a CSV or Parquet file
        One row per example: a label and one score column per model (every layout the
        dashboard reads: binary, grouped, weighted, multi-class, multi-label, graded).
    label, score, group, weight, pos_label : optional
        Column roles, as :func:`metrics_lens.report_html` takes them; the ones not given are
        guessed as the dashboard guesses an upload's.
    name : str, default "DataFrame"
        The dataset's name in the dashboard.
    port : int, optional
        The server's port; default: the previous dashboard's, else the first free one from 8501.
    host : str, default "127.0.0.1"
        The address it listens on (``"0.0.0.0"`` to reach it from another machine).
    height : int, default 800
        The IFrame's height in pixels.
    timeout : float, default 120
        Seconds to wait for the server to answer.

    Returns
    -------
    Dashboard
        Shown inline by Jupyter; ``.url``, ``.stop()``.

    Raises
    ------
    metrics_lens.inputs.BadInput
        With one sentence saying what is wrong (a missing column, a one-class label, ...), before
        any server is started; the previous dashboard keeps running.
    """
    global _current
    import pandas as pd

    from metrics_lens.dashboard import free_port, start, wait_healthy
    from metrics_lens.inputs import BadInput, load_frame
    from metrics_lens.usable import usable_rows
    from ui.compute import budget
    from ui.tables.loading import LoadError, mapping_with

    if not isinstance(name, str) or not name.strip():
        raise BadInput("name must be a non-empty text, the dataset's name in the dashboard.")
    if isinstance(data, pd.DataFrame):
        frame = data
    elif isinstance(data, (str, Path)):
        frame, _ = load_frame(data)
    else:
        raise BadInput(
            f"show takes a pandas DataFrame or a path to a CSV or Parquet file, not "
            f"{type(data).__name__}."
        )
    scores = [score] if isinstance(score, str) else list(score or ())
    roles = {"label": label, "scores": scores, "group": group, "weight": weight,
             "pos_label": pos_label}  # fmt: skip
    try:
        usable_rows(frame, mapping_with(frame, **roles), name)
    except LoadError as exc:
        raise BadInput(str(exc)) from None

    frame_dir = Path(tempfile.mkdtemp(prefix="metrics-lens-show-"))
    data_file = frame_dir / (_file_stem(name) + ".parquet")
    try:
        frame.to_parquet(data_file, index=False)
    except (ValueError, TypeError, ImportError) as exc:  # pyarrow's errors are ValueErrors too
        shutil.rmtree(frame_dir, ignore_errors=True)
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BadInput(
            f"The frame cannot be stored as Parquet for the server ({first}); give each column "
            f"one type (numbers or text), e.g. with df.astype(...)."
        ) from None
    rows = data_file.stat().st_size <= budget.rows_limit() and _fits(frame)

    previous, _current = _current, None
    if previous is not None:
        port = port or previous.port
        previous.stop()
    port = port or free_port(8501, host)
    started = start(
        [data_file],
        port=port,
        host=host,
        rows=rows,
        end_with_parent=True,
        quiet=True,
        label=label,
        scores=scores,
        group=group,
        weight=weight,
        pos_label=pos_label,
    )
    dashboard = Dashboard(started, started.run_dir / "data" / data_file.name, height, name)
    shutil.rmtree(frame_dir, ignore_errors=True)  # the run directory holds its own link
    if not wait_healthy(started.base, started.proc, timeout=timeout):
        log = started.run_dir / "server.log"
        last_words = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        code = started.proc.poll()
        dashboard.stop()
        said = "exited" if code is not None else f"did not answer within {timeout:g} s"
        raise RuntimeError(f"The dashboard's server {said}. Its last words:\n{last_words}")
    _current = dashboard
    return dashboard


def _fits(frame) -> bool:
    """The frame in memory fits the share of the budget a session holds as rows."""
    from ui.compute import budget

    return int(frame.memory_usage(deep=True).sum()) <= budget.rows_limit()


def _file_stem(name: str) -> str:
    """``name`` as a file name the dashboard shows: no path, glob or control characters."""
    keep = "".join("_" if c in '/\\?*[]:"<>|' or not c.isprintable() else c for c in name)
    return keep.strip(". ")[:80] or "DataFrame"


@atexit.register
def _stop_at_exit() -> None:
    if _current is not None:
        _current.stop()
