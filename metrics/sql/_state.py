"""Evaluation state that merges: the ``--out`` file as exact counts that add up across files.

A state (format ``metrics-lens-summary/2``) holds, for every score column, the integer counts
the metrics are computed from, never the metrics alone:

- the per-score table: each distinct score with its positives and negatives (``O(distinct
  scores)``);
- with a user or query column, the per-(user, score) table: each distinct (user, score) pair
  with its rows, positives and negatives, when there are at most ``cap`` pairs; above that, the
  per-user table: each user's rows, positives, negatives and 2U (``O(users)``), which merges
  only with states that hold other users.

Counts add up: the state of the rows of two files is the two states' tables concatenated and
summed per score (per user and score), whatever the order and grouping. Every metric is then
computed from the merged tables by one function (:func:`finish`), the same one that computes
them for a single pass, so a merged state gives bit-identical AUC, AP (all five methods),
curves, GAUC (all three weightings, per-user table), DeLong's interval of each AUC and, with
the per-(user, score) table, Obuchowski's clustered interval of each AUC. What no state can give
is a test between two models: it needs every row's placement under both models at once, and a
state keeps each model's counts apart (see :meth:`metrics.sql.Summary.delong_test`).

Weighted states merge with floating-point sums of weights: equal to one pass to rounding, not
bit for bit (addition of doubles is not associative).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from metrics.average_precision import ap_breakdown
from metrics.groups import GroupAUC
from metrics.sql._files import check_counts, check_total, read_npz
from metrics.sql._summary import (
    _GROUP_COLUMNS,
    FORMAT,
    MAX_SUMMARY_BYTES,
    ModelSummary,
    ScoreTable,
    Summary,
    _check_summary,
    nan_to_none,
)

# What moved below this module so that it and metrics.sql._summary no longer import each other
# (the per-user tables, the intervals and the writer of a state), still importable from here.
from metrics.sql._summary import _MODEL_KEYS as _MODEL_KEYS
from metrics.sql._summary import _PAIR_COLUMNS as _PAIR_COLUMNS
from metrics.sql._summary import _USER_COLUMNS as _USER_COLUMNS
from metrics.sql._summary import ClusterSums as ClusterSums
from metrics.sql._summary import DeLongSummary as DeLongSummary
from metrics.sql._summary import _weighted as _weighted
from metrics.sql._summary import auc_interval as auc_interval
from metrics.sql._summary import cluster_sums as cluster_sums
from metrics.sql._summary import save_state as save_state
from metrics.sql._summary import write_npz as write_npz
from metrics.sql._users import PAIRED as PAIRED
from metrics.sql._users import (
    REASONS,
    StateError,
    UserScoreTable,
    UserTable,
    _ids,
    _starts,
)

STATE_FORMAT = "metrics-lens-summary/2"
WEIGHTINGS = ("impressions", "positives", "uniform")
_BIG = 2**62  # past it, exact sums are taken in Python integers


# --- every metric from the tables -------------------------------------------------------------


def table_areas(table: ScoreTable, weighted: bool) -> tuple:
    """``(n_pos, n_neg, 2U)`` of a per-score table (descending scores): exact integers
    unweighted (Python integers past int64), weight sums otherwise."""
    pos, neg = table.pos, table.neg
    if weighted:
        n_pos, n_neg = float(np.sum(pos)), float(np.sum(neg))
        below = n_neg - np.cumsum(neg)
        return n_pos, n_neg, float(np.sum(pos * (2 * below + neg)))
    n_pos, n_neg = int(np.sum(pos, dtype=np.int64)), int(np.sum(neg, dtype=np.int64))
    if 2 * n_pos * n_neg >= _BIG:
        pos, neg = pos.astype(object), neg.astype(object)
    below = n_neg - np.cumsum(neg)
    return n_pos, n_neg, int(np.sum(pos * (2 * below + neg)))


def finish(m: ModelSummary, weighted: bool) -> ModelSummary:
    """Compute ``m``'s metrics from its tables, where it has them: AUC, step AP and the distinct
    scores from the exact per-score table; the per-user table from the per-(user, score) one;
    GAUC in the three weightings and the skipped users from the per-user table. One function
    for a single pass and a merge: equal tables give bit-identical metrics."""
    t = m.table
    if t is not None:
        m.n_pos, m.n_neg, m.twice_u = table_areas(t, weighted)
        m.auc = m.twice_u / (2 * m.n_pos * m.n_neg)  # exact integers divided once unweighted
        m.auc = float(m.auc)
        if t.scores.size:
            m.average_precision = float(
                ap_breakdown(np.cumsum(t.pos), np.cumsum(t.neg), "step").value
            )
        m.distinct_scores = int(t.scores.size)
    if m.user_scores is not None:
        m.users = m.user_scores.users()
    if m.users is not None:
        g = m.users.group_auc()
        m.groups = g
        if g.defined.any():
            m.gauc_by = {w: float(g.score(w)) for w in WEIGHTINGS}
        else:
            m.gauc_by = dict.fromkeys(WEIGHTINGS)
        m.gauc = nan_to_none(m.gauc_by["impressions"])
        m.groups_skipped_by = {r: int(np.count_nonzero(g.reason == r)) for r in REASONS}
        m.groups_used = int(np.count_nonzero(g.defined))
        m.groups_skipped = sum(m.groups_skipped_by.values())
    return m


# --- the file ------------------------------------------------------------------------------------


_KINDS = {
    "users": {"group": "iufU", "rows": "iu", "pos": "iuf", "neg": "iuf", "twice_u": "iuf"},
    "pairs": {"group": "iufU", "scores": "f", "rows": "iu", "pos": "iuf", "neg": "iuf"},
}


def state_from_file(name: str, header: dict, arrays: dict[str, np.ndarray]) -> Summary:
    """A :class:`Summary` from a state file's header and arrays (read by
    :func:`metrics.sql.load_summary`), checked as a format-1 summary is, plus its per-user
    tables; the metrics are computed again from the tables."""

    def refuse(what: str) -> None:
        raise ValueError(f"{name} is not a state written by metrics.sql --out: {what}.")

    if not isinstance(header, dict):
        refuse("its header is not a JSON object")
    engine = header.get("engine")
    if not (isinstance(engine, str) and set(engine.split("+")) <= {"duckdb", "spark"}):
        refuse(f"'engine' is {str(engine)[:40]!r}")
    own = {k: v for k, v in arrays.items() if k.split("_")[1:2] in (["users"], ["pairs"])}
    _check_summary(
        name,
        {**header, "format": FORMAT, "engine": "duckdb"},
        {k: v for k, v in arrays.items() if k not in own},
    )
    models = header["models"]
    weighted = header["weight"] is not None
    for key, a in own.items():
        parts = key.split("_", 2)
        ok = (
            len(parts) == 3
            and parts[0].isdigit()
            and int(parts[0]) < len(models)
            and parts[2] in _KINDS[parts[1]]
        )
        if not ok:
            refuse(f"it holds an unknown array {key[:40]!r}")
        if a.ndim != 1 or a.dtype.kind not in _KINDS[parts[1]][parts[2]]:
            refuse(f"array {key[:40]} is {a.dtype} of shape {a.shape}")
    out = {}
    for i, (model, meta) in enumerate(models.items()):
        tables = {}
        for kind in ("table", "binned"):
            if f"{i}_{kind}_scores" in arrays:
                columns = ("scores", "pos", "neg")
                tables[kind] = ScoreTable(*(arrays[f"{i}_{kind}_{c}"] for c in columns))
        for kind, cls in (("users", UserTable), ("pairs", UserScoreTable)):
            present = [c for c in _KINDS[kind] if f"{i}_{kind}_{c}" in arrays]
            if not present:
                continue
            if len(present) != len(_KINDS[kind]):
                refuse(f"model {model[:40]!r}'s {kind} lacks some of its arrays")
            cols = [arrays[f"{i}_{kind}_{c}"] for c in _KINDS[kind]]
            if len({c.size for c in cols}) != 1:
                refuse(f"model {model[:40]!r}'s {kind} arrays differ in length")
            _check_user_counts(refuse, f"model {model[:40]!r}'s {kind}", kind, cols, header)
            tables["users" if kind == "users" else "user_scores"] = cls(*cols)
        if "users" in tables and "user_scores" in tables:
            refuse(f"model {model[:40]!r} has both a per-user and a per-(user, score) table")
        m = ModelSummary(**meta, **tables)
        _check_order(m, refuse)
        out[model] = finish(m, weighted)
    head = {k: v for k, v in header.items() if k not in ("format", "models")}
    return Summary(**head, models=out, state=True)


def _check_user_counts(refuse, what: str, kind: str, cols: list, header: dict) -> None:
    """A per-user or per-(user, score) table's counts, before any arithmetic: rows are whole
    counts adding up to the header's rows; positives and negatives as the per-score table's;
    unweighted, each row's classes add up to its rows (and 2U is within 0 and 2PN)."""
    weighted = header["weight"] is not None
    rows = header["rows"]
    counts = dict(zip(_KINDS[kind], cols, strict=True))
    if kind == "pairs" and np.any(np.isnan(counts["scores"])):
        refuse(f"{what} has NaN scores")
    check_counts(refuse, f"{what}'s rows", counts["rows"], False, rows)
    check_total(refuse, f"{what}'s rows", counts["rows"].sum(), rows, False)
    for c in ("pos", "neg"):
        check_counts(refuse, f"{what}'s {c}", counts[c], weighted, None if weighted else rows)
    if kind == "users":
        check_counts(refuse, f"{what}'s 2U", counts["twice_u"], weighted)
    if weighted:
        return
    if np.any(counts["pos"] + counts["neg"] != counts["rows"]):
        refuse(f"{what}'s positives and negatives do not add up to its rows")
    pairs = 2.0 * counts["pos"] * counts["neg"]  # floats: 2PN may pass int64
    if kind == "users" and np.any(counts["twice_u"] > pairs * (1 + 1e-12)):
        refuse(f"{what}'s 2U is more than twice its pairs of a positive and a negative")


def _check_order(m: ModelSummary, refuse) -> None:
    """Sorted tables with one row per key, and classes that add up to the per-score table's:
    what merging relies on."""
    if m.table is not None and m.table.scores.size > 1 and np.any(np.diff(m.table.scores) >= 0):
        refuse(f"model {m.score[:40]!r}'s per-score table is not one row per descending score")
    if (
        m.users is not None
        and m.users.group.size > 1
        and np.any(m.users.group[1:] <= m.users.group[:-1])
    ):
        refuse(f"model {m.score[:40]!r}'s per-user table is not one row per increasing id")
    us = m.user_scores
    if us is not None and us.group.size > 1:
        g, s = us.group, us.scores
        ahead = (g[1:] > g[:-1]) | ((g[1:] == g[:-1]) & (s[1:] < s[:-1]))
        if not ahead.all():
            refuse(f"model {m.score[:40]!r}'s per-(user, score) table is not sorted")
    if m.table is not None:
        for part in (m.users, us):
            if (
                part is not None
                and part.pos.dtype.kind in "iu"
                and (
                    int(part.pos.sum()) != int(m.table.pos.sum())
                    or int(part.neg.sum()) != int(m.table.neg.sum())
                )
            ):
                refuse(f"model {m.score[:40]!r}'s per-user counts do not add up to its table")
    if m.table is not None and us is not None:
        _check_pairs_against_table(m.table, us, f"model {m.score[:40]!r}'s", refuse)


def _check_pairs_against_table(t: ScoreTable, us: UserScoreTable, who: str, refuse) -> None:
    """Every (user, score) pair's score is one of the per-score table's, and the pairs' counts
    summed per score are the table's: the two tables describe the same rows."""
    at = np.searchsorted(-t.scores, -us.scores)
    inside = at < t.scores.size
    if not (inside.all() and np.array_equal(t.scores[at], us.scores)):
        refuse(f"{who} per-(user, score) table has scores its per-score table does not")
    for c in ("pos", "neg"):
        mine, table = getattr(us, c), getattr(t, c)
        if mine.dtype.kind == "f" or table.dtype.kind == "f":
            sums = np.bincount(at, weights=mine, minlength=t.scores.size)
            same = np.allclose(sums, table, rtol=1e-9, atol=1e-9)
        else:
            sums = np.zeros(t.scores.size, np.int64)
            np.add.at(sums, at, mine)
            same = np.array_equal(sums, table)
        if not same:
            refuse(f"{who} per-(user, score) counts do not add up to its table, score by score")


# --- merging -------------------------------------------------------------------------------------


def _as_state(x, i: int) -> tuple[str, Summary]:
    if isinstance(x, Summary):
        name = f"state {i + 1} ({x.source})"
        s = x
    else:
        name = Path(os.fspath(x)).name
        s = load_summary(x)
    if not s.state:
        raise StateError(
            f"{name} is a summary without its state (format {FORMAT!r}, or summarize() without "
            "state=True): write it again with python -m metrics.sql ... --out, which writes "
            "states that merge."
        )
    return name, s


def merge(states: Sequence) -> Summary:
    """One state for the rows of all ``states`` (:class:`Summary` objects with ``state``, or
    paths of files written by ``python -m metrics.sql ... --out``).

    Per-score counts are summed per score, per-(user, score) counts per user and score; every
    metric is then computed from the merged tables, bit-identical to one pass over all the rows
    (unweighted), whatever the order and grouping of the states. The states must read the same
    label (and positive class), score columns, user column and weight column.

    Raises
    ------
    StateError
        States that disagree, a model with more distinct scores than its state's cap (binned,
        not exact), per-user tables of the same user without its per-score counts; the message
        says what to do.
    """
    named = [_as_state(x, i) for i, x in enumerate(states)]
    if not named:
        raise StateError("give at least one state to merge.")
    if sum(s.rows for _, s in named) >= _BIG:  # each state's counts are at most its rows
        raise StateError(
            "these states count 2^62 rows or more together: their merged counts would overflow "
            "the 64-bit integers a state holds, so they are not merged."
        )
    first_name, first = named[0]
    for name, s in named[1:]:
        for what in ("label", "positive", "group", "weight"):
            if getattr(s, what) != getattr(first, what):
                raise StateError(
                    f"{name} and {first_name} differ in their {what} ({getattr(s, what)!r} and "
                    f"{getattr(first, what)!r}): only states of the same columns merge."
                )
        if set(s.models) != set(first.models):
            raise StateError(
                f"{name} and {first_name} hold different score columns "
                f"({', '.join(s.models)} and {', '.join(first.models)}): only states of the same "
                "models merge."
            )
    weighted = first.weight is not None
    models = {}
    for model in first.models:
        ms = [(name, s.models[model]) for name, s in named]
        for name, m in ms:
            if m.table is None:
                raise StateError(
                    f"{name}: {model} has {m.distinct_scores:,} distinct scores, more than its "
                    "cap, so its state keeps score ranges, which do not merge exactly: write it "
                    "again with a larger --cap (24 bytes per distinct score), or round the scores."
                )
        merged = ModelSummary(model, 0, 0, 0, 0.0, 0.0, 0)
        parts = [(m.table.scores, m.table.pos, m.table.neg) for _, m in ms]
        merged.table = _combine_scores(parts, weighted)
        if first.group is not None:
            _merge_users(merged, ms, weighted)
        models[model] = finish(merged, weighted)
    engines = sorted({p for _, s in named for p in s.engine.split("+")})
    sources = sorted({p for _, s in named for p in s.source.split(" + ")})
    return Summary(
        source=" + ".join(sources),
        engine="+".join(engines),
        label=first.label,
        positive=first.positive,
        rows=sum(s.rows for _, s in named),
        dropped=sum(s.dropped for _, s in named),
        models=models,
        group=first.group,
        weight=first.weight,
        cap=max(s.cap for _, s in named),
        state=True,
    )


def _combine_scores(parts: list[tuple], weighted: bool) -> ScoreTable:
    kind = np.float64 if weighted else np.int64
    scores = np.concatenate([np.asarray(p[0], np.float64) for p in parts])
    pos = np.concatenate([np.asarray(p[1], kind) for p in parts])
    neg = np.concatenate([np.asarray(p[2], kind) for p in parts])
    order = np.argsort(-scores, kind="stable")
    scores, pos, neg = scores[order], pos[order], neg[order]
    starts = _starts(scores)
    if starts.size == scores.size:
        return ScoreTable(scores, pos, neg)
    return ScoreTable(scores[starts], np.add.reduceat(pos, starts), np.add.reduceat(neg, starts))


def _merge_users(merged: ModelSummary, ms: list, weighted: bool) -> None:
    """The per-(user, score) tables summed when every state has one; otherwise the per-user
    tables put together, which is exact only when no user is in two of them (checked)."""
    kinds = {
        "number" if part.group.dtype.kind in "iuf" else "text"
        for _, m in ms
        for part in (m.users, m.user_scores)
        if part is not None and part.group.size
    }
    if len(kinds) > 1:
        raise StateError(
            f"{merged.score}: the user ids are numbers in some states and text in others: "
            "write every state from the same user column type."
        )
    for name, m in ms:
        if m.users is None and m.user_scores is None:
            raise StateError(
                f"{name}: {merged.score} has no per-user table (more than its cap of users), so "
                "its GAUC cannot be merged: write it again with a --cap above its users."
            )
    if all(m.user_scores is not None for _, m in ms):
        merged.user_scores = UserScoreTable.combine(
            [(u.group, u.scores, u.rows, u.pos, u.neg) for u in (m.user_scores for _, m in ms)],
            weighted,
        )
        return
    tables = [(name, m.users if m.users is not None else m.user_scores.users()) for name, m in ms]
    group = _ids(np.concatenate([t.group for _, t in tables]))
    order = np.argsort(group, kind="stable")
    sorted_ids = group[order]
    twice = np.flatnonzero(sorted_ids[1:] == sorted_ids[:-1])
    if twice.size:
        who = sorted_ids[twice[0]]
        holders = [name for name, t in tables if np.any(t.group == who)]
        raise StateError(
            f"{merged.score}: user {str(who)[:40]!r} is in {holders[0]} and {holders[1]}, and "
            "one of them keeps per-user sums only (more (user, score) pairs than its cap): a "
            "user split across states needs its counts per score; write the states again with "
            "a larger --cap."
        )
    kind = np.float64 if weighted else np.int64
    merged.users = UserTable(
        sorted_ids,
        *(np.concatenate([np.asarray(getattr(t, c), k) for _, t in tables])[order]
          for c, k in (("rows", np.int64), ("pos", kind), ("neg", kind), ("twice_u", kind))),
    )  # fmt: skip


def load_summary(path: str | Path, *, max_bytes: int = MAX_SUMMARY_BYTES) -> Summary:
    """Open a summary written by ``python -m metrics.sql ... --out PATH``.

    The file is checked before use (:mod:`metrics.sql._files`): at most ``max_bytes`` once
    uncompressed, every array's declared shape the bytes it holds before it is allocated, a
    plain dtype (no pickled object), a JSON header bounded in size and depth whose keys and
    value types are exactly those :meth:`Summary.save` writes, every array named, shaped and
    typed as it writes them, non-negative whole counts (finite weight sums) whose totals are
    the header's, and one row per descending score. Anything else raises ValueError with a
    sentence.
    """
    name = Path(path).name
    header, arrays = read_npz(path, max_bytes)
    if isinstance(header, dict) and header.get("format") == STATE_FORMAT:
        return state_from_file(name, header, arrays)
    _check_summary(name, header, arrays)
    models = {}
    for i, (name, meta) in enumerate(header.pop("models").items()):
        tables = {}
        for kind in ("table", "binned"):
            if f"{i}_{kind}_scores" in arrays:
                tables[kind] = ScoreTable(
                    arrays[f"{i}_{kind}_scores"],
                    arrays[f"{i}_{kind}_pos"],
                    arrays[f"{i}_{kind}_neg"],
                )
        if f"{i}_groups_group" in arrays:
            tables["groups"] = GroupAUC(*(arrays[f"{i}_groups_{c}"] for c in _GROUP_COLUMNS))
        models[name] = ModelSummary(**meta, **tables)
    header.pop("format")
    return Summary(**header, models=models)
