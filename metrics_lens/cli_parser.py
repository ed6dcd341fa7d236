"""The parser of the ``metrics-lens`` command: every subcommand's options, their bounds and help
texts, in one place (``metrics_lens.cli`` runs what it parses; a command reference can be drawn
from :func:`_parser` without running anything).
"""

from __future__ import annotations

import argparse

from metrics._bounds import MAX_RESAMPLES

# Bounds every command enforces before it works (issue 32): a bad value exits 2 with a sentence.
MIN_RESAMPLES = 100  # and at most the library's bound (1e9 resamples asked for 15 GiB at once)
MAX_SEED = 2**32 - 1
MAX_SLICES = 200  # --slice: one row mask and one bootstrap per value

CHECK_EPILOG = """\
How the gate decides. Both models are scored on the same bootstrap resamples (Poisson counts per
row; with --group, per whole group, since rows of one user or query are not independent; gauc
always resamples groups). For each metric d = candidate - baseline on every resample; U is the
(1 - alpha) quantile of d and L the alpha quantile: one-sided (1 - alpha) bounds.
  default   exit 1 when U < -max_drop: at confidence 1 - alpha the candidate is worse than the
            baseline by more than the allowed drop. Equal models pass.
  --strict  non-inferiority: exit 0 only when L >= -max_drop, i.e. the data show the candidate
            is not worse by more than the allowed drop (give a margin with --max-drop).
Every metric is higher-is-better. With --slice COL the gate also runs on each value of COL and
fails when any slice fails; slices where the metric is undefined (one class) are listed as
skipped. The k tests (metrics x slices) are one family, named in the output: by default each
bound is at alpha / k (Bonferroni), so a wrong FAIL anywhere stays at most alpha; --strict
needs every test to pass, which keeps a wrong PASS at alpha with each bound at alpha.
Never a pass on an undefined value: a candidate that cannot reach what the baseline
reaches (recall@precision=P with its precision never at P) fails; undefined for the baseline or
the data on all rows, the gate refuses (exit 2). Exit status: 0 passed, 1 failed, 2 bad input
or undefined.

Metrics: auc, ap, gauc (needs --group), f1@T (F1 predicting positive when score >= T),
recall@precision=P (the highest recall at precision >= P).

Bounds, checked before any work (exit 2 beyond them): --resamples 100 to 100,000; --seed 0 to
4,294,967,295; --slice on a column of at most 200 distinct values; FILE a regular file of at
most a quarter of METRICS_LENS_BUDGET_MB (default 1024 MB) on disk and decompressed, at most
1,000 columns and a header row of at most 100,000 characters.
"""

FAMILY_HELP = (
    "what the verdicts rest on, declared before looking: a primary metric (auc, the default; "
    "ap, pauc, gauc, brier, log-loss), the others exploratory; or all (Holm across metrics x "
    "pairs)"
)

FILE_HELP = (
    "a CSV or Parquet predictions table: exactly that file (never a glob), a regular file of at "
    "most a quarter of METRICS_LENS_BUDGET_MB (default 1024 MB) on disk and decompressed, "
    "1,000 columns and a 100,000-character header"
)


def _bounded(flag: str, low: int, high: int):
    """An argparse type: a whole number from ``low`` to ``high`` (an error names the bounds)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:,} to {high:,}, got {value:,}")
        return value

    return parse


def _timeout(text: str) -> float:
    """An argparse type: --mlflow-timeout's seconds, above 0 and at most an hour."""
    from metrics_lens.mlflow_source import MAX_TIMEOUT, check_timeout

    try:
        return check_timeout(float(text))
    except ValueError:  # float("x"), or BadInput (a ValueError) for nan, inf, 0, 1e308...
        raise argparse.ArgumentTypeError(
            f"takes seconds above 0 and at most {MAX_TIMEOUT:,.0f} (an hour), got {text!r}"
        ) from None


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2), as every other bad input."""

    def error(self, message: str):
        hint = ""
        unknown = message.partition("unrecognized arguments: ")[2].split()
        named = [a for a in unknown if a.startswith("-") and not a.startswith("--") and "." in a]
        if named:  # a file whose name starts with "-" reads as an option
            hint = f"; give a file whose name starts with - as ./{named[0]}, or after --"
        self.exit(2, f"{self.prog}: error: {message}{hint} (see {self.prog} --help)\n")


def _resampling_options(p: argparse.ArgumentParser) -> None:
    """The bootstrap's --resamples and --seed, as report and check take them."""
    p.add_argument(
        "--resamples",
        type=_bounded("--resamples", MIN_RESAMPLES, MAX_RESAMPLES),
        default=1000,
        help="bootstrap resamples, 100 to 100,000 (1000)",
    )
    p.add_argument(
        "--seed", type=_bounded("--seed", 0, MAX_SEED), default=0, help="0 to 4,294,967,295 (0)"
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="one line per step on stderr, wherever it goes (a terminal shows a progress line "
        "without it)",
    )


def _table_options(p: argparse.ArgumentParser, *, file_nargs: str = "?") -> None:
    p.add_argument("--label", help="the label column (guessed when omitted)")
    p.add_argument(
        "--score",
        action="extend",
        nargs="+",
        metavar="S",
        help="score column(s), one per model (guessed when omitted)",
    )
    p.add_argument(
        "--group",
        help="a user or query id column: adds GAUC, resamples groups (default: the column the "
        "dashboard would guess, such as user_id; 'none' for no group)",
    )
    p.add_argument(
        "--weight",
        help="a sample weight column (default: one named like a weight; 'none' for no weights)",
    )
    p.add_argument(
        "--pos-label",
        help="the positive class, when it is not guessed right; '>0' or '>=3' makes every "
        "numeric label above the cut positive (graded relevance)",
    )
    p.add_argument(
        "--drop-bad-rows",
        action="store_true",
        help="drop rows with a missing or bad value instead of refusing",
    )
    p.add_argument(
        "--mlflow-run",
        metavar="RUN_ID",
        help="read the predictions table logged by this MLflow run instead of FILE",
    )
    p.add_argument(
        "--tracking-uri",
        metavar="URI",
        help="MLflow tracking URI (file:, sqlite:, http:, https:), read only; default "
        "MLFLOW_TRACKING_URI, else ./mlruns or sqlite:///mlflow.db when present",
    )
    p.add_argument(
        "--artifact", metavar="PATH", help="the run's table artifact, when it logged several"
    )
    p.add_argument(
        "--mlflow-timeout",
        type=_timeout,
        default=60.0,
        metavar="SECONDS",
        help="the most a read from a tracking server may take, every request together, with "
        "no retries: above 0 and at most 3600 (default 60); its answers are read up to 16 MB, "
        "the table up to 1 GB",
    )


def _version() -> str:
    from metrics_lens._version import __version__

    return f"metrics-lens {__version__}"


# --- input -----------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="metrics-lens",
        description="Metrics Lens: the dashboard, an offline HTML report, a CI metric gate and "
        "exact metrics of large tables. Run `metrics-lens COMMAND --help` for each.",
    )
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    a = sub.add_parser(
        "app",
        help="start the dashboard with file(s) loaded",
        description="Start the dashboard with FILE(s) already loaded (the first "
        "one shown; the others listed under Server dataset). Roles are guessed as "
        "for uploads unless given.",
    )
    a.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="CSV or Parquet files (or .npz summaries of python -m metrics.sql), each exactly "
        "that file, never a glob. The first opens at the printed address: as rows, as if "
        "uploaded, when it fits a quarter of the uploads' share of METRICS_LENS_BUDGET_MB "
        "(192 MB by default); a larger CSV or Parquet file through the engine (DuckDB)",
    )
    a.add_argument(
        "--qrels",
        metavar="QRELS",
        help="TREC qrels (or JSON/CSV): the FILEs are then runs (TREC, Parquet/CSV or JSON, two "
        "or more) and the dashboard opens on the Runs page with them",
    )
    a.add_argument(
        "--gt",
        metavar="GT",
        help="object-detection ground truth (COCO JSON, a box table or a zip of YOLO labels): "
        "the FILEs are then detection files (one or more) and the dashboard opens on the "
        "Detection page with them",
    )
    a.add_argument("--port", type=int, help="port (default: 8501 or the next free one)")
    a.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    a.add_argument("--no-browser", action="store_true", help="do not open a browser")
    _table_options(a)

    r = sub.add_parser(
        "report",
        help="write a self-contained HTML report",
        description="Write one self-contained HTML file (plotly inline, opens "
        "offline): dataset, metrics with bootstrap intervals, ROC and PR curves, "
        "confusion matrices at each threshold, AP methods, GAUC, verdicts, "
        "settings.",
    )
    r.add_argument("file", nargs="?", metavar="FILE", help=FILE_HELP)
    r.add_argument(
        "-o", "--output", required=True, metavar="report.html", help="never the input file"
    )
    r.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="MODEL=T",
        help="a model's threshold (repeat); default per the score's scale",
    )
    _resampling_options(r)
    r.add_argument("--max-fpr", type=float, default=0.1, help="partial AUC's FPR limit (0.1)")
    r.add_argument("--family", default="auc", metavar="METRIC", help=FAMILY_HELP)
    _table_options(r)

    c = sub.add_parser(
        "check",
        help="gate a candidate model against a baseline (CI)",
        description="Exit 0 when the candidate is not worse than the baseline "
        "beyond the allowed drop, 1 when it is, 2 on bad input.",
        epilog=CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("file", nargs="?", metavar="FILE", help=FILE_HELP)
    c.add_argument("--baseline", required=True, metavar="A", help="the baseline's score column")
    c.add_argument("--candidate", required=True, metavar="B", help="the candidate's score column")
    c.add_argument(
        "--metric",
        action="append",
        required=True,
        metavar="M",
        help="auc | ap | gauc | f1@T | recall@precision=P | 'recall@precision>=P@C%%' "
        "(pass when a threshold holds precision >= P with C%% confidence; also precision@"
        "recall>=P@C%%, specificity, npv, fpr<=P) (repeat)",
    )
    c.add_argument(
        "--max-drop",
        type=float,
        default=0.0,
        help="allowed drop of candidate - baseline (default 0)",
    )
    c.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="one-sided bounds at confidence 1 - alpha (default 0.05)",
    )
    c.add_argument(
        "--slice",
        metavar="COL",
        help=f"also gate every value of this column (at most {MAX_SLICES} distinct values)",
    )
    c.add_argument(
        "--strict",
        action="store_true",
        help="non-inferiority: pass only when the lower bound is >= -max_drop",
    )
    c.add_argument(
        "--rows-independent",
        action="store_true",
        help="with --group: resample rows, not groups, for all but gauc",
    )
    _resampling_options(c)
    c.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    _table_options(c)

    sub.add_parser(
        "sql",
        help="exact metrics of large tables (python -m metrics.sql); takes a glob",
        add_help=False,
    )
    sub.add_parser(
        "detection",
        help="COCO box AP of detections (pycocotools' 12 numbers) and other conventions' AP; "
        "check --gt GT BASELINE CANDIDATE gates two detectors",
        add_help=False,
    )
    return p
