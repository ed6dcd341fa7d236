"""Issue 50's Parquet file on a real server and through ``check``: memory and another
student's wait.

The file: 1M rows, a label, two models' scores and a text column that is Arrow
``dictionary<string>`` (64 values of 3,000 characters): 344 kB on disk, 3 GB of text decoded.
Before the reader counted what it decodes, ``check`` peaked at 9.0 GB and a server session at
8.3 GB (the budget's ceiling: 1,424 MB), and another student's 80 kB upload took 31.6 s.

1. **Server** (``streamlit run app.py`` at ``--budget-mb``, default 1024): three students open
   the dashboard and choose Upload. First one uploads an 80 kB table alone (the baseline);
   then one uploads the file, another adds the same file as "Another model's file (same rows)"
   to a small table of its own, and, while both are read, the first student uploads the 80 kB
   table again. Prints each upload's seconds and sentence, the server's RSS idle and peak
   (sampled every 0.1 s), and the small upload's time while the file is read against alone.
2. **check**: ``metrics-lens check FILE --baseline prod --candidate new --metric auc`` on the
   file, and on the same rows without the text column (the baseline), each in its own process;
   prints peak RSS (VmHWM) and seconds, and their ratios.

    .venv/bin/python -m bench.bench_parquet
    .venv/bin/python -m bench.bench_parquet --budget-mb 1024 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pyarrow.parquet as pq

from bench.bench_hostile import GENERIC, RSS_WATCH_MB, Student
from bench.bench_load import (
    RssSampler,
    _run_in_own_loop,
    free_port,
    rss_mb,
    start_server,
    stop_server,
)
from tests import hostile_payloads as payloads

ROOT = Path(__file__).resolve().parents[1]


class SecondFile(Student):
    """Uploads a small table, then adds ``second`` as "Another model's file (same rows)"."""

    def __init__(self, name: str, port: int, table: Path, second: Path) -> None:
        super().__init__(name, port, table)
        self.second = second

    async def _class(self, ws) -> None:
        await self._rerun(ws, "open")
        await self._choose_upload(ws)
        await self._send_table(ws)  # the first file: its own small table
        if "upload_model_file" not in self.final.widgets:
            raise RuntimeError("the upload did not show the second file's uploader")
        self.ready.set()
        await self.go.wait()
        self.started = time.monotonic()
        try:
            await self._send_second(ws)
        finally:
            self.ended = time.monotonic()
            self.done.set()

    async def _send_second(self, ws) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        data = self.second.read_bytes()
        back = BackMsg()
        back.file_urls_request.request_id = uuid.uuid4().hex
        back.file_urls_request.file_names.append(self.second.name)
        back.file_urls_request.session_id = self.session_id
        await ws.send(back.SerializeToString())
        urls = (await asyncio.wait_for(self._file_urls.get(), 30)).file_urls[0]
        path = urls.upload_url.replace(f"http://127.0.0.1:{self.port}", "")
        await asyncio.to_thread(self._put, "/" + path.lstrip("/"), self.second.name, data)
        state = WidgetState()
        info = state.file_uploader_state_value.uploaded_file_info.add()
        info.file_id, info.name, info.size = urls.file_id, self.second.name, len(data)
        info.file_urls.CopyFrom(urls)
        self.values["upload_model_file"] = state
        await self._rerun(ws, "second file")


class Again(Student):
    """Uploads its small table once alone (the baseline), then again when told to."""

    async def _class(self, ws) -> None:
        await self._rerun(ws, "open")
        await self._choose_upload(ws)
        began = time.monotonic()
        await self._send_table(ws)
        self.alone = time.monotonic() - began
        self.ready.set()
        await self.go.wait()
        self.started = time.monotonic()
        try:
            await self._send_table(ws)
        finally:
            self.ended = time.monotonic()
            self.done.set()


def _class_table(k: int, rows: int) -> bytes:
    """Student ``k``'s own table: a label and a model column named after the student."""
    import numpy as np

    rng = np.random.default_rng(k)
    y = rng.integers(0, 2, rows)
    score = np.round(np.clip(0.3 * y + 0.7 * rng.random(rows), 0, 1), 4)
    lines = [f"label,student_{k}_model"] + [f"{a},{b}" for a, b in zip(y, score, strict=True)]
    return ("\n".join(lines) + "\n").encode()


def run_class_at_once(budget_mb: float, folder: Path, students: int, rows: int) -> dict:
    """``students`` sessions upload their own table at the same moment. Each must come back
    with numbers, and its column mapping must offer its own model and no one else's."""
    for k in range(students):
        (folder / f"student_{k}.csv").write_bytes(_class_table(k, rows))
    port = free_port()
    server = start_server(port, budget_mb, folder / "class.log")
    try:
        sampler = RssSampler(server.pid, every=0.1)
        sampler.start()
        group = [
            Student(f"student_{k}", port, folder / f"student_{k}.csv") for k in range(students)
        ]

        async def main() -> None:
            tasks = [asyncio.create_task(s.run()) for s in group]
            for s in group:
                await s.ready.wait()
            for s in group:
                s.go.set()
            await asyncio.gather(*tasks)

        _run_in_own_loop(main())
        sampler.stop()
    finally:
        stop_server(server)
    seen = {}
    for k, s in enumerate(group):
        scores = s.widgets.get("map_scores")
        options = list(getattr(scores, "options", [])) if scores is not None else []
        models = sorted(o for o in options if o.startswith("student_"))
        seen[s.name] = {
            "seconds": round(s.ended - s.started, 2),
            "numbers": bool(s.final and s.final.metrics and not s.exceptions and not s.errors),
            "own_model_only": models == [f"student_{k}_model"],
            "models_offered": models,
        }
    return {"students": students, "rows": rows, "rss_peak_mb": round(sampler.peak),
            "uploads": seen}  # fmt: skip


def _sentence(student: Student) -> str:
    alerts = list(student.final.alerts) if student.final else []
    return next((a for a in alerts if not any(w in a for w in GENERIC)), "")


def run_server(budget_mb: float, folder: Path, log=print) -> dict:
    hostile = folder / "categorical.parquet"
    small = folder / "small.csv"
    port = free_port()
    log_path = folder / "server.log"
    server = start_server(port, budget_mb, log_path)
    try:
        idle = rss_mb(server.pid)
        sampler = RssSampler(server.pid, every=0.1)
        sampler.start()
        upload = Student("upload", port, hostile)
        second = SecondFile("second file", port, folder / "mine.csv", hostile)
        again = Again("80 kB upload", port, small)
        students = [upload, second, again]

        async def main() -> None:
            tasks = [asyncio.create_task(s.run()) for s in students]
            for s in students:
                await s.ready.wait()
            upload.go.set()
            second.go.set()
            await asyncio.sleep(0.5)  # both files are being read
            again.go.set()
            for s in students:
                await s.done.wait()
            await asyncio.gather(*tasks)

        _run_in_own_loop(main())
        sampler.stop()
        text = log_path.read_text(errors="replace")
    finally:
        stop_server(server)
    return {
        "budget_mb": budget_mb,
        "ceiling_mb": budget_mb + RSS_WATCH_MB,
        "rss_idle_mb": round(idle),
        "rss_peak_mb": round(sampler.peak),
        "small_alone_s": round(again.alone, 2),
        "small_during_s": round(again.ended - again.started, 2),
        "uploads": {
            s.name: {
                "seconds": round(s.ended - s.started, 2),
                "sentence": _sentence(s),
                "exceptions": s.exceptions,
                "errors": s.errors,
            }
            for s in students
        },
        "server_tracebacks": text.count("Traceback"),
    }


PEAK = """
import re, runpy, sys, time
from pathlib import Path
sys.argv = ["metrics-lens", *sys.argv[1:]]
began = time.monotonic()
try:
    runpy.run_module("metrics_lens", run_name="__main__")
except SystemExit as exc:
    code = exc.code
peak = int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text())[1])
print(f"BENCH {code} {peak / 1024:.0f} {time.monotonic() - began:.2f}", file=sys.stderr)
"""


def run_check(path: Path, budget_mb: float) -> dict:
    args = ["check", str(path), "--baseline", "prod", "--candidate", "new", "--metric", "auc"]
    proc = subprocess.run(
        [sys.executable, "-c", PEAK, *args], capture_output=True, text=True, cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "METRICS_LENS_BUDGET_MB": str(budget_mb),
             "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    line = next(x for x in proc.stderr.splitlines() if x.startswith("BENCH "))
    _, code, peak, seconds = line.split()
    said = next((x for x in proc.stderr.splitlines() if "error:" in x), proc.stdout[-200:])
    return {"exit": int(code), "peak_mb": int(peak), "seconds": float(seconds), "said": said}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget-mb", type=float, default=1024)
    parser.add_argument("--json", type=Path, help="also write the summary here")
    parser.add_argument("--students", type=int, default=10, help="uploading at once")
    parser.add_argument("--rows", type=int, default=200_000, help="rows of each one's table")
    parser.add_argument("--only-class", action="store_true", help="only the class at once")
    args = parser.parse_args()
    if args.only_class:
        with tempfile.TemporaryDirectory(prefix="bench_parquet_") as tmp:
            c = run_class_at_once(args.budget_mb, Path(tmp), args.students, args.rows)
        _report_class(c)
        return
    with tempfile.TemporaryDirectory(prefix="bench_parquet_") as tmp:
        folder = Path(tmp)
        data = payloads.categorical_text()
        (folder / "categorical.parquet").write_bytes(data)
        plain = pq.read_table(io.BytesIO(data), columns=["label", "prod", "new"])
        pq.write_table(plain, folder / "plain.parquet", compression="zstd")
        (folder / "small.csv").write_bytes(payloads.scores_csv(80 * 1024))
        (folder / "mine.csv").write_bytes(
            b"label,own\n" + b"".join(b"%d,0.%d\n" % (i % 2, i % 10) for i in range(1_000_000))
        )
        print(f"the file: {len(data) / 1024:.0f} kB on disk, 1,000,000 rows")
        checks = {name: run_check(folder / f"{name}.parquet", args.budget_mb)
                  for name in ("plain", "categorical")}  # fmt: skip
        c, p = checks["categorical"], checks["plain"]
        print(f"check, plain (baseline):  exit {p['exit']}, peak {p['peak_mb']} MB, "
              f"{p['seconds']:.1f} s")  # fmt: skip
        print(f"check, the file:          exit {c['exit']}, peak {c['peak_mb']} MB, "
              f"{c['seconds']:.1f} s  (ratio {c['peak_mb'] / p['peak_mb']:.2f}x RSS, "
              f"{c['seconds'] / p['seconds']:.2f}x time)\n  said: {c['said'][:200]}")  # fmt: skip
        server = run_server(args.budget_mb, folder)
    s = server
    print(f"server at {s['budget_mb']:.0f} MB (ceiling {s['ceiling_mb']:.0f} MB): RSS idle "
          f"{s['rss_idle_mb']} MB, peak {s['rss_peak_mb']} MB")  # fmt: skip
    print(
        f"80 kB upload alone {s['small_alone_s']:.2f} s, while the file is read "
        f"{s['small_during_s']:.2f} s (ratio {s['small_during_s'] / s['small_alone_s']:.2f}x)"
    )
    for name, u in s["uploads"].items():
        print(f"  {name:14} {u['seconds']:6.2f} s  {u['sentence'][:150] or 'its table'}"
              + (f"  EXCEPTIONS {u['exceptions'][:2]}" if u["exceptions"] else "")
              + (f"  ERRORS {u['errors'][:2]}" if u["errors"] else ""))  # fmt: skip
    print(f"server tracebacks: {s['server_tracebacks']}")
    with tempfile.TemporaryDirectory(prefix="bench_parquet_") as tmp:
        c = run_class_at_once(args.budget_mb, Path(tmp), args.students, args.rows)
    _report_class(c)
    if args.json:
        args.json.write_text(json.dumps({"check": checks, "server": server, "class": c}, indent=1))


def _report_class(c: dict) -> None:
    times = sorted(u["seconds"] for u in c["uploads"].values())
    ok = sum(u["numbers"] for u in c["uploads"].values())
    own = sum(u["own_model_only"] for u in c["uploads"].values())
    print(f"{c['students']} students uploading {c['rows']:,}-row tables at once: {ok} with "
          f"numbers, {own} offered only their own model; uploads {times[0]:.1f}-{times[-1]:.1f} s; "
          f"server RSS peak {c['rss_peak_mb']} MB")  # fmt: skip
    for name, u in c["uploads"].items():
        if not (u["numbers"] and u["own_model_only"]):
            print(f"  {name}: {u}")


if __name__ == "__main__":
    main()
