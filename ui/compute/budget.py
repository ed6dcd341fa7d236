"""A memory budget for user data, shared by every session of one server.

One server, a room full of students: each upload (a 1M-row, 3-model table is about 32 MB as
numbers, more as parsed text) and the arrays derived from it would otherwise stay in memory
for as long as its browser tab, and a cache would keep results for tables nobody looks at.

**Setting it.** ``METRICS_LENS_BUDGET_MB`` (environment variable, megabytes, default ``1024``:
1 GB) is the memory user data may take. A quarter of it bounds ``st.cache_data`` (Streamlit's
process-wide LRU limit ``server.maxCacheDataSize``; set that option yourself to choose another
size), the rest bounds the uploads: e.g. ``METRICS_LENS_BUDGET_MB=2048 streamlit run app.py``.

**How it is kept.** :data:`REGISTRY` owns every session's uploads (the parsed table and the
arrays prepared from it); ``st.session_state`` holds only the dict the registry hands out.
Each entry has its size in bytes (pandas ``memory_usage(deep=True)``, numpy ``nbytes``) and the
time its session last ran, refreshed by :func:`touch` on every rerun. When the uploads exceed
their share, the least recently used sessions' uploads are dropped (the session that is
uploading is never the one dropped); on their next run those sessions show :data:`MESSAGE`
and the sample dataset, and every other session keeps its view. A session's uploads are
released when its browser disconnects: a background thread (and every :func:`touch`) sweeps
the entries of sessions that Streamlit's session manager no longer lists as active, and shuts
those sessions down (Streamlit would otherwise keep their state two minutes for a reconnect).

Counted bytes are not all a server holds (parsing, caches' copies, threads' heaps), so the
registry also watches the process's resident memory: when a new upload is registered while
RSS is above the budget plus ``HEADROOM_MB`` (400 MB: Python, Streamlit and the libraries),
it drops older uploads by the excess too. Freed memory goes back to the OS: after a drop the
registry runs ``gc.collect()`` and glibc's ``malloc_trim``, and at import this module caps
glibc's heaps (4 arenas, arrays over 1 MB in their own mappings) so that a freed table does not
stay in a thread's heap. Drops and releases are logged at INFO level ("budget: ...").
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

ENV_VAR = "METRICS_LENS_BUDGET_MB"
DEFAULT_MB = 1024
CACHE_SHARE = 0.25  # of the budget, for st.cache_data (unless server.maxCacheDataSize is set)
SWEEP_SECONDS = 5.0
# A browser whose connection drops for a moment (a busy server misses a heartbeat, a laptop
# changes networks) comes back to the same session: its upload is released only after it has
# been away this long. ``METRICS_LENS_RECONNECT_SECONDS`` sets it.
RECONNECT_ENV = "METRICS_LENS_RECONNECT_SECONDS"
DEFAULT_RECONNECT_SECONDS = 60.0
MESSAGE = (
    "The server ran short of memory for uploads and dropped yours (the least recently used "
    "on this server); upload it again."
)
MB = 1024 * 1024
HEADROOM_MB = 400

try:  # Streamlit's console handler and log level (logger.level, "info" by default)
    from streamlit.logger import get_logger as _get_logger

    _LOGGER = _get_logger("metrics_lens.budget")
except ImportError:
    _LOGGER = logging.getLogger("metrics_lens.budget")

__all__ = [
    "MESSAGE",
    "REGISTRY",
    "Registry",
    "budget_bytes",
    "collect_garbage",
    "decompressed_limit",
    "freeze_imports",
    "make_room",
    "make_room_for_engine",
    "make_room_in_run",
    "nbytes",
    "session_key",
    "session_store",
    "set_size",
    "touch",
    "upload_cap_bytes",
]


def budget_bytes() -> int:
    """The whole budget for user data, from ``METRICS_LENS_BUDGET_MB`` (default 1 GB)."""
    raw = os.environ.get(ENV_VAR, "").strip()
    try:
        mb = float(raw) if raw else DEFAULT_MB
    except ValueError:
        mb = DEFAULT_MB
    return int(max(mb, 1) * MB)


def nbytes(obj: object, _seen: set[int] | None = None) -> int:
    """Bytes held by a table, an array, or a (nested) dataclass, dict, list or tuple of them."""
    seen = set() if _seen is None else _seen
    if obj is None or id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, pd.DataFrame):
        return int(obj.memory_usage(deep=True, index=True).sum())
    if isinstance(obj, pd.Series):
        return int(obj.memory_usage(deep=True, index=True))
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes) if obj.dtype != object else int(obj.nbytes) * 8
    if isinstance(obj, _Store):  # a session's uploads, which another session may empty now
        return sum(nbytes(v, seen) for v in obj.snapshot())
    if isinstance(obj, dict):
        return sum(nbytes(v, seen) for v in list(obj.values()))
    if isinstance(obj, (list, tuple)):
        return sum(nbytes(v, seen) for v in obj)
    if hasattr(obj, "__dataclass_fields__"):
        return sum(nbytes(getattr(obj, f, None), seen) for f in obj.__dataclass_fields__)
    return 0


def _libc():
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to tune
        return None


def _tune_allocator() -> None:
    """Fewer, trimmable heaps: with one heap per script thread, a table freed in one of them
    stays in the process's RSS (the symptom in issue 13: memory that never came back)."""
    libc = _libc()
    if libc is None or os.environ.get("METRICS_LENS_MALLOC_TUNING", "1") == "0":
        return
    with contextlib.suppress(AttributeError):
        libc.mallopt(-8, 4)  # M_ARENA_MAX
        libc.mallopt(-3, 1024 * 1024)  # M_MMAP_THRESHOLD: fixed, so large arrays are unmapped
        libc.mallopt(-1, 64 * 1024 * 1024)  # M_TRIM_THRESHOLD


_tune_allocator()


def process_rss() -> int:
    """This process's resident memory in bytes (0 where /proc is missing)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


GROWTH_MB = 32  # a run collects when the process grew this much since the last collection
_collected_rss = 0
_collect_lock = threading.Lock()


def freeze_imports() -> None:
    """Leave every object alive now out of all later collections (``gc.freeze``).

    Called once, when the frame has been imported and before any session has data: what
    exists then is modules, classes and functions, which live as long as the process. A full
    collection walked them all, about 45 ms of every run that collects (an upload's every
    run); frozen, it walks only what sessions made since. Frozen objects are still freed by
    their reference counts; only a cycle among them would never be collected.
    """
    gc.collect()
    gc.freeze()


def _release_memory() -> None:
    """Collect cycles and hand freed heap pages back to the OS (glibc keeps them otherwise)."""
    global _collected_rss
    gc.collect()
    libc = _libc()
    if libc is not None:
        with contextlib.suppress(AttributeError):
            libc.malloc_trim(0)
    _collected_rss = process_rss()


def collect_garbage(*, uploads: bool = True) -> bool:
    """Call at the end of every script run, and at the start of one; True if it collected.

    Streamlit's own full collection after every run is off (``runner.postScriptGC`` in
    ``.streamlit/config.toml``): it walks every object the libraries hold, 0.1 s a run, 45% of
    the server's time under a class of 30 on the sample datasets. Figures and bootstrap
    results do form reference cycles, though, which Python's generational collector reaches
    late: without any full collection, five users on 20k-row uploads took the server from
    200 MB to 640 MB. So a run collects (and trims the heap) whenever the registry holds an
    upload (memory is what uploads run short of, and their runs are long anyway), and
    otherwise when the process grew by ``GROWTH_MB`` (32 MB) since the last collection or its
    memory cannot be read. At the start of a run it collects for uploads only when
    ``uploads`` says the previous run was stopped by a newer one: such a run keeps its frames,
    and their arrays, until its exception has been handled (with 12 students on 1M-row
    uploads, collecting at the ends of runs only peaked at 1,615 MB; at every start as well,
    1,396 MB).
    """
    global _collected_rss
    if uploads and REGISTRY.total_bytes:
        with _collect_lock:
            _release_memory()
        return True
    rss = process_rss()
    if rss and rss < _collected_rss:
        _collected_rss = rss  # memory went back (a drop, a trim): measure growth from here
    if rss and rss < _collected_rss + GROWTH_MB * MB:
        return False
    if not _collect_lock.acquire(blocking=False):
        return False  # another session's run is collecting right now
    try:
        _release_memory()
    finally:
        _collect_lock.release()
    return True


class _Store(dict):
    """A session's uploads. Its own session's thread fills it; other sessions' threads only
    empty it (a drop, a release), always under the registry's lock. :func:`nbytes` reads it
    through :meth:`snapshot`, under the same lock, and remembers how many drops it had seen,
    so that :meth:`Registry.set_size` can tell a size measured before a drop (issue 20: the
    walk over a store that a drop emptied raised "dictionary changed size during iteration")."""

    __slots__ = ("drops", "lock", "measured")

    def __init__(self, lock: threading.RLock) -> None:
        super().__init__()
        self.lock = lock
        self.drops = 0  # times another thread emptied it
        self.measured: int | None = None  # ``drops`` when nbytes last took a snapshot

    def snapshot(self) -> list:
        with self.lock:
            self.measured = self.drops
            return list(self.values())

    def empty_locked(self) -> None:
        """Empty it for a drop or a release (the caller holds the lock)."""
        self.clear()
        self.drops += 1


@dataclass
class _Entry:
    session_id: str
    store: dict
    nbytes: int = 0
    last_used: float = field(default_factory=time.monotonic)
    on_drop: list[Callable[[], None]] = field(default_factory=list)


class Registry:
    """Every session's uploads and their sizes, under one lock; drops the least recently used.

    ``limit`` is a byte count or a callable giving one (read at each check, so a test or an
    operator can change it). With ``rss`` (the process's resident bytes) and ``rss_limit``, a
    registration while RSS is over ``rss_limit`` also drops older uploads by the excess. Keys
    are per session (see :func:`session_key`); ``session_id`` is the Streamlit session the key
    belongs to, which :meth:`sweep` compares with the active ones.
    """

    def __init__(
        self,
        limit: int | Callable[[], int],
        rss: Callable[[], int] | None = None,
        rss_limit: int | Callable[[], int] | None = None,
    ) -> None:
        self._limit = limit
        self._rss, self._rss_limit = rss, rss_limit
        self._lock = threading.RLock()
        self._entries: dict[str, _Entry] = {}
        self._dropped: set[str] = set()
        self._away: dict[str, float] = {}  # key -> when its browser was first seen gone

    @property
    def limit(self) -> int:
        return int(self._limit() if callable(self._limit) else self._limit)

    def store(self, key: str, session_id: str | None = None) -> dict:
        """The dict that holds this session's uploads (created empty); marks it used now."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = self._entries[key] = _Entry(session_id or key, _Store(self._lock))
            entry.last_used = time.monotonic()
            return entry.store

    def set_size(self, key: str, size: int, on_drop: Callable[[], None] | None = None) -> list[str]:
        """Record what the session's uploads now take; drop others' until within the limit.

        ``on_drop`` runs if this session's uploads are dropped later (say, to free the raw file
        Streamlit keeps). Returns the keys whose uploads were dropped to make room.

        A size that :func:`nbytes` measured before another session's drop emptied the store
        is stale: the store is empty, so 0 is recorded, ``on_drop`` runs at once, and the
        session is still told on its next run that its upload was dropped. So is a session
        that records an empty store after a drop; one that records new uploads is not.
        """
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = self._entries[key] = _Entry(key, _Store(self._lock))
            store = entry.store
            measured = getattr(store, "measured", None)
            stale = measured is not None and measured != store.drops
            if isinstance(store, _Store):
                store.measured = None
            entry.nbytes = 0 if stale else int(size)
            entry.last_used = time.monotonic()
            late = [[on_drop]] if stale and on_drop is not None else []
            if on_drop is not None and not stale:
                entry.on_drop = [on_drop]
            if entry.nbytes:
                self._dropped.discard(key)
            victims = self._victims(protect=key)
            callbacks = late + [self._drop_locked(k) for k in victims]
        self._after_drop(callbacks)
        return victims

    def make_room(self, key: str, incoming: int) -> list[str]:
        """Before a parse that will take about ``incoming`` bytes: drop other sessions' uploads,
        least recently used first, so that the counted uploads and the server's RSS, each plus
        ``incoming``, stay within their limits (as far as dropping counted uploads can).
        Returns the keys dropped."""
        with self._lock:
            victims = self._victims(protect=key, incoming=int(incoming))
            callbacks = [self._drop_locked(k) for k in victims]
        self._after_drop(callbacks)
        return victims

    def _target(self, total: int, incoming: int = 0) -> int:
        """The counted bytes to get down to: the limit (less what is about to arrive), lower
        by RSS over its own limit."""
        target = self.limit - incoming
        self._reason = f"to stay within {self.limit / MB:.0f} MB of uploads"
        if self._rss is not None and self._rss_limit is not None:
            rss_limit = self._rss_limit() if callable(self._rss_limit) else self._rss_limit
            rss = self._rss()
            if rss + incoming > int(rss_limit):  # measure what is live, not what was just freed
                _release_memory()
                rss = self._rss()
            excess = rss + incoming - int(rss_limit)
            if excess > 0 and total - excess < target:
                target = total - excess
                self._reason = (
                    f"the server's memory ({rss / MB:.0f} MB) is over {int(rss_limit) / MB:.0f} MB"
                )
        return target

    def _victims(self, protect: str, incoming: int = 0) -> list[str]:
        total = sum(e.nbytes for e in self._entries.values())
        target = self._target(total, incoming)
        victims = []
        for key, entry in sorted(self._entries.items(), key=lambda kv: kv[1].last_used):
            if total <= target:
                break
            if key == protect or entry.nbytes == 0:
                continue
            victims.append(key)
            total -= entry.nbytes
        return victims

    def _drop_locked(self, key: str) -> list[Callable[[], None]]:
        entry = self._entries[key]
        _LOGGER.info(
            "budget: dropped the uploads of session %s (%.0f MB, least recently used): %s",
            key,
            entry.nbytes / MB,
            getattr(self, "_reason", ""),
        )
        entry.store.empty_locked()
        entry.nbytes = 0
        self._dropped.add(key)
        callbacks, entry.on_drop = entry.on_drop, []
        return callbacks

    @staticmethod
    def _after_drop(callbacks: Iterable[list[Callable[[], None]]]) -> None:
        ran = False
        for group in callbacks:
            ran = True
            for callback in group:
                with contextlib.suppress(Exception):  # freeing memory must never break a run
                    callback()
        if ran:
            _release_memory()

    def touch(self, key: str) -> bool:
        """Mark the session used now; True once if its uploads were dropped since it last ran."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                entry.last_used = time.monotonic()
            if key in self._dropped:
                self._dropped.discard(key)
                return True
            return False

    def release(self, key: str) -> None:
        """Forget a session (it ended): its uploads go, with their memory."""
        with self._lock:
            entry = self._entries.pop(key, None)
            self._dropped.discard(key)
            callbacks = [entry.on_drop] if entry and entry.nbytes else []
            if entry is not None:
                entry.store.empty_locked()
                _LOGGER.info(
                    "budget: released session %s (%.0f MB): it ended", key, entry.nbytes / MB
                )
        if entry is not None and entry.nbytes:
            self._after_drop(callbacks)

    def sweep(
        self, active_session_ids: Iterable[str], grace: float = 0.0, now: float | None = None
    ) -> list[str]:
        """Release every entry whose session has not been among ``active_session_ids`` for
        ``grace`` seconds or more (0: at once); a session seen again is not away any more."""
        active = set(active_session_ids)
        now = time.monotonic() if now is None else now
        with self._lock:
            away = self._away
            for key, entry in self._entries.items():
                if entry.session_id in active:
                    away.pop(key, None)
                else:
                    away.setdefault(key, now)
            gone = [k for k, since in away.items() if k in self._entries and now - since >= grace]
            for key in [k for k in away if k not in self._entries or k in gone]:
                del away[key]
        for key in gone:
            self.release(key)
        return gone

    @property
    def total_bytes(self) -> int:
        with self._lock:
            return sum(e.nbytes for e in self._entries.values())

    def usage(self) -> dict[str, int]:
        """Bytes per key (for the harness and tests)."""
        with self._lock:
            return {k: e.nbytes for k, e in self._entries.items()}


def _uploads_limit() -> int:
    return int(budget_bytes() * (1 - CACHE_SHARE))


def _rss_limit() -> int:
    return budget_bytes() + HEADROOM_MB * MB


REGISTRY = Registry(_uploads_limit, rss=process_rss, rss_limit=_rss_limit)


# --- the running Streamlit server --------------------------------------------------------------


def _ctx():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx(suppress_warning=True)


def active_session_ids() -> set[str] | None:
    """Ids of the sessions with a connected browser; None without a real server (AppTest)."""
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return None
        manager = getattr(Runtime.instance(), "_session_mgr", None)
        if manager is None or not hasattr(manager, "list_active_sessions"):
            return None
        return {info.session.id for info in manager.list_active_sessions()}
    except Exception:  # an internal API moved: no sweeping, never a crash
        return None


_sweeper_lock = threading.Lock()
_sweeper: threading.Thread | None = None
_cache_limited = False


def _close_session(session_id: str) -> None:
    """Shut an ended session down for good, as Streamlit does when its storage expires: its
    state (whose widget callbacks may still hold a table) and files go now, not minutes later.
    The runtime does this on its event loop; a browser that comes back gets a new session."""
    try:
        from streamlit.runtime import Runtime

        Runtime.instance().clear_user_info_for_session(session_id)
    except Exception:  # an internal API moved: the session expires in Streamlit's own time
        _LOGGER.debug("budget: could not close session %s", session_id, exc_info=True)


def reconnect_seconds() -> float:
    """How long a session may be away before its uploads go (``METRICS_LENS_RECONNECT_SECONDS``,
    default 60)."""
    try:
        value = float(os.environ.get(RECONNECT_ENV, DEFAULT_RECONNECT_SECONDS))
    except ValueError:
        return DEFAULT_RECONNECT_SECONDS
    return value if value >= 0 else DEFAULT_RECONNECT_SECONDS


def sweep_ended() -> list[str]:
    """Release the uploads of every session whose browser left, and close those sessions."""
    active = active_session_ids()
    if active is None:
        return []
    gone = REGISTRY.sweep(active, grace=reconnect_seconds())
    for session_id in {_session_id(key) for key in gone}:
        _close_session(session_id)
    return gone


def _sweep_forever() -> None:
    while True:
        time.sleep(SWEEP_SECONDS)
        if active_session_ids() is None:
            return
        sweep_ended()


def _start_sweeper() -> None:
    global _sweeper
    with _sweeper_lock:
        if _sweeper is None or not _sweeper.is_alive():
            _sweeper = threading.Thread(target=_sweep_forever, name="budget-sweep", daemon=True)
            _sweeper.start()


def _limit_caches() -> None:
    """Bound every ``st.cache_data`` together to the budget's cache share (once per process),
    unless the operator set ``server.maxCacheDataSize``."""
    global _cache_limited
    if _cache_limited:
        return
    _cache_limited = True
    try:
        from streamlit import config
        from streamlit.runtime.caching.global_cache_budget import get_global_cache_budget

        if config.get_option("server.maxCacheDataSize") in (None, ""):
            get_global_cache_budget().reconfigure(int(budget_bytes() * CACHE_SHARE))
    except Exception:  # an older Streamlit: the caches keep their max_entries and ttl
        pass


def session_key() -> str:
    """This session's registry key: Streamlit's session id plus a token kept in its state
    (AppTest gives every test app the same session id)."""
    import streamlit as st

    ctx = _ctx()
    session_id = ctx.session_id if ctx is not None else "local"
    token = st.session_state.setdefault("_budget_token", uuid.uuid4().hex[:12])
    return f"{session_id}#{token}"


def _session_id(key: str) -> str:
    return key.rsplit("#", 1)[0]


def session_store() -> dict:
    """This session's uploads, owned by the registry (a drop empties this dict)."""
    _limit_caches()
    key = session_key()
    if active_session_ids() is not None:
        _start_sweeper()
    return REGISTRY.store(key, _session_id(key))


def touch() -> bool:
    """Call on every run: marks the session used, sweeps ended sessions, and says (once)
    whether this session's uploads were dropped for memory since its last run."""
    _limit_caches()
    sweep_ended()
    return REGISTRY.touch(session_key())


def set_size(size: int, file_id: str | None = None) -> list[str]:
    """Record what this session's uploads take now; drops others' if over budget.

    ``file_id``: the uploader's file, whose raw bytes Streamlit keeps for the session; a drop
    removes it, so the uploader comes back empty.
    """
    ctx = _ctx()
    on_drop = None
    if ctx is not None and file_id is not None:
        manager, session_id = ctx.uploaded_file_mgr, ctx.session_id

        def on_drop() -> None:
            manager.remove_file(session_id, file_id)

    return REGISTRY.set_size(session_key(), size, on_drop)


# What a parse takes, as a multiple of the uploaded file: the table, its arrays, and the parser's
# own copies for a moment (a 31 MB CSV of 1M rows: a 43 MB table and 31 MB of arrays).
PARSE_FACTOR = 4


def make_room(file_bytes: int) -> list[str]:
    """Before parsing an upload of ``file_bytes``: drop other sessions' uploads, least recently
    used first, so that the parse fits in the budget and under the RSS watch."""
    return REGISTRY.make_room(session_key(), PARSE_FACTOR * int(file_bytes))


def make_room_in_run(file_bytes: int) -> list[str]:
    """:func:`make_room` inside a Streamlit script run, nothing outside one (a test, the CLI):
    the loader calls it with a compressed upload's decompressed size, which the caller, who
    made room for the compressed file, could not know."""
    if _ctx() is None:
        return []
    return make_room(file_bytes)


def make_room_for_engine(nbytes: int) -> list[str]:
    """Before the SQL engine of a server dataset runs in this script run, holding up to
    ``nbytes`` outside the counted uploads: drop other sessions' uploads, least recently used
    first, so that the uploads and the server's RSS, each plus ``nbytes``, stay within their
    limits. Nothing outside a script run (a test, the CLI)."""
    if _ctx() is None:
        return []
    return REGISTRY.make_room(session_key(), int(nbytes))


DEFAULT_UPLOAD_MB = 200  # Streamlit's own default for server.maxUploadSize


def upload_cap_bytes() -> int:
    """The largest upload the server accepts (``server.maxUploadSize``, in MB)."""
    try:
        from streamlit import config

        mb = float(config.get_option("server.maxUploadSize"))
    except Exception:  # no Streamlit config: its default
        mb = DEFAULT_UPLOAD_MB
    return int(max(mb, 1) * MB)


def decompressed_limit() -> int:
    """The most a compressed upload may expand to: no more than the upload cap (the file could
    not be sent uncompressed either), and no more than a parse that the uploads' share of the
    budget can make room for (``PARSE_FACTOR`` times the file). Default settings (1 GB budget,
    a 500 MB cap): 192 MB."""
    return min(upload_cap_bytes(), rows_limit())


def rows_limit() -> int:
    """The largest table (on disk and decompressed) a session holds as rows: what the uploads'
    share of the budget can make room for (``PARSE_FACTOR`` times the file); ``metrics-lens
    app`` opens a larger file through the engine instead. Default: 192 MB."""
    return _uploads_limit() // PARSE_FACTOR


def file_limit() -> int:
    """The most the command (``report``, ``check``, ``app``'s rows) reads from one file, on disk
    or decompressed: a quarter of the budget (a parse takes ``PARSE_FACTOR`` times the file).
    Default 256 MB."""
    return budget_bytes() // PARSE_FACTOR


def forget_raw_file(file_id: str) -> None:
    """Free the uploaded bytes Streamlit keeps for the uploader once the table is parsed."""
    ctx = _ctx()
    if ctx is not None:
        with contextlib.suppress(Exception):
            ctx.uploaded_file_mgr.remove_file(ctx.session_id, file_id)
