"""trec_eval's measures over a qrels table and a run table, every query at once.

The numbers are trec_eval's (version 9, as pytrec_eval bundles it), query by query:

* A query is evaluated when the qrels hold it and the run has at least one row for it; queries the
  run has and the qrels lack are ignored. With ``complete=True`` (trec_eval's ``-c``) every qrels
  query counts, and one the run lacks scores 0 on every measure.
* Each query's documents are ranked by score, highest first; **tied scores are broken by document
  id, descending, compared as text byte by byte** (trec_eval's ``strcmp``): of two tied documents
  ``"9"`` ranks above ``"10"``. The rank column of a TREC run file is ignored, as trec_eval ignores
  it.
* A document the qrels do not hold is non-relevant (trec_eval's "not in pool"); a qrels relevance
  below 0 means "in the pool, not judged". A document is relevant when its relevance is at least
  ``relevance_level`` (``-l``). NDCG ignores ``relevance_level``: its gain is the relevance itself,
  for every relevance above 0.
* ``judged_only=True`` (``-J``) drops the documents without a judgement (relevance below 0 or
  absent from the qrels) before ranking.
* A query without a relevant document scores 0 on every measure.
* A document returned twice for one query is refused, as trec_eval refuses it, when it is judged
  or tied with a judged document (the rows this module looks at); an unjudged document returned
  twice with two scores is not looked for, and counts twice in ``num_ret``.
* Scores are doubles, as trec_eval 9.0.8 reads them. pytrec_eval bundles an older trec_eval that
  kept scores as 32-bit floats, so two scores that differ only beyond a float's precision tie
  there and not here.

How it stays fast
-----------------
Every supported measure depends only on the ranks of the *judged* documents (those the qrels
hold), on how many documents the run returned, and on the qrels' own counts. So nothing sorts the
run: the judged rows are found with one hashed look-up of the document ids, and each one's rank is
counted with two binary searches over the few distinct judged scores and a histogram of every row
(rows that beat a judged row, in its own query). Only the rows whose score equals a judged row's
score in the same query are ordered by document id, with a sort of those rows alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["MEASURES", "duplicate_documents", "parse_measures", "trec_evaluate"]

# trec_eval's measure names this module computes: name -> (takes a cutoff, what it is).
MEASURES: dict[str, tuple[bool, str]] = {
    "map": (False, "mean average precision over the whole ranking"),
    "map_cut": (True, "average precision of the top k, divided by every relevant document"),
    "P": (True, "precision of the top k (k fills with non-relevant documents)"),
    "recall": (True, "fraction of the relevant documents in the top k"),
    "success": (True, "1 when a relevant document is in the top k"),
    "ndcg": (False, "NDCG over the whole ranking (gain = relevance)"),
    "ndcg_cut": (True, "NDCG of the top k (gain = relevance)"),
    "recip_rank": (False, "1 / rank of the first relevant document"),
    "Rprec": (False, "precision of the top R, R the number of relevant documents"),
    "bpref": (False, "binary preference: relevant ranked above judged non-relevant"),
    "num_ret": (False, "documents the run returned"),
    "num_rel": (False, "relevant documents in the qrels"),
    "num_rel_ret": (False, "relevant documents the run returned"),
}

_NAME = re.compile(r"^([A-Za-z_]+?)(?:_(\d+))?$")


@dataclass(frozen=True)
class Measure:
    name: str  # as the caller wrote it, e.g. "ndcg_cut_10"
    family: str  # "ndcg_cut"
    k: int | None


def parse_measures(measures: Any) -> list[Measure]:
    """trec_eval measure names (``"map"``, ``"P_10"``, ``"ndcg_cut_10"``...) -> parsed measures."""
    if isinstance(measures, str):
        measures = [measures]
    try:
        names = list(measures)
    except TypeError:
        raise ValueError(
            f"measures must be trec_eval measure names such as ['map', 'ndcg_cut_10'], "
            f"got {measures!r}."
        ) from None
    if not names:
        raise ValueError("measures is empty: name at least one, for example ['ndcg_cut_10'].")
    parsed: list[Measure] = []
    for name in names:
        parsed.append(_parse_one(name))
    seen: set[str] = set()
    duplicated = [m.name for m in parsed if m.name in seen or seen.add(m.name)]
    if duplicated:
        raise ValueError(f"measures names {duplicated[0]!r} twice; name each measure once.")
    return parsed


def _parse_one(name: Any) -> Measure:
    known = ", ".join(f"{f}_k" if cut else f for f, (cut, _) in MEASURES.items())
    if not isinstance(name, str):
        raise ValueError(f"A measure name must be text such as 'ndcg_cut_10', got {name!r}.")
    if name in MEASURES and not MEASURES[name][0]:
        return Measure(name, name, None)
    match = _NAME.match(name)
    if match and match.group(1) in MEASURES and match.group(2) is not None:
        family, k = match.group(1), int(match.group(2))
        if not MEASURES[family][0]:
            hint = (
                f" ({family}_cut_{k} is {family} cut at {k})" if f"{family}_cut" in MEASURES else ""
            )
            raise ValueError(f"Measure {name!r}: {family} takes no cutoff{hint}. Known: {known}.")
        if k < 1:
            raise ValueError(f"Measure {name!r}: the cutoff must be 1 or more.")
        return Measure(name, family, k)
    if name in MEASURES:
        raise ValueError(
            f"Measure {name!r} needs a cutoff, as {name}_10 (trec_eval's defaults are not "
            f"guessed). Known: {known}."
        )
    raise ValueError(f"Unknown measure {name!r}; trec_eval's names are known: {known}.")


# --- inputs ----------------------------------------------------------------------------------


def _column(table: Any, names: tuple[str, ...], what: str) -> Any:
    for name in names:
        if name in table.columns:
            return table[name]
    raise ValueError(
        f"The {what} table has no {names[0]!r} column (it has {list(table.columns)}); "
        f"read it with metrics.read_trec_{'run' if what == 'run' else 'qrels'} or name the "
        f"columns query_id, doc_id and {names[0]}."
    )


def _as_table(data: Any, what: str, value: str) -> Any:
    """A DataFrame from a DataFrame or a {query_id: {doc_id: value}} mapping."""
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, dict):
        from metrics.trec.readers import table_from_mapping

        return table_from_mapping(data, value=value, what=what)
    raise ValueError(
        f"The {what} must be a DataFrame (query_id, doc_id, {value}) or a mapping "
        f"{{query_id: {{doc_id: {value}}}}}, got {type(data).__name__}."
    )


def _text_ids(values: Any, what: str) -> Any:
    """Ids as a pyarrow large_string array (text, as trec_eval compares them)."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype(object)
    try:
        arr = pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        arr = pa.array(values.astype(str), from_pandas=True)
    if arr.null_count:
        rows = np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[:5].tolist()
        raise ValueError(
            f"{what} has {arr.null_count} missing value(s) (rows {rows}); every row needs an id."
        )
    if pa.types.is_floating(arr.type):
        raise ValueError(
            f"{what} holds decimal numbers; ids are text (read the file with "
            f"metrics.read_trec_run / read_trec_qrels, which keep ids as text)."
        )
    if not (pa.types.is_large_string(arr.type) or pa.types.is_string(arr.type)):
        arr = pc.cast(arr, pa.large_string())
    return arr


@dataclass(frozen=True, eq=False)
class _Qrels:
    ids: np.ndarray  # (n_queries,) query ids as text, sorted
    doc_set: Any  # pyarrow array of the distinct judged doc ids
    pair_key: np.ndarray  # (n_pairs,) sorted query * n_docs + doc
    pair_rel: np.ndarray  # (n_pairs,) relevance of each pair, int64
    n_docs: int
    num_rel: np.ndarray  # (n_queries,) relevance >= level
    num_nonrel: np.ndarray  # (n_queries,) 0 <= relevance < level
    ideal_code: np.ndarray  # positive relevance, by query then decreasing relevance
    ideal_gain: np.ndarray
    ideal_pos: np.ndarray  # 0-based position in the ideal ranking


def _prepare_qrels(qrels: Any, relevance_level: int) -> _Qrels:
    import pyarrow as pa
    import pyarrow.compute as pc

    qrels = _as_table(qrels, "qrels", "relevance")
    q = _text_ids(_column(qrels, ("query_id",), "qrels"), "The qrels' query_id")
    d = _text_ids(_column(qrels, ("doc_id",), "qrels"), "The qrels' doc_id")
    rel_raw = np.asarray(_column(qrels, ("relevance",), "qrels"))
    try:
        rel = rel_raw.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            "The qrels' relevance must be whole numbers (trec_eval's 0, 1, 2...)."
        ) from None
    bad = ~np.isfinite(rel) | (rel != np.floor(rel))
    if bad.any():
        rows = np.flatnonzero(bad)[:5].tolist()
        raise ValueError(
            f"The qrels' relevance must be whole numbers (trec_eval's 0, 1, 2...); rows {rows} "
            f"are not."
        )
    rel = rel.astype(np.int64)
    ids_arr = pc.unique(q).sort()
    ids = np.asarray(ids_arr.to_pylist(), dtype=object)
    qcode = pc.index_in(q, value_set=ids_arr).to_numpy(zero_copy_only=False).astype(np.int64)
    doc_set = pc.unique(d)
    dcode = pc.index_in(d, value_set=doc_set).to_numpy(zero_copy_only=False).astype(np.int64)
    n_docs = max(len(doc_set), 1)
    key = qcode * n_docs + dcode
    order = np.argsort(key, kind="stable")
    key, rel, qcode = key[order], rel[order], qcode[order]
    dup = key[1:] == key[:-1]
    if dup.any():
        at = int(order[1:][dup][0])
        raise ValueError(
            f"The qrels judge document {d[at].as_py()!r} twice for query {q[at].as_py()!r}; "
            f"trec_eval refuses duplicate judgements: keep one line per (query, document)."
        )
    nq = ids.size
    relevant = rel >= relevance_level
    num_rel = np.bincount(qcode[relevant], minlength=nq)
    nonrel = (rel >= 0) & ~relevant
    num_nonrel = np.bincount(qcode[nonrel], minlength=nq)
    positive = rel > 0
    icode, igain = qcode[positive], rel[positive].astype(np.float64)
    iorder = np.lexsort((-igain, icode))
    icode, igain = icode[iorder], igain[iorder]
    counts = np.bincount(icode, minlength=nq)
    ipos = np.arange(icode.size) - (np.cumsum(counts) - counts)[icode]
    del pa
    return _Qrels(ids, doc_set, key, rel, n_docs, num_rel, num_nonrel, icode, igain, ipos)


@dataclass(frozen=True, eq=False)
class _Judged:
    """The run's judged rows (in the qrels), with their ranks, and the run's row counts."""

    n_ret: np.ndarray  # (n_queries,) rows per query
    code: np.ndarray  # (n_judged,) query code, rows sorted by (query, rank)
    rank: np.ndarray  # (n_judged,) 1-based rank within the query
    rel: np.ndarray  # (n_judged,) qrels relevance (may be < 0: in the pool, unjudged)
    in_run: np.ndarray  # (n_queries,) bool: the run has the query


def _prepare_run(run: Any, qr: _Qrels, judged_only: bool) -> _Judged:
    import pyarrow.compute as pc

    run = _as_table(run, "run", "score")
    q = _text_ids(_column(run, ("query_id",), "run"), "The run's query_id")
    score_col = _column(run, ("score",), "run")
    try:
        score = np.asarray(score_col, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("The run's score must be numbers.") from None
    nq = qr.ids.size
    ids_arr = __import__("pyarrow").array(qr.ids.tolist(), type=q.type)
    qcode = pc.index_in(q, value_set=ids_arr).to_numpy(zero_copy_only=False)
    if np.issubdtype(qcode.dtype, np.floating):  # nulls (queries the qrels lack) came out as NaN
        qcode = np.where(np.isnan(qcode), -1, qcode)
    qcode = qcode.astype(np.int64)
    kept = qcode >= 0
    all_kept = bool(kept.all())
    if not all_kept:
        qcode_k, score_k = qcode[kept], score[kept]
    else:
        qcode_k, score_k = qcode, score
    bad = np.isnan(score_k)
    if bad.any():
        rows = (np.flatnonzero(kept)[bad] if not all_kept else np.flatnonzero(bad))[:5].tolist()
        raise ValueError(f"The run's score has NaN values (rows {rows}); scores must be numbers.")
    n_ret = np.bincount(qcode_k, minlength=nq)
    in_run = n_ret > 0

    # The judged rows: one hashed look-up of every doc id, then the (query, doc) pair.
    d = _text_ids(_column(run, ("doc_id",), "run"), "The run's doc_id")
    dcode = pc.index_in(d, value_set=qr.doc_set.cast(d.type)).to_numpy(zero_copy_only=False)
    if np.issubdtype(dcode.dtype, np.floating):
        cand = np.flatnonzero(~np.isnan(dcode) & kept)
    else:
        cand = np.flatnonzero(kept)
    key = qcode[cand] * qr.n_docs + dcode[cand].astype(np.int64)
    del dcode
    at = np.searchsorted(qr.pair_key, key)
    at = np.minimum(at, qr.pair_key.size - 1)
    match = qr.pair_key[at] == key if qr.pair_key.size else np.zeros(key.size, bool)
    jrow = cand[match]  # positions in the full run
    jpair = at[match]
    jrel = qr.pair_rel[jpair]
    if np.unique(jpair).size != jpair.size:
        _, first = np.unique(jpair, return_index=True)
        twice = np.setdiff1d(np.arange(jpair.size), first)[0]
        row = int(jrow[twice])
        raise ValueError(
            f"The run returns document {d[row].as_py()!r} twice for query {q[row].as_py()!r}; "
            f"trec_eval refuses duplicate documents: keep one row per (query, document)."
        )
    jcode = qcode[jrow]
    jscore = score[jrow]

    rank = _judged_ranks(qcode_k, score_k, n_ret, jcode, jscore, jrow, kept, all_kept, d, q)

    if judged_only:
        keep = jrel >= 0
        jcode, rank, jrel = jcode[keep], rank[keep], jrel[keep]
        order = np.lexsort((rank, jcode))
        jcode, jrel = jcode[order], jrel[order]
        n_ret = np.bincount(jcode, minlength=nq)
        rank = np.arange(jcode.size) - (np.cumsum(n_ret) - n_ret)[jcode] + 1
    else:
        order = np.lexsort((rank, jcode))
        jcode, rank, jrel = jcode[order], rank[order], jrel[order]
    return _Judged(n_ret, jcode, rank, jrel, in_run)


def _judged_ranks(
    qcode_k: np.ndarray,
    score_k: np.ndarray,
    n_ret: np.ndarray,
    jcode: np.ndarray,
    jscore: np.ndarray,
    jrow: np.ndarray,
    kept: np.ndarray,
    all_kept: bool,
    d: Any,
    q: Any,
) -> np.ndarray:
    """1-based rank of each judged row within its query, trec_eval's order, without a sort of
    the run: rows with a higher score, plus tied rows with a greater doc id."""
    if jrow.size == 0:
        return np.zeros(0, np.int64)
    levels = np.unique(jscore)  # the distinct judged scores
    width = levels.size + 1
    # Below every level of "levels" that is less than the score: s > levels[u] <=> below > u.
    below = np.searchsorted(levels, score_k, side="left")
    row_key = qcode_k * width
    row_key += below
    jkey = jcode * width + np.searchsorted(levels, jscore, side="left")
    keys = np.unique(jkey)
    slot = np.searchsorted(keys, row_key, side="left")
    # Rows with key <= keys[i], cumulated: a row's key is at most keys[i] iff its slot <= i.
    at_most = np.cumsum(np.bincount(slot, minlength=keys.size + 1))
    before_query = np.cumsum(n_ret) - n_ret
    j_slot = np.searchsorted(keys, jkey)
    higher = n_ret[jcode] - (at_most[j_slot] - before_query[jcode])

    # Rows tied with a judged row of their query: ordered by doc id, descending.
    slot_c = np.minimum(slot, keys.size - 1)
    level_c = np.minimum(below, levels.size - 1)
    tied = np.flatnonzero((keys[slot_c] == row_key) & (levels[level_c] == score_k))
    full_rows = tied if all_kept else np.flatnonzero(kept)[tied]
    greater = _tied_greater(row_key[tied], full_rows, jrow, d, q)
    return higher + greater + 1


def _tied_greater(
    group: np.ndarray, rows: np.ndarray, jrow: np.ndarray, d: Any, q: Any
) -> np.ndarray:
    """For each judged row (``jrow``, a subset of ``rows``), how many rows of its tie group
    (same query, same score) have a greater doc id as text."""
    import pyarrow as pa
    import pyarrow.compute as pc

    docs = d.take(pa.array(rows))
    order = pc.sort_indices(
        pa.table({"g": group, "d": docs}), sort_keys=[("g", "ascending"), ("d", "ascending")]
    ).to_numpy()
    g = group[order]
    sorted_docs = docs.take(pa.array(order))
    same_group = g[1:] == g[:-1]
    if same_group.any():
        pairs = np.flatnonzero(same_group)
        left = sorted_docs.take(pa.array(pairs))
        right = sorted_docs.take(pa.array(pairs + 1))
        dup = pc.equal(left, right).to_numpy(zero_copy_only=False)
        if dup.any():
            at = int(rows[order[pairs[dup][0]]])
            raise ValueError(
                f"The run returns document {d[at].as_py()!r} twice for query "
                f"{q[at].as_py()!r}; trec_eval refuses duplicate documents: keep one row per "
                f"(query, document)."
            )
    starts = np.flatnonzero(np.concatenate(([True], ~same_group)))
    sizes = np.diff(np.append(starts, g.size))
    group_end = np.repeat(starts + sizes, sizes)
    greater_sorted = group_end - np.arange(g.size) - 1
    greater = np.empty(g.size, np.int64)
    greater[order] = greater_sorted
    return greater[np.searchsorted(rows, jrow)]


# --- measures from the judged ranks ----------------------------------------------------------


def _per_query(qr: _Qrels, j: _Judged, parsed: list[Measure], level: int) -> dict[str, Any]:
    nq = qr.ids.size
    num_rel = qr.num_rel
    relevant = j.rel >= level
    rcode, rrank = j.code[relevant], j.rank[relevant]  # sorted by (query, rank)
    n_rel_ret = np.bincount(rcode, minlength=nq)
    nth = np.arange(1, rcode.size + 1) - (np.cumsum(n_rel_ret) - n_rel_ret)[rcode]
    safe_rel = np.maximum(num_rel, 1)
    out: dict[str, np.ndarray] = {}

    def hits(k: int | None) -> np.ndarray:
        if k is None:
            return n_rel_ret
        return np.bincount(rcode[rrank <= k], minlength=nq)

    def dcg(k: int | None) -> np.ndarray:
        pos = j.rel > 0
        code, rank, gain = j.code[pos], j.rank[pos], j.rel[pos].astype(np.float64)
        if k is not None:
            top = rank <= k
            code, rank, gain = code[top], rank[top], gain[top]
        return np.bincount(code, weights=gain / np.log2(rank + 1.0), minlength=nq)

    def ideal(k: int | None) -> np.ndarray:
        code, pos, gain = qr.ideal_code, qr.ideal_pos, qr.ideal_gain
        if k is not None:
            top = pos < k
            code, pos, gain = code[top], pos[top], gain[top]
        return np.bincount(code, weights=gain / np.log2(pos + 2.0), minlength=nq)

    for m in parsed:
        f, k = m.family, m.k
        if f == "P":
            v = hits(k) / k
        elif f == "recall":
            v = np.where(num_rel > 0, hits(k) / safe_rel, 0.0)
        elif f == "success":
            v = (hits(k) > 0).astype(np.float64)
        elif f in ("map", "map_cut"):
            top = np.ones(rcode.size, bool) if k is None else rrank <= k
            total = np.bincount(rcode[top], weights=nth[top] / rrank[top], minlength=nq)
            v = np.where(num_rel > 0, total / safe_rel, 0.0)
        elif f == "recip_rank":
            first = nth == 1
            v = np.zeros(nq)
            v[rcode[first]] = 1.0 / rrank[first]
        elif f == "Rprec":
            within = rrank <= num_rel[rcode]
            v = np.where(num_rel > 0, np.bincount(rcode[within], minlength=nq) / safe_rel, 0.0)
        elif f in ("ndcg", "ndcg_cut"):
            top_ideal = ideal(k)
            with np.errstate(invalid="ignore", divide="ignore"):
                v = np.where(top_ideal > 0, dcg(k) / top_ideal, 0.0)
        elif f == "bpref":
            v = _bpref(qr, j, level, nq)
        elif f == "num_ret":
            v = j.n_ret.astype(np.float64)
        elif f == "num_rel":
            v = num_rel.astype(np.float64)
        elif f == "num_rel_ret":
            v = n_rel_ret.astype(np.float64)
        else:  # pragma: no cover - parse_measures admits only the names above
            raise AssertionError(f)
        out[m.name] = np.asarray(v, dtype=np.float64)
    return out


def _bpref(qr: _Qrels, j: _Judged, level: int, nq: int) -> np.ndarray:
    nonrel = (j.rel >= 0) & (j.rel < level)
    # Judged non-relevant rows above each row of its query (rows are in rank order).
    seen = np.cumsum(nonrel) - nonrel
    per_query = np.bincount(j.code, weights=nonrel, minlength=nq).astype(np.int64)
    start = np.cumsum(per_query) - per_query
    above = seen - start[j.code]
    relevant = j.rel >= level
    code, above = j.code[relevant], above[relevant]
    r = qr.num_rel[code]
    denom = np.minimum(qr.num_nonrel[code], r)
    with np.errstate(invalid="ignore", divide="ignore"):
        part = np.where(above > 0, 1.0 - np.minimum(above, r) / denom, 1.0)
    total = np.bincount(code, weights=part, minlength=nq)
    return np.where(qr.num_rel > 0, total / np.maximum(qr.num_rel, 1), 0.0)


def _check_options(relevance_level: Any) -> int:
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, (int, np.integer)):
        raise ValueError(
            f"relevance_level must be a whole number (trec_eval's -l), got {relevance_level!r}."
        )
    return int(relevance_level)


def evaluate_per_query(
    qrels: Any,
    run: Any,
    measures: Any,
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    complete: bool = False,
    _qrels: _Qrels | None = None,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(query ids, {measure: per-query values}) over the evaluated queries, as arrays."""
    parsed = parse_measures(measures)
    level = _check_options(relevance_level)
    qr = _qrels if _qrels is not None else _prepare_qrels(qrels, level)
    j = _prepare_run(run, qr, bool(judged_only))
    values = _per_query(qr, j, parsed, level)
    if complete:
        return qr.ids, values
    keep = j.in_run
    return qr.ids[keep], {name: v[keep] for name, v in values.items()}


def duplicate_documents(run: Any) -> Any:
    """The documents a run returns more than once for one query.

    trec_eval refuses such a run: after ranking a query's results it sorts them by document id
    and stops at the first id seen twice ("duplicate docs", ``form_res_rels.c``), so it gives no
    numbers at all. pytrec_eval and ranx read a run into a ``{query: {doc: score}}`` mapping,
    which keeps one copy silently. :func:`trec_evaluate` refuses a duplicate that is judged or
    tied with a judged document (the rows it looks at) and keeps an unjudged one: every copy
    takes a rank, so the documents below it sit one rank lower per extra copy. This function
    finds them all, for a page or a report to say so (one hashed pass over the rows).

    Parameters
    ----------
    run : DataFrame or mapping
        As :func:`trec_evaluate` takes it (a mapping cannot hold a duplicate).

    Returns
    -------
    DataFrame
        ``query_id, doc_id, copies`` (text ids; ``copies >= 2``), one row per duplicated
        (query, document), sorted; empty when there is none.
    """
    import pandas as pd
    import pyarrow as pa

    table = _as_table(run, "run", "score")
    q = _text_ids(_column(table, ("query_id",), "run"), "The run's query_id")
    d = _text_ids(_column(table, ("doc_id",), "run"), "The run's doc_id")
    counts = (
        pa.table({"query_id": q, "doc_id": d})
        .group_by(["query_id", "doc_id"])
        .aggregate([([], "count_all")])
    )
    copies = counts["count_all"].to_numpy()
    keep = np.flatnonzero(copies > 1)
    out = pd.DataFrame(
        {
            "query_id": counts["query_id"].take(pa.array(keep)).to_pandas().astype(object),
            "doc_id": counts["doc_id"].take(pa.array(keep)).to_pandas().astype(object),
            "copies": copies[keep].astype(np.int64),
        }
    )
    return out.sort_values(["query_id", "doc_id"], kind="stable").reset_index(drop=True)


def trec_evaluate(
    qrels: Any,
    run: Any,
    measures: Any,
    *,
    per_query: bool = False,
    relevance_level: int = 1,
    judged_only: bool = False,
    complete: bool = False,
) -> Any:
    """trec_eval's measures of a run against qrels: the means, or one row per query.

    Parameters
    ----------
    qrels : DataFrame or mapping
        ``query_id, doc_id, relevance`` (as :func:`metrics.read_trec_qrels` returns it) or
        ``{query_id: {doc_id: relevance}}``.
    run : DataFrame or mapping
        ``query_id, doc_id, score`` (as :func:`metrics.read_trec_run` returns it) or
        ``{query_id: {doc_id: score}}``.
    measures : str or list of str
        trec_eval's names: ``map``, ``map_cut_k``, ``P_k``, ``recall_k``, ``success_k``,
        ``ndcg``, ``ndcg_cut_k``, ``recip_rank``, ``Rprec``, ``bpref``, ``num_ret``,
        ``num_rel``, ``num_rel_ret``.
    per_query : bool, default False
        Return a DataFrame with a ``query_id`` column and one column per measure instead of the
        means.
    relevance_level : int, default 1
        trec_eval's ``-l``: a document is relevant when its relevance is at least this.
    judged_only : bool, default False
        trec_eval's ``-J``: drop documents without a judgement before ranking.
    complete : bool, default False
        trec_eval's ``-c``: average over every qrels query; those the run lacks score 0.

    Returns
    -------
    dict of str to float, or DataFrame
        The mean of each measure over the evaluated queries (trec_eval's ``all`` line; NaN when
        no query is evaluated), or the per-query values sorted by query id as text.

    Examples
    --------
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    >>> run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [0.2, 0.9]})
    >>> trec_evaluate(qrels, run, ["P_1", "recip_rank"])
    {'P_1': 0.0, 'recip_rank': 0.5}
    """
    ids, values = evaluate_per_query(
        qrels,
        run,
        measures,
        relevance_level=relevance_level,
        judged_only=judged_only,
        complete=complete,
    )
    if per_query:
        import pandas as pd

        table = pd.DataFrame({"query_id": ids.astype(str)})
        for name, v in values.items():
            table[name] = v
        return table
    return {name: float(v.mean()) if v.size else float("nan") for name, v in values.items()}
