"""Hostile uploads on one real server: does a class keep working while they are read?

Starts ``streamlit run app.py`` (``METRICS_LENS_BUDGET_MB``, 1024 by default) and connects
students that speak Streamlit's websocket protocol (``bench.bench_load.User``). Every student
first opens the dashboard and chooses *Upload*; then:

1. one student uploads the largest table an upload may be (``--large-mb`` of CSV once
   decompressed, sent gzip-compressed): a legal file whose parse takes seconds;
2. as soon as the server's log says that parse has begun, another student uploads a 16 kB
   table. It must come back with numbers while the large parse is still running (the log has
   not yet said it ended): a small upload waits behind no one's large one (issue 32);
3. one after another, the hostile files of issue 32 (a Parquet dictionary bomb, a DELTA bomb,
   a Parquet file of 50,000-element lists, a gzip bomb of 3 GB of CSV): each must end on a
   sentence, with no exception.

The server's resident memory (VmRSS with children) is sampled every 0.1 s throughout; the
ceiling ``docs/classroom.md`` promises is the budget plus the 400 MB RSS watch. Prints each
upload's seconds, outcome and the RSS peak while it ran.

    .venv/bin/python -m bench.bench_hostile
    .venv/bin/python -m bench.bench_hostile --budget-mb 1024 --large-mb 180 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from bench.bench_load import (
    RssSampler,
    User,
    _run_in_own_loop,
    free_port,
    rss_mb,
    start_server,
    stop_server,
)
from tests import hostile_payloads as payloads

RSS_WATCH_MB = 400  # ui.compute.budget: uploads are dropped when RSS passes the budget plus this
LARGE_BEGUN = "budget: parsing a large table"
LARGE_ENDED = "budget: parse of the large table"
WAITING = "until your table is ready"  # the sample is shown because the upload is not usable
GENERIC = (WAITING, "Upload a score table")


class Student(User):
    """Opens the dashboard, chooses Upload, then uploads its file when told to."""

    def __init__(self, name: str, port: int, table: Path) -> None:
        super().__init__(0, port, deadline=0, table=table)
        self.name = name
        self.ready = asyncio.Event()
        self.go = asyncio.Event()
        self.done = asyncio.Event()
        self.started = self.ended = 0.0

    async def _class(self, ws) -> None:
        await self._rerun(ws, "open")
        await self._choose_upload(ws)
        if "upload_file" not in self.final.widgets:  # every first click counts, as in a browser
            raise RuntimeError("choosing Upload did not show the file uploader")
        self.ready.set()
        await self.go.wait()
        self.started = time.monotonic()
        try:
            await self._send_table(ws)
        finally:
            self.ended = time.monotonic()
            self.done.set()

    async def run(self) -> None:
        await super().run()
        self.ready.set()  # a student whose connection failed is ready (and done) too
        self.done.set()


def _log_has(path: Path, text: str) -> bool:
    return text in path.read_text(errors="replace")


async def _wait_for_log(path: Path, text: str, student: Student, timeout: float = 300) -> bool:
    """Until the server's log holds ``text`` (or ``student`` is done, or the timeout)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not student.done.is_set():
        if _log_has(path, text):
            return True
        await asyncio.sleep(0.02)
    return _log_has(path, text)


async def _scenario(students: list[Student], log_path: Path, sampler: RssSampler) -> dict:
    large, small, *bombs = students
    tasks = [asyncio.create_task(s.run()) for s in students]
    for s in students:
        await s.ready.wait()
    windows: dict[str, tuple[float, float]] = {}
    large.go.set()
    began = await _wait_for_log(log_path, LARGE_BEGUN, large)
    small.go.set()
    await small.done.wait()
    small_while_large = began and not _log_has(log_path, LARGE_ENDED)
    await large.done.wait()
    for bomb in bombs:  # one at a time: the peak while each is read is its own
        bomb.go.set()
        await bomb.done.wait()
    await asyncio.gather(*tasks)
    for s in students:
        windows[s.name] = (s.started - sampler.t0, s.ended - sampler.t0)
    return {"large_parse_seen": began, "small_done_while_large_parsed": small_while_large,
            "windows": windows}  # fmt: skip


def run_hostile_class(budget_mb: float = 1024, large_mb: float = 180, log=print) -> dict:
    """Start a server, run the scenario above, stop the server; returns the summary."""
    files = {
        "large.csv.gz": payloads.large_scores_gz(large_mb),
        "small.csv": payloads.scores_csv(16 * 1024),
        "dictionary_bomb.parquet": payloads.dictionary_bomb(),
        "delta_bomb.parquet": payloads.delta_bomb(),
        "list_bomb.parquet": payloads.list_bomb(),
        "gzip_bomb.csv.gz": payloads.gzip_bomb(3_000),
    }
    with tempfile.TemporaryDirectory(prefix="bench_hostile_") as tmp:
        folder = Path(tmp)
        for name, data in files.items():
            (folder / name).write_bytes(data)
        port = free_port()
        log_path = folder / "server.log"
        server = start_server(port, budget_mb, log_path)
        try:
            idle = rss_mb(server.pid)
            sampler = RssSampler(server.pid, every=0.1)
            sampler.start()
            students = [Student(name, port, folder / name) for name in files]
            outcome: dict = {}

            async def main() -> None:
                outcome.update(await _scenario(students, log_path, sampler))

            _run_in_own_loop(main())
            sampler.stop()
            server_log = log_path.read_text(errors="replace")
        finally:
            stop_server(server)
    uploads = {}
    for s in students:
        start, end = outcome["windows"][s.name]
        during = [mb for t, mb in sampler.samples if start <= t <= end + 0.2]
        final = s.final
        alerts = list(final.alerts) if final else []
        waiting = any(WAITING in a for a in alerts)  # the page still shows the sample
        uploads[s.name] = {
            "bytes": len(files[s.name]),
            "seconds": round(s.ended - s.started, 2),
            "its_table": bool(
                final and final.metrics and not (final.exceptions or s.errors or waiting)
            ),
            "sentence": next((a for a in alerts if not any(w in a for w in GENERIC)), ""),
            "alerts": alerts,
            "exceptions": s.exceptions,
            "errors": s.errors,
            "rss_peak_mb": round(max(during, default=0.0)),
        }
    return {
        "budget_mb": budget_mb,
        "ceiling_mb": budget_mb + RSS_WATCH_MB,
        "large_mb": large_mb,
        "large_parse_seen": outcome["large_parse_seen"],
        "small_done_while_large_parsed": outcome["small_done_while_large_parsed"],
        "rss_idle_mb": round(idle),
        "rss_peak_mb": round(sampler.peak),
        "uploads": uploads,
        "server_tracebacks": server_log.count("Traceback"),
        "budget_log": [line for line in server_log.splitlines() if "budget: " in line],
    }


def report(summary: dict, log=print) -> None:
    s = summary
    log(
        f"budget {s['budget_mb']:.0f} MB (ceiling {s['ceiling_mb']:.0f} MB): server RSS idle "
        f"{s['rss_idle_mb']} MB, peak {s['rss_peak_mb']} MB; "
        f"small upload done while the large one was parsed: {s['small_done_while_large_parsed']}"
    )
    for name, u in s["uploads"].items():
        said = "its table" if u["its_table"] else (u["sentence"][:90] or "nothing said")
        log(
            f"  {name:26} {u['bytes'] / 2**20:8.2f} MB  {u['seconds']:6.2f} s  "
            f"peak {u['rss_peak_mb']:5} MB  {said}"
            + (f"  EXCEPTIONS {u['exceptions'][:2]}" if u["exceptions"] else "")
            + (f"  ERRORS {u['errors'][:2]}" if u["errors"] else "")
        )
    for line in s["budget_log"]:
        log("  log: " + line.split("budget: ", 1)[1])
    log(f"server tracebacks: {s['server_tracebacks']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget-mb", type=float, default=1024)
    parser.add_argument("--large-mb", type=float, default=180, help="the large table, decoded")
    parser.add_argument("--json", type=Path, help="also write the summary here")
    args = parser.parse_args()
    summary = run_hostile_class(args.budget_mb, args.large_mb)
    report(summary)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
