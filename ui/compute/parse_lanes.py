"""The parse lanes: large uploads are parsed one at a time, small ones a few at a time beside
them, so a small upload never waits behind a large one.

Callers hand :func:`parsing` to the reader (``read_table(..., lane=parsing)``), which enters it
once it knows the size of the table it is about to parse.
"""

from __future__ import annotations

import contextlib
import threading
import time

from ui.compute.budget import _LOGGER, MB

__all__ = ["SMALL_PARSE_BYTES", "parsing"]

# Parses whose table takes at most this many bytes share ``SMALL_LANES`` slots; larger ones go
# one at a time through their own lane, so a small upload never waits behind a large one.
SMALL_PARSE_BYTES = 16 * MB
SMALL_LANES = 4
_small_lane = threading.BoundedSemaphore(SMALL_LANES)
_large_lane = threading.Lock()


@contextlib.contextmanager
def parsing(nbytes: int = SMALL_PARSE_BYTES + 1):
    """Enter around a parse whose table takes about ``nbytes`` (the loader knows it once the
    file is decompressed or its Parquet metadata read): large parses one at a time (a parse
    briefly takes a few times the table's size, and a class uploading large files at once
    would otherwise take all of those together), small ones a few at a time beside them. A
    student whose upload is a few kB waits for no one's bomb (issue 32: a 16 KB CSV waited
    84 s behind one)."""
    large = nbytes > SMALL_PARSE_BYTES
    with _large_lane if large else _small_lane:
        if not large:
            yield
            return
        # An operator (and the hostile-class bench) sees each large parse begin and end.
        _LOGGER.info("budget: parsing a large table (%.0f MB), one at a time", nbytes / MB)
        started = time.monotonic()
        try:
            yield
        finally:
            _LOGGER.info(
                "budget: parse of the large table (%.0f MB) ended after %.1f s",
                nbytes / MB,
                time.monotonic() - started,
            )
