"""The SQL engine's memory on a server (issue 50 §1, the engine's door): DuckDB's overshoot past
its ``memory_limit``, and issue 50's file opened from the server directory with its
3,000-character text column as the group.

1. **Overshoot** (``--overshoot``): ``metrics.sql.summarize`` grouped by user on generated
   Parquet files (``--rows`` rows, integer ids and 30-character text ids, a user per 20 rows),
   each in its own process at several limits; prints the peak RSS over the process's start
   (VmHWM), what it holds past the limit, and its ratio to the limit.
   ``ui.compute.server_source.OVERSHOOT_MB`` is the most past the limit, with margin.
2. **Server** (default): ``streamlit run app.py`` at ``--budget-mb`` (default 1024) serving a
   data directory that holds issue 50's file (1M rows, 64 values of 3,000 characters in a
   dictionary column, 344 kB). One student uploads an 80 kB table alone (the baseline); then a
   second opens the link ``?source=server&dataset=categorical.parquet&label=label&score=prod
   &score=new&group=note`` and, 0.5 s later, the first uploads the 80 kB table again. Prints the
   server's RSS idle and peak (every 0.1 s), the link's seconds and sentence, and the small
   upload's time then against alone. ``--app DIR`` serves another checkout of the project (an
   export of an older commit: the "before" figures).

    .venv/bin/python -m bench.bench_engine_memory
    .venv/bin/python -m bench.bench_engine_memory --app /tmp/before
    .venv/bin/python -m bench.bench_engine_memory --overshoot --rows 4000000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.bench_hostile import RSS_WATCH_MB, Student
from bench.bench_load import RssSampler, _run_in_own_loop, free_port, rss_mb, stop_server
from bench.bench_parquet import Again, _sentence
from tests import hostile_payloads as payloads

ROOT = Path(__file__).resolve().parents[1]
LINK = "source=server&dataset=categorical.parquet&label=label&score=prod&score=new&group=note"


class Link(Student):
    """Opens the dashboard at a link (its query string) when told to."""

    def __init__(self, name: str, port: int, query: str) -> None:
        super().__init__(name, port, Path(os.devnull))
        self.query = query

    async def _class(self, ws) -> None:
        self.ready.set()
        await self.go.wait()
        self.started = time.monotonic()
        try:
            self.final = await self._rerun(ws, "open")
        finally:
            self.ended = time.monotonic()
            self.done.set()


def _start(app: Path, port: int, budget_mb: float, data: Path, log: Path) -> subprocess.Popen:
    env = dict(os.environ, METRICS_LENS_BUDGET_MB=str(budget_mb), METRICS_LENS_DATA_DIR=str(data),
               METRICS_LENS_RECONNECT_SECONDS="0", PYTHONPATH=str(app))  # fmt: skip
    env.pop("METRICS_LENS_SQL_MEMORY", None)
    cmd = [sys.executable, "-m", "streamlit", "run", str(app / "app.py"),
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--server.headless", "true", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none", "--server.runOnSave", "false"]  # fmt: skip
    out = open(log, "wb")  # noqa: SIM115 (kept open for the server's life)
    proc = subprocess.Popen(cmd, cwd=app, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"the server did not answer within 60 s: see {log}")


def run_server(app: Path, budget_mb: float, folder: Path) -> dict:
    data = folder / "data"
    data.mkdir()
    (data / "categorical.parquet").write_bytes(payloads.categorical_text())
    small = folder / "small.csv"
    small.write_bytes(payloads.scores_csv(80 * 1024))
    port = free_port()
    log = folder / "server.log"
    server = _start(app, port, budget_mb, data, log)
    try:
        idle = rss_mb(server.pid)
        sampler = RssSampler(server.pid, every=0.1)
        sampler.start()
        link = Link("server link", port, LINK)
        again = Again("80 kB upload", port, small)

        async def main() -> None:
            tasks = [asyncio.create_task(s.run()) for s in (link, again)]
            for s in (link, again):
                await s.ready.wait()
            link.go.set()
            await asyncio.sleep(0.5)  # the engine is reading the file
            again.go.set()
            for s in (link, again):
                await s.done.wait()
            await asyncio.gather(*tasks)

        _run_in_own_loop(main())
        sampler.stop()
    finally:
        stop_server(server)
    return {
        "ceiling_mb": budget_mb + RSS_WATCH_MB,
        "idle": round(idle),
        "peak": round(sampler.peak),
        "link_s": round(link.ended - link.started, 1),
        "said": _sentence(link),
        "exceptions": link.exceptions,
        "alone": round(again.alone, 2),
        "during": round(again.ended - again.started, 2),
        "tracebacks": log.read_text(errors="replace").count("Traceback"),
    }


CHILD = """
import re, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from metrics.sql import summarize
def hwm():
    return int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text())[1]) / 1024
base, began = hwm(), time.monotonic()
try:
    summarize({path!r}, "label", ["a", "b"], group="user", memory_limit={limit!r})
    said = "answered"
except Exception as exc:
    said = str(exc)[:80]
print(f"BENCH {{hwm() - base:.0f}} {{time.monotonic() - began:.1f}} {{said}}")
"""


def run_overshoot(rows: int, folder: Path) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    users = rng.integers(0, rows // 20, rows)
    columns = {"label": rng.integers(0, 2, rows).astype(np.int8), "a": rng.random(rows),
               "b": rng.random(rows)}  # fmt: skip
    text = np.char.add(np.char.add("user-", users.astype("U12")), "-" * 18)  # 30 characters
    ids = {"integer": pa.array(users), "text": pa.array(text.astype(object))}
    for kind, g in ids.items():
        path = folder / f"{kind}.parquet"
        pq.write_table(pa.table({**columns, "user": g}), path)
        for limit in ("128MiB", "256MiB", "512MiB"):
            code = CHILD.format(root=str(ROOT), path=str(path), limit=limit)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 check=False).stdout  # fmt: skip
            found = re.search(r"BENCH (\S+) (\S+) (.*)", out)  # after DuckDB's progress bar
            grew, seconds, said = found.groups() if found else ("0", "0", "no answer")
            mib = float(re.match(r"\d+", limit)[0])
            print(f"{rows:,} rows, {kind} ids, limit {limit}: peak {grew} MB over the start, "
                  f"{float(grew) - mib * 1.048576:.0f} MB past the limit "
                  f"({float(grew) / mib:.2f}x), {seconds} s, {said}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget-mb", type=float, default=1024)
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout to serve")
    parser.add_argument("--overshoot", action="store_true", help="DuckDB's overshoot instead")
    parser.add_argument("--rows", type=int, default=4_000_000, help="rows, with --overshoot")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_engine_") as tmp:
        if args.overshoot:
            run_overshoot(args.rows, Path(tmp))
            return
        s = run_server(args.app.resolve(), args.budget_mb, Path(tmp))
    print(f"server at {args.budget_mb:.0f} MB (ceiling {s['ceiling_mb']:.0f} MB), {args.app}:")
    print(f"  RSS idle {s['idle']} MB, peak {s['peak']} MB; the link {s['link_s']} s: "
          f"{s['said'][:160] or 'its summary'}"
          + (f"  EXCEPTIONS {s['exceptions'][:2]}" if s["exceptions"] else ""))  # fmt: skip
    print(
        f"  80 kB upload alone {s['alone']:.2f} s, while the file is read {s['during']:.2f} s "
        f"(ratio {s['during'] / s['alone']:.2f}x); server tracebacks: {s['tracebacks']}"
    )


if __name__ == "__main__":
    main()
