"""A Spark standalone cluster on 127.0.0.1 from the installed pyspark, and what crosses its
network: ``python -m bench.bench_sql_cluster [--rows 1000000]``.

:class:`StandaloneCluster` starts a master and two workers (each its own JVM, one core, small
memory) with ``spark-class``, on ports picked free at run time, and waits for the workers to
register by polling the master's JSON endpoint (``/json/``); :func:`connect_server` starts a
Spark Connect server (the ``spark-connect`` jar ships in pyspark's ``jars/``) whose driver runs
on that cluster. Every JVM is in its own process group, killed on exit. tests/test_sql_cluster.py
uses both; run as a script, this measures each stage's shuffle writes of ``metrics.sql`` from
Spark's own REST API (``/api/v1/applications/<app>/stages``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).resolve().parent
WORKERS = 2
DAEMON_MEMORY = "256m"  # the master's and each worker's own JVM
WORKER_MEMORY = "768m"  # what a worker offers its executor
EXECUTOR_MEMORY = "512m"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get_json(url: str, timeout: float = 60.0):
    with urllib.request.urlopen(url, timeout=timeout) as r:  # 127.0.0.1 only
        return json.loads(r.read().decode())


def _reap(p: subprocess.Popen) -> None:
    """Wait for ``p`` (already sent SIGTERM) to exit; after 20 s kill its process group."""
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=10)


def _env(base: Path) -> dict:
    conf = base / "conf"
    conf.mkdir(exist_ok=True)
    return {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_CONF_DIR": str(conf),  # empty: no site defaults leak in
        "SPARK_LOG_DIR": str(base / "logs"),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_DAEMON_MEMORY": DAEMON_MEMORY,
        "SPARK_WORKER_DIR": str(base / "work"),
        "PYSPARK_PYTHON": sys.executable,
    }


class StandaloneCluster:
    """A master and ``workers`` workers of one core each, on 127.0.0.1.

    ``url`` is the master's ``spark://127.0.0.1:PORT``; :meth:`session` gives a SparkSession
    whose executors run on the workers. Use as a context manager: every JVM is stopped on exit
    (SIGTERM to its process group, SIGKILL after 20 s)."""

    def __init__(self, base: Path | None = None, workers: int = WORKERS) -> None:
        self._own = base is None
        self.base = Path(tempfile.mkdtemp(prefix="metrics-lens-spark-")) if base is None else base
        self.workers = workers
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self.port, self.ui = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.env = _env(self.base)

    def _spawn(self, name: str, args: list[str], env: dict | None = None) -> subprocess.Popen:
        log = (self.base / f"{name}.log").open("wb")
        p = subprocess.Popen(
            args, env={**self.env, **(env or {})}, stdout=log, stderr=subprocess.STDOUT,
            cwd=self.base,
            start_new_session=True,  # its own process group: stopped as a whole
        )  # fmt: skip
        log.close()
        self.procs.append((name, p))
        return p

    def log_tail(self, name: str, lines: int = 15) -> str:
        """The last ``lines`` lines of a JVM's log, stack frames left out, so that the
        exception's own message shows."""
        path = self.base / f"{name}.log"
        text = path.read_text(errors="replace").splitlines() if path.exists() else []
        said = [t for t in text if not t.lstrip().startswith(("at ", "..."))]
        return "\n".join(said[-lines:])

    def start(self, timeout: float = 240.0) -> StandaloneCluster:
        spark_class = str(SPARK_HOME / "bin" / "spark-class")
        self._spawn("master", [spark_class, "org.apache.spark.deploy.master.Master",
                               "--host", "127.0.0.1", "--port", str(self.port),
                               "--webui-port", str(self.ui)])  # fmt: skip
        for i in range(self.workers):
            work = self.base / f"work{i}"
            work.mkdir(exist_ok=True)
            self._spawn(f"worker{i}", [spark_class, "org.apache.spark.deploy.worker.Worker",
                                       "--host", "127.0.0.1", "--port", str(free_port()),
                                       "--webui-port", str(free_port()), "--cores", "1",
                                       "--memory", WORKER_MEMORY, "--work-dir", str(work),
                                       self.url])  # fmt: skip
        self.wait_for(lambda s: s.get("aliveworkers", 0) >= self.workers, timeout, "workers")
        return self

    def status(self) -> dict:
        return _get_json(f"http://127.0.0.1:{self.ui}/json/")

    def wait_for(self, ready, timeout: float, what: str) -> dict:
        """Poll the master's JSON until ``ready(status)``; fail with the logs when a JVM exits
        or ``timeout`` passes."""
        deadline = time.monotonic() + timeout
        while True:
            for name, p in self.procs:
                if p.poll() is not None:
                    raise RuntimeError(f"{name} exited with {p.returncode}:\n{self.log_tail(name)}")
            with contextlib.suppress(OSError, ValueError):
                status = self.status()
                if ready(status):
                    return status
            if time.monotonic() > deadline:
                logs = "\n".join(f"--- {n}\n{self.log_tail(n)}" for n, _ in self.procs)
                raise TimeoutError(
                    f"the cluster's {what} were not ready in {timeout:.0f} s\n{logs}"
                )
            time.sleep(0.25)  # the next poll of the master's state

    def session(self, app: str = "metrics-lens-cluster", partitions: int = 4):
        """A SparkSession on this cluster: one executor per worker (1 core, 512 MB), its web UI
        (and REST API) on a free port, ``spark.ui_port`` set on the session for the caller."""
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        from pyspark.sql import SparkSession

        ui = free_port()
        session = (
            SparkSession.builder.master(self.url)
            .appName(app)
            .config("spark.executor.cores", "1")
            .config("spark.executor.memory", EXECUTOR_MEMORY)
            .config("spark.cores.max", str(self.workers))
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.ui.enabled", "true")  # a local session before, in this process, may
            .config("spark.ui.port", str(ui))  # have turned it off (metrics.sql.local_spark)
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", str(partitions))
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate()
        )
        if session.sparkContext.master != self.url:
            master = session.sparkContext.master
            session.stop()
            raise RuntimeError(f"a Spark session on {master} was already running in this process")
        session.sparkContext.setLogLevel("ERROR")
        return session

    def executors_on_workers(self, app_name: str, count: int, timeout: float = 120.0) -> dict:
        """Wait until the app ``app_name`` holds ``count`` executors (one per worker)."""

        def ready(s):
            return any(
                a.get("name") == app_name and a.get("cores", 0) >= count
                for a in s.get("activeapps", [])
            )

        return self.wait_for(ready, timeout, f"executors of {app_name}")

    def stop(self) -> None:
        for _, p in reversed(self.procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for _, p in reversed(self.procs):
            _reap(p)
        self.procs.clear()
        if self._own:
            shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self) -> StandaloneCluster:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()


@contextlib.contextmanager
def connect_server(cluster: StandaloneCluster, timeout: float = 240.0) -> Iterator[tuple[str, int]]:
    """A Spark Connect server whose driver runs on ``cluster``: yields ``(sc://127.0.0.1:PORT,
    its web UI port)``, ready when a client can reach it; stopped (process group) on exit."""
    port, ui = free_port(), free_port()
    submit = str(SPARK_HOME / "bin" / "spark-submit")
    name = "connect"
    p = cluster._spawn(name, [
        submit, "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
        "--name", "metrics-lens-connect", "--master", cluster.url,
        "--conf", f"spark.connect.grpc.binding.port={port}",
        "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
        "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
        "--conf", f"spark.ui.port={ui}", "--conf", "spark.executor.cores=1",
        "--conf", f"spark.executor.memory={EXECUTOR_MEMORY}",
        "--conf", f"spark.cores.max={cluster.workers}", "--conf", "spark.driver.memory=1g",
        "--conf", "spark.sql.shuffle.partitions=4", "--conf", "spark.sql.session.timeZone=UTC",
    ], env={"SPARK_DAEMON_MEMORY": "1g"})  # fmt: skip
    # The launcher sizes the Connect server's heap as a daemon's (SPARK_DAEMON_MEMORY, not
    # --driver-memory), and a driver refuses to start below 450 MB.
    try:
        cluster.executors_on_workers("metrics-lens-connect", cluster.workers, timeout)
        deadline = time.monotonic() + timeout
        while True:  # the gRPC port opens after the driver has its executors
            if p.poll() is not None:
                raise RuntimeError(f"the Connect server exited:\n{cluster.log_tail(name)}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"Spark Connect did not open port {port}")
            time.sleep(0.25)  # the next look at the port
        yield f"sc://127.0.0.1:{port}", ui
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
        _reap(p)
        cluster.procs = [(n, q) for n, q in cluster.procs if q is not p]


def shuffle_stages(ui_port: int) -> list[dict]:
    """Every completed stage of the application behind ``ui_port``, from Spark's REST API: id,
    name, tasks, shuffle bytes written, and the most one task (one partition) wrote."""
    base = f"http://127.0.0.1:{ui_port}/api/v1/applications"
    app = _get_json(base)[0]["id"]
    out = []
    for st in _get_json(f"{base}/{app}/stages?status=complete"):
        tasks = _get_json(
            f"{base}/{app}/stages/{st['stageId']}/{st['attemptId']}/taskList?length=10000"
        )
        per_task = [t.get("taskMetrics", {}).get("shuffleWriteMetrics", {}).get("bytesWritten", 0)
                    for t in tasks]  # fmt: skip
        out.append({
            "stage": st["stageId"], "name": st["name"].split(" at ")[0],
            "tasks": st["numTasks"], "input_rows": st.get("inputRecords", 0),
            "shuffle_write_bytes": st.get("shuffleWriteBytes", 0),
            "shuffle_write_rows": st.get("shuffleWriteRecords", 0),
            "max_task_write_bytes": max(per_task, default=0),
        })  # fmt: skip
    return sorted(out, key=lambda r: r["stage"])


def table(n: int, seed: int = 0, users: int | None = None):
    """``n`` rows with ties and users: ``y``, ``rounded`` (4 decimals), ``coarse`` (2), ``user``."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    users = users or max(2, n // 10)
    y = (rng.random(n) < 0.3).astype(np.int8)
    u = rng.integers(0, users, n)
    return pd.DataFrame({
        "y": y, "user": u,
        "rounded": np.round(rng.normal(size=n) + 0.8 * y, 4),
        "coarse": np.round(rng.normal(size=n) + 0.5 * y + rng.normal(size=users)[u], 2),
    })  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--files", type=int, default=4, help="Parquet files (input partitions)")
    args = p.parse_args()
    from metrics.sql import summarize

    with tempfile.TemporaryDirectory() as tmp, StandaloneCluster() as cluster:
        t = table(args.rows)
        paths = []
        for i, part in enumerate(range(0, args.rows, -(-args.rows // args.files))):
            path = Path(tmp) / f"part{i}.parquet"
            t.iloc[part : part + -(-args.rows // args.files)].to_parquet(path)
            paths.append(str(path))
        session = cluster.session()
        ui = int(session.conf.get("spark.ui.port"))
        try:
            for group in (None, "user"):
                started = time.monotonic()
                before = {r["stage"] for r in shuffle_stages(ui)}
                s = summarize(paths, "y", ["rounded", "coarse"], group=group, engine="spark",
                              spark=session)  # fmt: skip
                took = time.monotonic() - started
                stages = [r for r in shuffle_stages(ui) if r["stage"] not in before]
                total = sum(r["shuffle_write_bytes"] for r in stages)
                print(f"\n{args.rows:,} rows in {len(paths)} files, group={group}: {took:.1f} s, "
                      f"shuffle writes {total / 1e6:.2f} MB "
                      f"({total / args.rows:.2f} bytes per row); AUC "
                      + ", ".join(f"{k} {m.auc:.6f}" for k, m in s.models.items()))  # fmt: skip
                print("stage | name | tasks | input rows | shuffle rows | shuffle bytes | max/task")
                for r in stages:
                    if r["shuffle_write_bytes"]:
                        print(f"{r['stage']} | {r['name']} | {r['tasks']} | {r['input_rows']:,} | "
                              f"{r['shuffle_write_rows']:,} | {r['shuffle_write_bytes']:,} | "
                              f"{r['max_task_write_bytes']:,}")  # fmt: skip
        finally:
            session.stop()


if __name__ == "__main__":
    main()
