"""``metrics-lens check --qrels QRELS BASELINE_RUN CANDIDATE_RUN --metric M``: the retrieval gate.

Reads a qrels file and two runs (TREC files, gzip too, Parquet/CSV tables or ranx/ir_measures
JSON), computes trec_eval's per-query values and a paired test over the queries both runs
answered (:func:`metrics.compare_runs`), and exits

* 1 when the candidate is significantly worse than the baseline on a metric (p adjusted over
  the metrics by Holm below ``--alpha``, difference below 0), or when its mean drops more than
  ``--max-drop`` below the baseline's;
* 0 otherwise;
* 2 on bad input, with one line saying what is wrong.

``metrics_lens.cli`` hands the command here when ``--qrels`` is given, so the table-of-scores
``check`` keeps its own flags.
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["check_main", "report_main", "wants_runs"]


def wants_runs(argv: list[str]) -> bool:
    """True when ``argv`` (after the command name) is the retrieval form (it has ``--qrels``)."""
    return any(a == "--qrels" or a.startswith("--qrels=") for a in argv)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="metrics-lens check",
        description="Gate a candidate run against a baseline run over the queries of a qrels "
        "file: exit 1 when the candidate is significantly worse on a metric (or drops more "
        "than --max-drop), 0 otherwise, 2 on bad input.",
    )
    p.add_argument("--qrels", required=True, metavar="QRELS", help="TREC qrels (or JSON/CSV)")
    p.add_argument("baseline", metavar="BASELINE_RUN", help="TREC run (or Parquet/CSV/JSON)")
    p.add_argument("candidate", metavar="CANDIDATE_RUN", help="TREC run (or Parquet/CSV/JSON)")
    p.add_argument(
        "--metric",
        action="append",
        required=True,
        metavar="M",
        help="trec_eval's name: ndcg_cut_10, map, recip_rank, P_10, recall_100... (repeat; "
        "the tests are then one family, Holm-adjusted)",
    )
    p.add_argument(
        "--test",
        default="fisher",
        choices=["fisher", "student", "bootstrap", "wilcoxon"],
        help="paired test over queries (default fisher: sign-flip randomization)",
    )
    p.add_argument(
        "--max-drop",
        type=float,
        default=None,
        metavar="X",
        help="also fail when candidate - baseline < -X, significant or not",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument("--resamples", type=int, default=10_000, help="Fisher/bootstrap resamples")
    p.add_argument("--seed", type=int, default=0, help="seed of the resamples (0)")
    p.add_argument("--relevance-level", type=int, default=1, help="trec_eval's -l (1)")
    p.add_argument(
        "--complete",
        action="store_true",
        help="trec_eval's -c: every qrels query counts; one a run lacks scores 0",
    )
    p.add_argument(
        "--judged-only", action="store_true", help="trec_eval's -J: drop unjudged documents"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    return p


def _verdicts(table, max_drop: float | None) -> list[dict]:
    out = []
    for row in table.itertuples(index=False):
        worse = bool(row.significant and row.difference < 0)
        dropped = max_drop is not None and row.difference < -max_drop
        reasons = []
        if worse:
            reasons.append(f"significantly worse (p adjusted {row.p_adjusted:.4g})")
        if dropped:
            reasons.append(f"drops {-row.difference:.4g} > --max-drop {max_drop:g}")
        out.append(
            {
                "metric": row.measure,
                "baseline": row.baseline_mean,
                "candidate": row.mean,
                "difference": row.difference,
                "ci_low": row.ci_low,
                "ci_high": row.ci_high,
                "p_value": row.p_value,
                "p_adjusted": row.p_adjusted,
                "queries": int(row.n_queries),
                "wins": int(row.wins),
                "ties": int(row.ties),
                "losses": int(row.losses),
                "passed": not reasons,
                "reason": "; ".join(reasons) if reasons else "not significantly worse",
            }
        )
    return out


def check_main(argv: list[str]) -> int:
    """The retrieval gate; ``argv`` is what follows ``check``."""
    args = _parser().parse_args(argv)
    try:
        return _check(args)
    except (ValueError, OSError) as exc:
        message = " ".join(str(exc).split())
        if args.json:
            print(json.dumps({"passed": False, "exit_code": 2, "error": message}))
        print(f"metrics-lens check: error: {message}", file=sys.stderr)
        return 2
    except MemoryError:
        print(
            "metrics-lens check: error: the runs need more memory than this machine has.",
            file=sys.stderr,
        )
        return 2


def _check(args) -> int:
    import metrics

    if not 0.0 < args.alpha < 1.0:
        raise ValueError(f"--alpha must be between 0 and 1, got {args.alpha:g}.")
    if args.max_drop is not None and not args.max_drop >= 0.0:
        raise ValueError(f"--max-drop must be 0 or more, got {args.max_drop:g}.")
    if not 100 <= args.resamples <= 100_000:
        raise ValueError(f"--resamples must be between 100 and 100,000, got {args.resamples}.")
    qrels = metrics.read_qrels(args.qrels)
    base = metrics.read_run(args.baseline)
    cand = metrics.read_run(args.candidate)
    table = metrics.compare_runs(
        qrels,
        {"baseline": base, "candidate": cand},
        list(dict.fromkeys(args.metric)),
        test=args.test,
        n_resamples=args.resamples,
        seed=args.seed,
        baseline="baseline",
        alpha=args.alpha,
        relevance_level=args.relevance_level,
        complete=args.complete,
        judged_only=args.judged_only,
    )
    verdicts = _verdicts(table, args.max_drop)
    passed = all(v["passed"] for v in verdicts)
    code = 0 if passed else 1
    if args.json:
        print(
            json.dumps(
                {
                    "passed": passed,
                    "exit_code": code,
                    "test": args.test,
                    "family": table.attrs["family"],
                    "metrics": verdicts,
                }
            )
        )
        return code
    print(f"{'PASSED' if passed else 'FAILED'}: candidate vs baseline, {table.attrs['family']}")
    for v in verdicts:
        print(
            f"  {'ok  ' if v['passed'] else 'FAIL'} {v['metric']}: {v['candidate']:.4f} vs "
            f"{v['baseline']:.4f}, difference {v['difference']:+.4f} "
            f"[{v['ci_low']:+.4f}, {v['ci_high']:+.4f}], p {v['p_value']:.4g}, "
            f"{v['wins']}/{v['ties']}/{v['losses']} wins/ties/losses over {v['queries']} "
            f"queries: {v['reason']}"
        )
    return code


# --- report --qrels QRELS RUN... ---------------------------------------------------------------


def _report_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="metrics-lens report",
        description="Compare runs over the queries of a qrels file: trec_eval's means side by "
        "side, each marked with the runs it is significantly better than (one family, Holm), "
        "printed as a table and, with -o, written as a self-contained HTML file.",
    )
    p.add_argument("--qrels", required=True, metavar="QRELS", help="TREC qrels (or JSON/CSV)")
    p.add_argument("runs", nargs="+", metavar="RUN", help="TREC runs (or Parquet/CSV/JSON)")
    p.add_argument(
        "--metric",
        action="append",
        metavar="M",
        help="trec_eval's names (repeat; default ndcg_cut_10, map, recip_rank, recall_100)",
    )
    p.add_argument(
        "--test",
        default="fisher",
        choices=["fisher", "student", "bootstrap", "wilcoxon", "tukey", "tukey-oneway"],
        help="paired test over queries for each pair (default fisher), or Tukey's HSD over "
        "every pair at once: tukey (queries as blocks), tukey-oneway (ranx's)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument("--resamples", type=int, default=10_000, help="Fisher/bootstrap resamples")
    p.add_argument("--seed", type=int, default=0, help="seed of the resamples (0)")
    p.add_argument("-o", "--output", metavar="report.html", help="also write an HTML file")
    return p


def report_main(argv: list[str]) -> int:
    """The runs report; ``argv`` is what follows ``report``."""
    args = _report_parser().parse_args(argv)
    try:
        return _report(args)
    except (ValueError, OSError) as exc:
        message = " ".join(str(exc).split())
        print(f"metrics-lens report: error: {message}", file=sys.stderr)
        return 2


def _report(args) -> int:
    import html
    from pathlib import Path

    import metrics
    from metrics.trec import duplicate_documents, runs_beaten
    from ui.words.runs_text import duplicates_sentence

    if len(args.runs) < 2:
        raise ValueError("give at least two runs to compare.")
    if not 0.0 < args.alpha < 1.0:
        raise ValueError(f"--alpha must be between 0 and 1, got {args.alpha:g}.")
    if not 100 <= args.resamples <= 100_000:
        raise ValueError(f"--resamples must be between 100 and 100,000, got {args.resamples}.")
    if args.output and any(Path(args.output).resolve() == Path(r).resolve() for r in args.runs):
        raise ValueError("-o names one of the runs; write the report elsewhere.")
    measures = list(
        dict.fromkeys(args.metric or ["ndcg_cut_10", "map", "recip_rank", "recall_100"])
    )
    qrels = metrics.read_qrels(args.qrels)
    runs: dict[str, object] = {}
    for path in args.runs:
        run = metrics.read_run(path)
        name = str(run.attrs.get("run_tag") or Path(path).stem)
        while name in runs:
            name += "'"
        runs[name] = run
    notes = []
    for name, run in runs.items():
        sentence = duplicates_sentence(name, duplicate_documents(run))
        if sentence:
            notes.append(sentence)
            print(f"note: {sentence}")
    table = metrics.compare_runs(
        qrels,
        runs,
        measures,
        test=args.test,
        n_resamples=args.resamples,
        seed=args.seed,
        alpha=args.alpha,
    )
    beaten = runs_beaten(table)
    names = list(runs)
    letter = {n: chr(ord("a") + i) if i < 26 else str(i) for i, n in enumerate(names)}
    means: dict[tuple[str, str], float] = {}
    for row in table.itertuples(index=False):
        means[(row.run, row.measure)] = row.mean
        means[(row.baseline, row.measure)] = row.baseline_mean
    width = max(len(n) for n in names) + 4
    print(f"{'run':{width}}" + "".join(f"{m:>18}" for m in measures))
    for n in names:
        cells = []
        for m in measures:
            marks = "".join(sorted(letter[x] for x in beaten.get((n, m), [])))
            cells.append(f"{means[(n, m)]:.4f}{('^' + marks) if marks else '':<6}")
        print(f"({letter[n]}) {n:{width - 4}}" + "".join(f"{c:>18}" for c in cells))
    print(f"^x: significantly better than run (x); {table.attrs['family']}.")
    if args.output:
        rows = "".join(
            "<tr><td>({}) {}</td>{}</tr>".format(
                letter[n],
                html.escape(n),
                "".join(
                    "<td>{:.4f}<sup>{}</sup></td>".format(
                        means[(n, m)],
                        "".join(sorted(letter[x] for x in beaten.get((n, m), []))),
                    )
                    for m in measures
                ),
            )
            for n in names
        )
        head = "".join(f"<th>{html.escape(m)}</th>" for m in measures)
        tests = table.to_html(index=False, float_format=lambda v: f"{v:.4g}")
        Path(args.output).write_text(
            "<!doctype html><html><head><meta charset='utf-8'><title>Runs compared</title>"
            "<style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:right}"
            "</style></head><body><h1>Runs compared</h1>"
            f"<table><tr><th>run</th>{head}</tr>{rows}</table>"
            f"<p>A superscript names the runs this one is significantly better than; "
            f"{html.escape(table.attrs['family'])}.</p>"
            + "".join(f"<p><b>Note:</b> {html.escape(n)}</p>" for n in notes)
            + f"<h2>Every test</h2>{tests}</body></html>",
            encoding="utf-8",
        )
        print(f"wrote {args.output}")
    return 0
