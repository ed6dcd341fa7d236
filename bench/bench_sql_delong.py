"""Benchmark metrics.sql.delong: DeLong's paired pass, and with a user column the clustered
(Obuchowski) sums it adds, on Parquet written by DuckDB.

Run from the repository root::

    .venv/bin/python -m bench.bench_sql_delong                 # 1e6 and 1e7 rows, 1e5 users
    .venv/bin/python -m bench.bench_sql_delong --sizes 1e6 --users 1000

Prints, per size, the seconds of the pass without and with ``group`` and their ratio (the
clustered sums are one more GROUP BY over the joined rows), and up to ``--check-max`` rows the
largest relative difference of the standard errors and z from :func:`metrics.clustered_auc_test`
on the same rows loaded into numpy. Nothing asserts on time.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import metrics
from metrics.sql import delong


def write_parquet(path: Path, n: int, users: int) -> None:
    import duckdb

    duckdb.sql(
        f"""
        COPY (
          SELECT y, round(random() + 0.35 * y + 0.3 * u, 3) AS a,
                 round(random() + 0.25 * y + 0.3 * u, 3) AS b, user_id FROM (
            SELECT CAST(random() < 0.3 AS INTEGER) AS y, user_id, hash(user_id) % 7 / 7.0 AS u
            FROM (SELECT CAST(floor(random() * {users}) AS BIGINT) AS user_id FROM range({n}))
          )
        ) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)
        """
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1e6,1e7")
    p.add_argument("--users", type=int, default=100_000)
    p.add_argument("--check-max", type=float, default=1e6)
    args = p.parse_args(argv)
    print(f"{'rows':>12} {'DeLong s':>9} {'+ users s':>10} {'ratio':>6} {'max rel diff':>13}")
    for n in [int(float(s)) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "t.parquet"
            write_parquet(path, n, args.users)
            t0 = time.perf_counter()
            plain = delong(str(path), "y", ["a", "b"])
            t1 = time.perf_counter()
            clustered = delong(str(path), "y", ["a", "b"], group="user_id")
            t2 = time.perf_counter()
            diff = "-"
            if n <= args.check_max:
                import pandas as pd

                t = pd.read_parquet(path)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = metrics.clustered_auc_test(t.y, t.a, t.b, groups=t.user_id)
                got = clustered.clustered("a", "b")
                diff = max(
                    abs(getattr(got, f) - getattr(want, f)) / abs(getattr(want, f))
                    for f in ("std_error_a", "std_error_b", "std_error", "z")
                )
                diff = f"{diff:.1e}"
            assert plain.clusters is None
        ratio = (t2 - t1) / (t1 - t0)
        print(f"{n:>12,} {t1 - t0:>9.2f} {t2 - t1:>10.2f} {ratio:>6.2f} {diff:>13}")


if __name__ == "__main__":
    main()
