"""Where a long ``report`` or ``check`` run is, on stderr.

In a terminal, one line redrawn by tqdm: the command, the steps done of all, the time so far and
the step under way (``check: 2/6 [00:41], auc · country = DE``). A thread redraws it every half
second, so the clock moves during one long step (a grouped bootstrap of millions of rows), and
the line is cleared at the end. Nothing is written on a pipe or with ``--json``, so logs and
JSON readers see only the result; ``--verbose`` asks for one plain line per step instead,
wherever stderr goes (a CI log).
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import threading
import time
from collections.abc import Iterator

__all__ = ["Steps"]

REDRAW = 0.5  # seconds between redraws of the terminal line


class Steps:
    """The steps of one command run, shown as the module says.

    ``mode`` is ``"auto"`` (a bar when stderr is a terminal, else nothing), ``"lines"``
    (``--verbose``) or ``"off"`` (``--json``). With ``more``, ``total`` counts only the steps
    known so far (reading the table) and more come with :meth:`add`: until then the count
    shows ``1/?``, so the run counts one way from its first line to its last (``1/?``,
    ``2/3``, ``3/3``), never ``1/1`` and then ``2/3``.
    """

    def __init__(
        self, command: str, total: int = 0, *, mode: str = "auto", stream=None, more=False
    ):
        self.command = command
        self.stream = stream or sys.stderr
        if mode == "auto":
            mode = "bar" if _is_terminal(self.stream) else "off"
        self.mode = mode
        self.total = total
        self.known = not more  # the total is final (False: more steps are to be announced)
        self.done = 0
        self.started = time.monotonic()
        self._bar = None
        self._stop = threading.Event()
        if mode == "bar":
            from tqdm import tqdm

            size = shutil.get_terminal_size((100, 24))

            self._bar = tqdm(
                total=(total or None) if self.known else None,
                desc=command,
                file=self.stream,
                leave=False,
                # the terminal's size; one that reports none (a new pty: 0 x 0) gets 100 x 24,
                # where tqdm's own measure would hide the line below row 0
                ncols=size.columns,
                nrows=size.lines,
                bar_format="{desc}: {n_fmt}/{total_fmt} [{elapsed}]{postfix}",
            )
            threading.Thread(target=self._redraw, daemon=True).start()

    def add(self, n: int) -> None:
        """``n`` more steps than announced (known once the table is read)."""
        self.total += n
        self.known = True
        if self._bar is not None:
            self._bar.total = self.total
            self._bar.refresh()

    @contextlib.contextmanager
    def step(self, text: str) -> Iterator[None]:
        """One step: shown while it runs, counted when it ends."""
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=True)
        elif self.mode == "lines":
            elapsed = time.monotonic() - self.started
            total = self.total if self.known else "?"
            of = f"{self.done + 1}/{total}" if self.total else f"{self.done + 1}"
            print(f"{self.command}: {of} [{elapsed:.1f} s] {text}", file=self.stream, flush=True)
        yield
        self.done += 1
        if self._bar is not None:
            self._bar.update(1)

    def close(self) -> None:
        self._stop.set()
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> Steps:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _redraw(self) -> None:
        while not self._stop.wait(REDRAW):
            self._bar.refresh()


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed, or not a file
        return False
