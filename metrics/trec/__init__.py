"""Information retrieval's evaluation: TREC qrels and runs in, trec_eval's measures out, runs
compared over queries with paired tests.

* :mod:`metrics.trec.readers`: TREC files (gzip too), tables and ranx/ir_measures JSON.
* :mod:`metrics.trec.measures`: :func:`trec_evaluate`, trec_eval's numbers query by query.
* :mod:`metrics.trec.engine`: :func:`trec_evaluate_file`, the same numbers for a run file
  DuckDB ranks out of core.
* :mod:`metrics.trec.compare`: :func:`compare_runs`, paired tests over the queries, and
  :func:`tukey_hsd` over every pair of runs at once.
* :mod:`metrics.trec.power`: :func:`paired_power`, the effect size, power and smallest
  detectable difference of a pair.
"""

from metrics.trec.compare import adjust_p_values, compare_runs, runs_beaten, tukey_hsd
from metrics.trec.engine import trec_evaluate_file
from metrics.trec.measures import MEASURES, duplicate_documents, trec_evaluate
from metrics.trec.power import PairedPower, paired_power
from metrics.trec.readers import read_qrels, read_run, read_trec_qrels, read_trec_run

__all__ = [
    "MEASURES",
    "PairedPower",
    "adjust_p_values",
    "compare_runs",
    "duplicate_documents",
    "paired_power",
    "read_qrels",
    "read_run",
    "read_trec_qrels",
    "read_trec_run",
    "runs_beaten",
    "trec_evaluate",
    "trec_evaluate_file",
    "tukey_hsd",
]
