"""The two engines the SQL summaries run on: DuckDB in this process and Spark (a session or a
local one), each a connection with the same small surface (register the sources, list their
columns, run a query into rows or numpy arrays, stream a sorted query in batches).

Below :mod:`metrics.sql._engine`, which builds the passes of a summary on either engine and
re-exports every name here.
"""

from __future__ import annotations

import os
import queue
import re
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from metrics.sql import _queries as q
from metrics.sql._inputs import (
    Sources,
    SQLInputError,
    describe,
    literal,
    memory_bytes,
    resolve_files,
)
from metrics.sql._inputs import (
    memory_limit as checked_memory_limit,
)

# --- engines ---------------------------------------------------------------------------------


BUCKETS = 1024  # score ranges of Spark's two-level running sums
STREAM_BATCH = 1 << 20  # rows per batch of a sorted stream (DuckDB rounds it to its vectors)

Source = str | os.PathLike | Sequence[str | os.PathLike]  # a path or glob, or a list of files


class DuckDBEngine:
    name = "duckdb"
    dialect = q.DUCKDB

    def __init__(self, memory_limit: str | None = None, threads: int | None = None) -> None:
        import duckdb

        self._duckdb = duckdb
        self.sources: Sources | None = None
        limit = checked_memory_limit(memory_limit) if memory_limit is not None else None
        self.con = duckdb.connect()
        # DuckDB's own default: 80% of the machine's memory
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        self.memory = memory_bytes(limit) if limit else 0.8 * pages
        self.limit = limit
        if limit:
            self.con.execute("SET memory_limit = ?", [limit])
        if threads:
            self.con.execute("SET threads = ?", [int(threads)])
        self.con.execute("SET preserve_insertion_order = false")
        # Spill under the system's temporary directory, not into the working directory (.tmp).
        self.spill = os.path.join(tempfile.gettempdir(), f"metrics-lens-duckdb-{os.getpid()}")
        self.con.execute("SET temp_directory = ?", [self.spill])

    def register(self, source: Source, ordered: bool = False) -> None:
        """The view ``src`` of exactly the files ``source`` names (see
        :func:`metrics.sql._inputs.resolve_files`); with ``ordered``, plus ``__file`` and
        ``__row``, the position of each row in the files (for ties in row order)."""
        files = resolve_files(source)
        self.sources = Sources(files)
        paths = "[" + ", ".join(literal(p) for p in self.sources.paths) + "]"
        parquet = _is_parquet(files)
        reader = "read_parquet" if parquet else "read_csv_auto"
        select = f"SELECT * FROM {reader}({paths})"
        if ordered and parquet:
            select = (
                "SELECT * EXCLUDE (filename, file_row_number), filename AS __file, "
                f"file_row_number AS __row FROM {reader}({paths}, filename = true, "
                "file_row_number = true)"
            )
        elif ordered:  # CSV: loaded in file order into a table, whose rowid keeps that order
            self.con.execute("SET preserve_insertion_order = true")
            try:
                self.con.execute(
                    "CREATE OR REPLACE TEMP TABLE src_rows AS SELECT * EXCLUDE (filename), "
                    f"filename AS __file FROM {reader}({paths}, filename = true)"
                )
            except self._duckdb.Error as exc:
                said = self._explain(exc, f"cannot read {describe(source)}: ")
                raise SQLInputError(said) from None
            select = "SELECT *, rowid AS __row FROM src_rows"
        try:
            self.con.execute(f"CREATE OR REPLACE VIEW src AS {select}")
            self.con.execute("SELECT * FROM src LIMIT 0")
        except self._duckdb.Error as exc:
            raise SQLInputError(f"cannot read {describe(source)}: {_first_line(exc)}") from None

    def _explain(self, exc: BaseException, prefix: str = "") -> str:
        """One line for an engine error: a CSV cell that is not a number names its file, line,
        column and value, and says how to fix it."""
        return _csv_cell_error(str(exc), self.sources) or prefix + _first_line(exc)

    def columns(self) -> dict[str, str]:
        return {r[0]: str(r[1]).upper() for r in self.rows("DESCRIBE src")}

    def rows(self, sql: str) -> list[tuple]:
        try:
            return self.con.execute(sql).fetchall()
        except self._duckdb.Error as exc:
            raise SQLInputError(self._explain(exc)) from None

    def view(self, name: str, sql: str, materialize: bool = False) -> None:
        kind = "TEMP TABLE" if materialize else "TEMP VIEW"
        try:
            self.con.execute(f"CREATE OR REPLACE {kind} {name} AS {sql}")
        except self._duckdb.Error as exc:
            raise SQLInputError(self._explain(exc)) from None

    def drop(self, name: str) -> None:
        self.con.execute(f"DROP TABLE IF EXISTS {name}")
        self.con.execute(f"DROP VIEW IF EXISTS {name}")

    def arrays(self, sql: str) -> dict[str, np.ndarray]:
        try:
            out = self.con.execute(sql).fetchnumpy().items()
        except self._duckdb.Error as exc:
            raise SQLInputError(self._explain(exc)) from None
        return {k: v if isinstance(v, np.ma.MaskedArray) else np.asarray(v) for k, v in out}

    def cumulative(self, counts: str, n_rows: int) -> str:
        return q.cumulative(counts)

    def stream(self, sql: str, batch: int | None = None):
        """The rows of ``sql`` in batches of numpy arrays, one per column, in its order.

        A thread reads the batches (DuckDB and Arrow release the GIL) while the caller reduces
        the previous ones, two at most waiting: the second core is not idle during numpy."""
        try:
            reader = self.con.sql(sql).to_arrow_reader(batch or STREAM_BATCH)
        except self._duckdb.Error as exc:
            raise SQLInputError(self._explain(exc)) from None
        done = object()
        ready: queue.Queue = queue.Queue(maxsize=2)
        stop = threading.Event()

        def offer(item) -> bool:  # False once the caller has stopped reading
            while not stop.is_set():
                try:
                    ready.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        def read() -> None:
            try:
                for b in reader:
                    cols = [
                        b.column(i).to_numpy(zero_copy_only=False) for i in range(b.num_columns)
                    ]
                    if not offer(cols):
                        return
                offer(done)
            except BaseException as exc:  # handed to the caller
                offer(exc)

        reading = threading.Thread(target=read, name="metrics-sql-stream", daemon=True)
        reading.start()
        try:
            while True:
                item = ready.get()
                if item is done:
                    break
                if isinstance(item, self._duckdb.Error):
                    raise SQLInputError(self._explain(item)) from None
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            reading.join()
            reader.close()


class SparkEngine:
    name = "spark"
    dialect = q.SPARK

    def __init__(self, spark=None) -> None:
        if spark is None:
            spark = local_spark()
        self.spark = spark
        self.sources: Sources | None = None

    def register(self, source: Source, ordered: bool = False) -> None:
        """The view ``src`` of exactly the files ``source`` names (Hadoop's reader expands
        globs and braces in a path: a path that holds one is read through a link)."""
        files = resolve_files(source)
        self.sources = Sources(files)
        paths = self.sources.paths
        reader = self.spark.read
        try:
            if _is_parquet(files):
                frame = reader.parquet(*paths)
            else:
                frame = reader.option("header", True).option("inferSchema", True).csv(paths)
        except Exception as exc:
            raise SQLInputError(f"cannot read {describe(source)}: {_first_line(exc)}") from None
        if ordered:  # the file, and an id increasing along each file's splits
            from pyspark.sql import functions as F

            frame = frame.withColumn("__file", F.input_file_name()).withColumn(
                "__row", F.monotonically_increasing_id()
            )
        frame.createOrReplaceTempView("src")

    def columns(self) -> dict[str, str]:
        return {f.name: f.dataType.simpleString().upper() for f in self.spark.table("src").schema}

    def rows(self, sql: str) -> list[tuple]:
        try:
            return [tuple(r) for r in self.spark.sql(sql).collect()]
        except Exception as exc:
            raise SQLInputError(_first_line(exc)) from None

    def view(self, name: str, sql: str, materialize: bool = False) -> None:
        frame = self.spark.sql(sql)
        if materialize:
            frame = frame.persist()
        frame.createOrReplaceTempView(name)

    def drop(self, name: str) -> None:
        if self.spark.catalog.tableExists(name):
            self.spark.table(name).unpersist()
        self.spark.catalog.dropTempView(name)

    def arrays(self, sql: str) -> dict[str, np.ndarray]:
        frame = self.spark.sql(sql)
        rows = frame.collect()
        return {c: np.array([r[i] for r in rows]) for i, c in enumerate(frame.columns)}

    def cumulative(self, counts: str, n_rows: int) -> str:
        """Two-level running sums: range offsets computed here, windows per range."""
        lo, hi = self.rows(f"SELECT MIN(s), MAX(s) FROM {counts}")[0]
        totals = self.rows(q.bucket_totals(counts, BUCKETS, lo, hi))
        totals.sort()
        tp0 = fp0 = 0
        values = []
        for bucket, pos, neg in totals:
            values.append(f"({int(bucket)}, {tp0!r}, {fp0!r})")
            tp0 += pos
            fp0 += neg
        offsets = "SELECT * FROM VALUES " + ", ".join(values) + " AS offsets(bucket, tp0, fp0)"
        return q.two_level_cumulative(counts, offsets, BUCKETS, lo, hi)

    def plan(self, sql: str) -> str:
        return self.spark.sql(sql)._jdf.queryExecution().executedPlan().toString()


def start_engine(engine: str, memory_limit: str | None = None, spark=None):
    """A DuckDB connection (with ``memory_limit``) or Spark (``spark``, or local[2]).

    ``memory_limit`` is checked by :func:`metrics.sql._inputs.memory_limit` whichever the engine
    (Spark ignores it), so a bad setting is refused the same way everywhere."""
    if memory_limit is not None:
        memory_limit = checked_memory_limit(memory_limit)
    if engine == "duckdb":
        return DuckDBEngine(memory_limit)
    if engine == "spark":
        return SparkEngine(spark)
    raise SQLInputError(f"engine must be duckdb or spark, got {engine!r}.")


def local_spark(partitions: int = 4):
    """A local[2] SparkSession bound to the loopback address, without its web UI."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName("metrics-lens")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", str(partitions))
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )


def spark_session(master: str):
    """A SparkSession for ``master``: ``local[2]`` (:func:`local_spark`), a cluster's URL
    (``spark://host:7077``, ``yarn``, ``k8s://...``: this process is the driver), or Spark
    Connect's ``sc://host:15002`` (a thin client: the driver is the Connect server)."""
    if master.startswith("local"):
        return local_spark() if master == "local[2]" else local_spark_master(master)
    if master.startswith("sc://"):
        from pyspark.sql import SparkSession

        return SparkSession.builder.remote(master).getOrCreate()
    return local_spark_master(master)


def local_spark_master(master: str):
    """A SparkSession on ``master`` with this process as the driver, its web UI off."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master(master)
        .appName("metrics-lens")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )


_CSV_LINE = re.compile(r"CSV Error on Line: (\d+)")
_CSV_CELL = re.compile(
    r'Error when converting column "(.*?)"\. Could not convert string "(.*?)" to \'(\w+)\''
)
_CSV_FILE = re.compile(r"^\s*file = (.*)$", re.MULTILINE)
_CSV_SAMPLE = re.compile(r"^\s*sample_size = (\d+)", re.MULTILINE)


def _csv_cell_error(text: str, sources: Sources | None) -> str | None:
    """DuckDB's many-line CSV conversion error as one line naming the file, the line, the column
    and the value, and saying how to fix it; None for any other error."""
    line, cell = _CSV_LINE.search(text), _CSV_CELL.search(text)
    if not (line and cell):
        return None
    column, value, kind = cell.groups()
    where = _CSV_FILE.search(text)
    file = where.group(1).strip() if where else ""
    if sources is not None and file in sources.paths:
        file = sources.files[sources.paths.index(file)]
    sample = _CSV_SAMPLE.search(text)
    read = f"the first {int(sample.group(1)):,} rows" if sample else "the first rows"
    shown = value if len(value) <= 40 else value[:40] + "..."
    return (
        f"{Path(file).name or 'the CSV file'}, line {int(line.group(1)):,}: column {column!r} "
        f"holds {shown!r}, not a number ({read} were read as {kind}); fix that cell, or empty it "
        "(an empty cell is missing and its row is dropped)."
    )


def _is_parquet(files: Sequence[str]) -> bool:
    return all(Path(f).suffix.lower() in (".parquet", ".pq", ".parq") for f in files)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
