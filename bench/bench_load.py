"""A class at once: N simulated users on one real server, interaction latency and server memory.

Starts ``streamlit run app.py`` on a free loopback port (with ``METRICS_LENS_BUDGET_MB`` set
from ``--budget-mb``) and connects N clients that speak Streamlit's websocket protocol, as the
browser does: the ``/_stcore/stream`` endpoint, ``BackMsg.rerun_script`` with the widget states,
``ForwardMsg`` deltas back until ``script_finished``; uploads go through ``file_urls_request``
and an HTTP PUT to the upload URL, with the XSRF cookie. No browser draws anything, so this
measures the server: script time, queueing under concurrency, and memory.

Each user runs a scripted class: open a bundled dataset (alternately Breast cancer and the
25k-row Recommender clicks), move the threshold ten times, switch pages (Curves, Compare
models), open the AP lab and the AUC lab, back to Threshold. The first ``--uploaders`` users
first upload their own table (``--rows`` rows, three models and a user id, a different seed
each) and run the class on it. Users start a little apart and stop at ``--duration``.

Prints p50 / p95 / max interaction latency (from sending a rerun to ``script_finished``),
upload latency apart, server RSS over time (VmRSS from /proc, with children), its peak, and
the RSS some seconds after every client left; then each session's end state: numbers on
screen, the budget's "upload it again" message, or a problem. ``--json`` writes the summary.

    .venv/bin/python -m bench.bench_load --users 30
    .venv/bin/python -m bench.bench_load --users 12 --uploaders 12 --rows 1e6 --budget-mb 1024
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import websockets  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

DROPPED_TEXT = "ran short of memory"
BUNDLED = ["Breast cancer: 3 models", "Recommender clicks: global AUC vs GAUC"]
PAGES = ["Curves", "Compare models", "AP lab", "AUC lab", "Threshold"]


# --- the server --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, budget_mb: float, log_path: Path) -> subprocess.Popen:
    # Sessions whose browser left are released at the next sweep (a real server waits a minute).
    env = dict(
        os.environ, METRICS_LENS_BUDGET_MB=str(budget_mb), METRICS_LENS_RECONNECT_SECONDS="0"
    )
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
        "--server.port", str(port), "--server.address", "127.0.0.1",
        "--server.headless", "true", "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none", "--server.runOnSave", "false",
    ]  # fmt: skip
    log = open(log_path, "wb")  # noqa: SIM115 (kept open for the server's life)
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: see {log_path}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("the server did not answer its health check within 60 s")


def stop_server(server: subprocess.Popen) -> None:
    """Stop a server started by :func:`start_server` (killed if it has not ended in 20 s)."""
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children, from /proc (MB)."""
    total = 0
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(c) for c in children]
    except OSError:
        pass
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


class RssSampler(threading.Thread):
    def __init__(self, pid: int, every: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.samples: list[tuple[float, float]] = []
        self.t0 = time.monotonic()
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.samples.append((time.monotonic() - self.t0, rss_mb(self.pid)))
            self._stop_event.wait(self.every)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()

    @property
    def peak(self) -> float:
        return max((mb for _, mb in self.samples), default=0.0)


# --- one simulated user ------------------------------------------------------------------------


@dataclass
class Run:
    """What one script run sent: elements by widget key, alerts, exceptions, numbers."""

    widgets: dict[str, object] = field(default_factory=dict)  # user key -> element proto
    kinds: dict[str, str] = field(default_factory=dict)  # user key -> element type
    alerts: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    metrics: int = 0
    status: int | None = None


class User:
    def __init__(
        self, index: int, port: int, deadline: float, table: Path | None, think: float = 0
    ) -> None:
        self.index, self.port, self.deadline, self.table = index, port, deadline, table
        self.think = think
        self._rng = random.Random(index)
        self.latencies: list[tuple[str, float]] = []
        self.upload_seconds: float | None = None
        self.errors: list[str] = []
        self.exceptions: list[str] = []
        self.saw_dropped = False
        self.final: Run | None = None
        self.session_id = ""
        self.pages: dict[str, str] = {}
        self.page_hash = ""
        self.values: dict[str, WidgetState] = {}  # user key -> state (id filled at send)
        self.widgets: dict[str, object] = {}
        self.cookie = ""
        self._queue: asyncio.Queue[ForwardMsg] = asyncio.Queue()
        self._file_urls: asyncio.Queue = asyncio.Queue()

    # protocol

    async def _reader(self, ws) -> None:
        async for raw in ws:
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                self.session_id = msg.new_session.initialize.session_id
                for page in msg.new_session.app_pages:
                    self.pages[page.page_name] = page.page_script_hash
            elif kind == "navigation":
                for page in msg.navigation.app_pages:
                    self.pages[page.page_name] = page.page_script_hash
                self.page_hash = msg.navigation.page_script_hash or self.page_hash
            elif kind == "file_urls_response":
                await self._file_urls.put(msg.file_urls_response)
            await self._queue.put(msg)

    async def _rerun(self, ws, what: str) -> Run:
        """Send a rerun with every widget state set so far; wait for the run to finish.

        Waits first for a think time (uniform in [0.5, 1.5] x ``think``), as a student does
        between two clicks."""
        if self.think and what not in ("open", "upload"):
            await asyncio.sleep(self.think * self._rng.uniform(0.5, 1.5))
        back = BackMsg()
        rerun = back.rerun_script
        rerun.page_script_hash = self.page_hash
        rerun.query_string = getattr(self, "query", "")  # a link's parameters (bench_engine_memory)
        for key, state in self.values.items():
            proto = self.widgets.get(key)
            if proto is None:
                continue
            ws_state = rerun.widget_states.widgets.add()
            ws_state.CopyFrom(state)
            ws_state.id = proto.id
        while not self._queue.empty():
            self._queue.get_nowait()
        start = time.perf_counter()
        await ws.send(back.SerializeToString())
        run = await self._collect()
        elapsed = time.perf_counter() - start
        if what == "upload":
            self.upload_seconds = elapsed
        else:
            self.latencies.append((what, elapsed))
        return run

    async def _collect(self, timeout: float = 180) -> Run:
        run = Run()
        while True:
            msg = await asyncio.wait_for(self._queue.get(), timeout)
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                etype = element.WhichOneof("type")
                proto = getattr(element, etype) if etype else None
                if etype == "exception":
                    run.exceptions.append(f"{proto.type}: {proto.message}")
                elif etype == "alert":
                    run.alerts.append(proto.body)
                elif etype == "metric":
                    run.metrics += 1
                widget_id = getattr(proto, "id", "") if proto is not None else ""
                if isinstance(widget_id, str) and widget_id.startswith("$$ID-"):
                    key = widget_id.split("-", 2)[2] if widget_id.count("-") >= 2 else ""
                    if key and key != "None":
                        run.widgets[key] = proto
                        run.kinds[key] = etype
            elif kind == "script_finished":
                status = msg.script_finished
                if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue  # st.rerun(), or a newer rerun took over: wait for that one
                run.status = status
                self.widgets.update(run.widgets)
                self.exceptions += run.exceptions
                if any(DROPPED_TEXT in a for a in run.alerts):
                    self.saw_dropped = True
                self.final = run
                return run

    def _set(self, key: str, **value) -> None:
        state = WidgetState()
        for name, v in value.items():
            if name == "double_array_value":
                state.double_array_value.data[:] = v
            elif name == "string_array_value":
                state.string_array_value.data[:] = v
            elif name == "string_value":
                state.string_value = v
        self.values[key] = state

    def _xsrf_cookie(self) -> str:
        url = f"http://127.0.0.1:{self.port}/_stcore/health"  # sets the cookie, as for a browser
        with urllib.request.urlopen(url, timeout=30) as resp:
            for header in resp.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                if name.strip() == "_streamlit_xsrf":
                    return rest.split(";", 1)[0]
        return ""

    def _put(self, url: str, name: str, data: bytes) -> None:
        boundary = uuid.uuid4().hex
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: text/csv\r\n\r\n"
        ).encode()
        body = head + data + f"\r\n--{boundary}--\r\n".encode()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        conn.request(
            "PUT",
            url,
            body=body,
            headers={
                "Content-Type": f"multipart/form-data; boundary={boundary}",
                "Cookie": f"_streamlit_xsrf={self.cookie}",
                "X-Xsrftoken": self.cookie,
            },
        )
        resp = conn.getresponse()
        resp.read()
        conn.close()
        if resp.status >= 300:
            raise RuntimeError(f"upload PUT answered {resp.status}")

    async def _upload(self, ws) -> None:
        await self._choose_upload(ws)
        await self._send_table(ws)

    async def _choose_upload(self, ws) -> None:
        self._set("source", string_array_value=["Upload"])
        await self._rerun(ws, "switch to upload")

    async def _send_table(self, ws) -> None:
        """Upload ``self.table`` as the browser does, and wait for the run that reads it."""
        data = self.table.read_bytes()
        back = BackMsg()
        back.file_urls_request.request_id = uuid.uuid4().hex
        back.file_urls_request.file_names.append(self.table.name)
        back.file_urls_request.session_id = self.session_id
        start = time.perf_counter()
        await ws.send(back.SerializeToString())
        urls = (await asyncio.wait_for(self._file_urls.get(), 30)).file_urls[0]
        path = urls.upload_url.replace(f"http://127.0.0.1:{self.port}", "")
        if not path.startswith("/"):
            path = "/" + path
        await asyncio.to_thread(self._put, path, self.table.name, data)
        state = WidgetState()
        info = state.file_uploader_state_value.uploaded_file_info.add()
        info.file_id, info.name, info.size = urls.file_id, self.table.name, len(data)
        info.file_urls.CopyFrom(urls)
        self.values["upload_file"] = state
        del data
        await self._rerun(ws, "upload")
        self.upload_seconds = time.perf_counter() - start
        # The browser sends the uploader's state on every rerun after, and so does this user.

    async def _page(self, ws, name: str) -> None:
        if name not in self.pages:
            raise RuntimeError(f"no page {name!r} among {sorted(self.pages)}")
        self.page_hash = self.pages[name]
        await self._rerun(ws, f"page {name}")

    async def _thresholds(self, ws, moves: int, at_least: int = 0) -> None:
        for i in range(moves):
            if i >= at_least and time.monotonic() > self.deadline:
                return
            proto = self.widgets.get("threshold_slider")
            if proto is None:
                raise RuntimeError("no threshold slider on the Threshold page")
            low, high = proto.min, proto.max
            value = low + (high - low) * (0.15 + 0.7 * ((i * 0.37 + self.index * 0.11) % 1))
            self._set("threshold_slider", double_array_value=[value])
            await self._rerun(ws, "threshold")

    async def run(self) -> None:
        try:
            self.cookie = await asyncio.to_thread(self._xsrf_cookie)
            async with websockets.connect(
                f"ws://127.0.0.1:{self.port}/_stcore/stream",
                subprotocols=["streamlit", self.cookie or "none"],
                additional_headers={"Cookie": f"_streamlit_xsrf={self.cookie}"},
                max_size=None,
                open_timeout=60,
                ping_interval=None,
            ) as ws:
                reader = asyncio.create_task(self._reader(ws))
                try:
                    await self._class(ws)
                finally:
                    reader.cancel()
        except Exception as exc:  # a failed session is a result, not a crash of the harness
            self.errors.append(f"{type(exc).__name__}: {exc}")

    async def _class(self, ws) -> None:
        await self._rerun(ws, "open")  # the browser's first rerun: the default page
        if self.table is not None:
            await self._upload(ws)
        else:
            self._set("dataset", string_value=BUNDLED[self.index % len(BUNDLED)])
            await self._rerun(ws, "dataset")
        # Every user reaches the Threshold page and moves the threshold once, however slow the
        # machine: the class is measured in work done, the deadline only bounds the extra.
        first = True
        while first or time.monotonic() < self.deadline:
            await self._page(ws, "Threshold")
            await self._thresholds(ws, 10, at_least=1 if first else 0)
            first = False
            for page in PAGES:
                if time.monotonic() > self.deadline:
                    break
                await self._page(ws, page)
            await asyncio.sleep(0.5)
        await self._page(ws, "Threshold")  # the end state: the numbers, or the message


# --- the class ---------------------------------------------------------------------------------


def _write_table(args: tuple[int, int, str]) -> str:
    from bench.bench_app import make_csv

    rows, seed, path = args
    Path(path).write_bytes(make_csv(rows, seed=seed))
    return path


def make_tables(n: int, rows: int, folder: Path) -> list[Path]:
    """One table per uploader, a different seed each (kept in ``folder`` if already there)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"scores_{rows}_{i:02d}.csv" for i in range(n)]
    jobs = [(rows, 1000 + i, str(p)) for i, p in enumerate(paths) if not p.exists()]
    if not jobs:
        return paths
    if len(jobs) <= 1:
        _write_table(jobs[0])
    else:
        with ProcessPoolExecutor(max_workers=2) as pool:
            list(pool.map(_write_table, jobs))
    return paths


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


async def _run_users(users: list[User], ramp: float) -> None:
    async def start(user: User, delay: float) -> None:
        await asyncio.sleep(delay)
        await user.run()

    await asyncio.gather(*(start(u, ramp * i / max(len(users), 1)) for i, u in enumerate(users)))


def _run_in_own_loop(coroutine) -> None:
    """``asyncio.run`` on a thread of its own: the caller's thread may already run a loop (a
    Playwright driver started earlier in the same test process does)."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(coroutine)
        except BaseException as e:  # handed back to the caller
            failure.append(e)

    worker = threading.Thread(target=run, name="bench-load-users")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]


def run_class(
    users: int,
    uploaders: int = 0,
    rows: int = 1_000_000,
    duration: float = 60,
    budget_mb: float = 1024,
    ramp: float = 5.0,
    think: float = 5.0,
    settle: float = 12.0,
    tables_dir: Path | None = None,
    log=print,
) -> dict:
    """Start a server, run the class, stop the server; returns the summary (see main)."""
    users = max(1, min(int(users), 200))
    uploaders = max(0, min(int(uploaders), users))
    with tempfile.TemporaryDirectory(prefix="bench_load_") as tmp:
        folder = Path(tmp)
        t0 = time.monotonic()
        tables = make_tables(uploaders, rows, tables_dir or folder) if uploaders else []
        if tables:
            size = tables[0].stat().st_size / 2**20
            log(f"{uploaders} tables of {rows:,} rows (~{size:.0f} MB each) in "
                f"{time.monotonic() - t0:.0f} s")  # fmt: skip
        port = free_port()
        server = start_server(port, budget_mb, folder / "server.log")
        try:
            idle = rss_mb(server.pid)
            sampler = RssSampler(server.pid)
            sampler.start()
            deadline = time.monotonic() + ramp + duration
            clients = [
                User(i, port, deadline, tables[i] if i < uploaders else None, think)
                for i in range(users)
            ]
            started = time.monotonic()
            _run_in_own_loop(_run_users(clients, ramp))
            wall = time.monotonic() - started
            at_end = rss_mb(server.pid)
            time.sleep(settle)  # every client has left: the budget sweeps ended sessions
            after = rss_mb(server.pid)
            sampler.stop()
            server_log = (folder / "server.log").read_text(errors="replace")
        finally:
            stop_server(server)
    interactions = [s for u in clients for _, s in u.latencies]
    sessions = []
    for u in clients:
        final = u.final
        numbers = bool(final and final.metrics and not final.exceptions)
        message = bool(final and any(DROPPED_TEXT in a for a in final.alerts))
        sessions.append(
            {
                "user": u.index,
                "uploader": u.table is not None,
                "interactions": len(u.latencies),
                "upload_s": u.upload_seconds,
                "numbers": numbers,
                "dropped_message": message,
                "saw_dropped": u.saw_dropped,
                "exceptions": u.exceptions,
                "errors": u.errors,
                "ok": not u.errors and not u.exceptions and (numbers or message),
            }
        )
    uploads = [u.upload_seconds for u in clients if u.upload_seconds is not None]
    by_kind: dict[str, list[float]] = {}
    for u in clients:
        for what, sec in u.latencies:
            by_kind.setdefault(what, []).append(sec)
    return {
        "users": users,
        "uploaders": uploaders,
        "rows": rows,
        "budget_mb": budget_mb,
        "duration_s": duration,
        "think_s": think,
        "wall_s": round(wall, 1),
        "interactions": len(interactions),
        "p50_s": percentile(interactions, 50),
        "p95_s": percentile(interactions, 95),
        "max_s": max(interactions, default=float("nan")),
        "mean_s": statistics.fmean(interactions) if interactions else float("nan"),
        "upload_p50_s": percentile(uploads, 50),
        "upload_max_s": max(uploads, default=float("nan")),
        "by_kind": {
            k: {"n": len(v), "p50_s": percentile(v, 50), "p95_s": percentile(v, 95)}
            for k, v in sorted(by_kind.items())
        },
        "rss_idle_mb": idle,
        "rss_peak_mb": sampler.peak,
        "rss_end_mb": at_end,
        "rss_after_mb": after,
        "rss_series": [(round(t, 1), round(mb)) for t, mb in sampler.samples[::4]],
        "sessions": sessions,
        "server_tracebacks": server_log.count("Traceback"),
        "server_errors": _tracebacks(server_log),
        "budget_drops": server_log.count("budget: dropped"),
        "budget_releases": server_log.count("budget: released"),
        "budget_log": [line for line in server_log.splitlines() if "budget: " in line],
    }


def _tracebacks(text: str, limit: int = 5) -> list[str]:
    """The last lines of each traceback in the server's log (the first few)."""
    found = []
    for chunk in text.split("Traceback (most recent call last):")[1:][:limit]:
        lines = [ln for ln in chunk.splitlines() if ln.strip()]
        body = [ln for ln in lines if ln.startswith("  ")]
        tail = [ln for ln in lines if not ln.startswith("  ")][:2]
        found.append("\n".join(body[-4:] + tail))
    return found


def report(summary: dict, log=print) -> None:
    s = summary
    log(
        f"\n{s['users']} users ({s['uploaders']} uploading {s['rows']:,} rows each), "
        f"budget {s['budget_mb']:g} MB, think time {s['think_s']:g} s, {s['wall_s']:.0f} s"
    )
    log(
        f"interactions: {s['interactions']}  p50 {s['p50_s']:.3f} s  p95 {s['p95_s']:.3f} s  "
        f"max {s['max_s']:.3f} s"
    )
    for kind, k in s["by_kind"].items():
        log(f"  {kind:<22} n={k['n']:<5} p50 {k['p50_s']:.3f} s  p95 {k['p95_s']:.3f} s")
    if s["uploaders"]:
        log(f"uploads (PUT + parse + first page): p50 {s['upload_p50_s']:.1f} s, "
            f"max {s['upload_max_s']:.1f} s")  # fmt: skip
    log(
        f"server RSS: idle {s['rss_idle_mb']:.0f} MB, peak {s['rss_peak_mb']:.0f} MB, "
        f"at the end {s['rss_end_mb']:.0f} MB, after every client left "
        f"{s['rss_after_mb']:.0f} MB"
    )
    series = "  ".join(f"{t:.0f}s:{mb}" for t, mb in s["rss_series"])
    log(f"RSS over time (MB): {series}")
    ok = sum(x["ok"] for x in s["sessions"])
    numbers = sum(x["numbers"] for x in s["sessions"])
    dropped = sum(x["dropped_message"] for x in s["sessions"])
    log(
        f"sessions: {ok}/{len(s['sessions'])} ok ({numbers} show numbers, {dropped} the "
        f"'upload it again' message); server tracebacks in its log: {s['server_tracebacks']}"
    )
    log(
        f"budget log: {s['budget_drops']} uploads dropped for memory, "
        f"{s['budget_releases']} sessions released when they ended"
    )
    for text in s["server_errors"]:
        log("  server traceback:\n" + text)
    for x in s["sessions"]:
        if not x["ok"]:
            log(f"  user {x['user']}: errors {x['errors']} exceptions {x['exceptions'][:3]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=30)
    parser.add_argument("--uploaders", type=int, default=0)
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--duration", type=float, default=60, help="seconds of class per user")
    parser.add_argument("--budget-mb", type=float, default=1024)
    parser.add_argument("--ramp", type=float, default=5, help="seconds over which users arrive")
    parser.add_argument(
        "--think", type=float, default=5, help="mean seconds a user waits between two clicks"
    )
    parser.add_argument("--json", type=Path, help="also write the summary here")
    parser.add_argument("--tables", type=Path, help="keep (and reuse) the upload tables here")
    args = parser.parse_args()
    summary = run_class(
        args.users,
        args.uploaders,
        int(args.rows),
        args.duration,
        args.budget_mb,
        args.ramp,
        args.think,
        tables_dir=args.tables,
    )
    report(summary)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
