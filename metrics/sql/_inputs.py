"""What reaches an engine from outside: settings, file lists and text in SQL, checked once here.

- :func:`memory_limit`: a number and a unit, within bounds, or a sentence saying what to give.
- :func:`resolve_files`: the exact files a source names, and :class:`Sources`, the paths an
  engine can read without globbing them again (DuckDB and Spark both expand ``*``, ``?`` and
  ``[`` even in a literal path: ``.../r[1]/a.csv`` reads ``.../r1/a.csv``).
- :func:`literal`: a quoted SQL string literal in either dialect (Spark reads a backslash in a
  string as an escape, DuckDB does not); identifiers are quoted by
  :meth:`metrics.sql._queries.Dialect.q`.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

GLOB_CHARS = "*?["

# Units DuckDB accepts for memory_limit, and their bytes (DuckDB: KB = 1000, KiB = 1024).
_UNITS = {
    "B": 1,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "TB": 1000**4,
    "KIB": 1024,
    "MIB": 1024**2,
    "GIB": 1024**3,
    "TIB": 1024**4,
}
_SPELLING = {u.upper(): u for u in ("B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB")}
# ASCII digits only: Python's \d also takes "１GB" (full-width), which DuckDB refuses.
_MEMORY = re.compile(r"^\s*([0-9]{1,15}(?:\.[0-9]{1,6})?)\s*([A-Za-z]{1,3})\s*$", re.ASCII)
MIN_MEMORY = 16 * 1000**2  # below it DuckDB fails on its first 2 MiB block of a real query
MAX_MEMORY = 1000**5  # 1 PB: past any machine, and far below where DuckDB's parser overflows


class SQLInputError(ValueError):
    """The source, its columns, its labels or a setting cannot give the metrics asked for."""


def memory_bytes(value: str) -> float:
    """The bytes of a memory limit checked by :func:`memory_limit` (``"1.5GiB"``)."""
    m = _MEMORY.match(memory_limit(value))
    return float(m.group(1)) * _UNITS[_SPELLING[m.group(2).upper()].upper()]


def memory_limit(value: object, *, what: str = "memory limit") -> str:
    """``value`` as DuckDB's memory limit (``"2GB"``, ``"1.5 GiB"``): a number and a unit among
    B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (any case), from 16MB to 1000TB.

    Returns the canonical text (``"1.5GiB"``), which only ever holds digits, a dot and a unit.

    Raises
    ------
    SQLInputError
        Anything else, with a sentence saying what to give.
    """
    text = str(value)
    shown = text if len(text) <= 40 else text[:40] + "..."
    m = _MEMORY.match(text)
    unit = m and _SPELLING.get(m.group(2).upper())
    if not m or unit is None:
        raise SQLInputError(
            f"the {what} {shown!r} is not a size: give a number and a unit, such as 2GB, "
            "512MB or 1.5GiB (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)."
        )
    number = m.group(1)
    size = float(number) * _UNITS[unit.upper()]
    if size < MIN_MEMORY:
        raise SQLInputError(
            f"the {what} {shown!r} is too small: DuckDB needs at least 16MB (2GB is a good start)."
        )
    if size > MAX_MEMORY:
        raise SQLInputError(
            f"the {what} {shown!r} is larger than any machine (at most 1000TB): give the memory "
            "DuckDB may use, such as 2GB; it spills to disk beyond it."
        )
    return f"{number}{unit}"


def literal(text: str, dialect: str = "duckdb") -> str:
    """``text`` as a SQL string literal of ``dialect`` ("duckdb" or "spark").

    DuckDB follows standard SQL (a quote doubled, backslashes plain). Spark's parser treats a
    backslash as an escape and joins adjacent literals (``'a''b'`` is ``ab``), so there a
    backslash and a quote are each escaped by a backslash.
    """
    text = str(text)
    if "\x00" in text:
        raise SQLInputError("a NUL character cannot appear in a SQL value.")
    if dialect == "spark":
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "'" + text.replace("'", "''") + "'"


def resolve_files(source: str | os.PathLike | Sequence[str | os.PathLike]) -> list[str]:
    """The files ``source`` names, each checked to be a readable file.

    A list (or tuple) names its files exactly: nothing in it is expanded (they are read in sorted
    order, as a glob's matches are, so ties in row order do not depend on how the list was
    given). A single path is taken
    literally when such a file exists, and otherwise expanded as a glob by Python (``*``, ``?``,
    ``[...]``; sorted), once: the engine then reads exactly that list.
    """
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        _no_nul(text)
        if any(c in text for c in GLOB_CHARS) and not os.path.isfile(text):
            files = sorted(glob.glob(text))
            if not files:
                raise SQLInputError(f"no file matches {text}.")
        else:
            files = [text]
    else:
        files = sorted({os.fspath(f) for f in source})
        if not files:
            raise SQLInputError("give at least one file to read.")
    for f in files:
        _no_nul(f)
        if not Path(f).is_file():
            raise SQLInputError(f"{f} does not exist or is not a file.")
        if not os.access(f, os.R_OK):
            raise SQLInputError(f"{f} cannot be read (permissions).")
        if os.path.getsize(f) == 0:
            raise SQLInputError(
                f"{f} is empty (0 bytes): it has no header and no rows; point at the file "
                "that holds the table."
            )
    return files


def describe(source: str | os.PathLike | Sequence[str | os.PathLike]) -> str:
    """A short name of a source for messages and summaries."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    files = [os.fspath(f) for f in source]
    if len(files) == 1:
        return files[0]
    return f"{files[0]} and {len(files) - 1} more file{'s' if len(files) > 2 else ''}"


def _no_nul(text: str) -> None:
    if "\x00" in text:
        shown = text.replace("\x00", "\\0")
        raise SQLInputError(f"the path {shown!r} holds a NUL character; remove it.")


# Paths an engine reads as they are: letters, digits and a few marks. Not a glob character
# (DuckDB: * ? [; Hadoop: also { } \), a URI's ":", "#" or "%", "~", a space or a quote.
_PLAIN = re.compile(r"^[A-Za-z0-9_./+=,@-]+$")


class Sources:
    """Paths an engine reads as exactly ``files``, in their order.

    Plain paths pass as they are. When any path holds a character an engine would expand (a
    glob character, a brace, a backslash, a colon, ``~``...), every file is reached through a
    private temporary directory of links named ``00000.<suffix>``, ``00001.<suffix>``..., to the
    files' resolved paths: the engine sees nothing to expand, and the order (which breaks ties
    in :func:`metrics.sql.ranking_summary`) is kept. The directory goes with :meth:`close`.
    """

    def __init__(self, files: Sequence[str]) -> None:
        self.files = list(files)
        self._tmp: str | None = None
        if all(_PLAIN.match(os.path.abspath(f)) for f in self.files):
            self.paths = [os.path.abspath(f) for f in self.files]
            return
        self._tmp = tempfile.mkdtemp(prefix="metrics-lens-files-")
        self.paths = []
        for i, f in enumerate(self.files):
            suffix = "".join(c for c in Path(f).suffix if c.isalnum() or c == ".")
            link = os.path.join(self._tmp, f"{i:05d}{suffix}")
            os.symlink(os.path.realpath(f), link)
            self.paths.append(link)

    @property
    def linked(self) -> bool:
        return self._tmp is not None

    def close(self) -> None:
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __del__(self) -> None:
        self.close()
