"""Exact statistics from rows streamed in sorted order: DuckDB sorts, numpy reduces the runs.

A continuous score has about one distinct value per row, so a ``GROUP BY`` on it makes as many
groups as rows (a hash aggregate that spills) and the running sums after it sort them again.
One ``ORDER BY score DESC`` does the same work once: the rows arrive in batches already in the
order of the running sums, and :class:`ScoreRuns` folds each batch's runs of equal scores into
2U, the step-AP sum, the distinct scores, the exact per-score table (up to ``cap`` scores) and
the binned table, carrying the last run of a batch into the next. :class:`UserRuns` does the
same for rows sorted by user, then descending score: each user's rows, positives, negatives and
2U, the per-(user, score) pairs of a state (up to ``cap``), the per-user table (up to ``cap``)
and GAUC's sums.

Counts and 2U are integers, equal to those of the SQL in :mod:`metrics.sql._queries` whatever
the batches; every term of a floating-point sum is computed with the same operations as that
SQL (the step-AP term, a user's AUC and its weights), and the sums are rounded once per batch
and then exactly (:func:`math.fsum`), so they do not depend on threads. Nothing here connects
to an engine: :func:`metrics.sql._engine` feeds the batches.
"""

from __future__ import annotations

import math

import numpy as np

_SAFE = 2**62  # past it, a batch's 2U is summed in Python integers


def _starts(new: np.ndarray) -> np.ndarray:
    return np.flatnonzero(new)


class ScoreRuns:
    """Per distinct score, from (score, label) batches sorted by descending score.

    ``n_neg`` is the number of negatives of all the rows (the stream's total), ``lo`` and ``hi``
    the lowest and highest score, ``bins`` the score ranges of the binned table (as
    :func:`metrics.sql._queries.binned`)."""

    def __init__(self, n_neg: int, cap: int, bins: int, lo: float, hi: float) -> None:
        self.n_neg, self.cap, self.bins = int(n_neg), int(cap), int(bins)
        self.lo, self.width = float(lo), float(hi - lo) if hi > lo else 1.0
        self.tp = self.fp = 0
        self.twice_u = 0
        self.distinct = 0
        self._ap: list[float] = []
        self._table: list[tuple] | None = []
        self._bins: list[tuple] = []
        self._carry: tuple | None = None  # the last run seen: it may go on in the next batch

    def add(self, s: np.ndarray, y: np.ndarray) -> None:
        if s.size == 0:
            return
        new = np.empty(s.size, bool)
        new[0] = True
        np.not_equal(s[1:], s[:-1], out=new[1:])
        starts = _starts(new)
        rows = np.diff(np.append(starts, s.size))
        pos = np.add.reduceat(y.astype(np.int64, copy=False), starts)
        neg = rows - pos
        scores = s[starts]
        if self._carry is not None:
            cs, cp, cn = self._carry
            if scores[0] == cs:
                pos[0] += cp
                neg[0] += cn
                scores[0] = cs
            else:
                scores = np.concatenate(([cs], scores))
                pos = np.concatenate(([cp], pos))
                neg = np.concatenate(([cn], neg))
        self._carry = (scores[-1], int(pos[-1]), int(neg[-1]))
        self._emit(scores[:-1], pos[:-1], neg[:-1])

    def finish(self) -> ScoreRuns:
        if self._carry is not None:
            cs, cp, cn = self._carry
            self._carry = None
            self._emit(np.array([cs], np.float64), np.array([cp], np.int64), np.array([cn]))
        return self

    def _emit(self, scores: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> None:
        if scores.size == 0:
            return
        tp = self.tp + np.cumsum(pos)
        fp = self.fp + np.cumsum(neg)
        self.tp, self.fp = int(tp[-1]), int(fp[-1])
        # 2U = sum pos (2 (N - fp) + neg), as q.areas; exact in int64 while it cannot overflow
        if 3 * (self.n_neg + 1) * max(self.tp, 1) < _SAFE:
            self.twice_u += int(np.sum(pos * (2 * (self.n_neg - fp) + neg)))
        else:
            p, f, n = (a.astype(object) for a in (pos, fp, neg))
            self.twice_u += int(np.sum(p * (2 * (self.n_neg - f) + n)))
        # the step-AP term of q.areas: pos * tp / (tp + fp), in doubles
        hit = pos > 0
        terms = (
            pos[hit].astype(np.float64)
            * tp[hit].astype(np.float64)
            / (tp[hit] + fp[hit]).astype(np.float64)
        )
        self._ap.append(float(np.sum(terms)))
        self.distinct += scores.size
        if self._table is not None:
            if self.distinct <= self.cap:
                self._table.append((scores.copy(), pos, neg))
            else:
                self._table = None
        # q.binned: FLOOR((s - lo) / width * bins) per score; MIN(s) and the counts per range
        b = np.floor((scores - self.lo) / self.width * float(self.bins)).astype(np.int64)
        new = np.empty(b.size, bool)
        new[0] = True
        np.not_equal(b[1:], b[:-1], out=new[1:])
        starts = _starts(new)
        last = np.append(starts[1:], b.size) - 1  # descending scores: a range's lowest is last
        self._bins.append(
            (b[starts], scores[last], np.add.reduceat(pos, starts), np.add.reduceat(neg, starts))
        )

    @property
    def ap_sum(self) -> float:
        return math.fsum(self._ap)

    def table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(scores, positives, negatives) of every distinct score, or None above the cap."""
        if self._table is None:
            return None
        if not self._table:
            return np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
        return tuple(np.concatenate([t[i] for t in self._table]) for i in range(3))

    def binned(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(lowest score, positives, negatives) per score range, as q.binned gives them."""
        b, s, p, n = (np.concatenate([t[i] for t in self._bins]) for i in range(4))
        order = np.argsort(b, kind="stable")
        b, s, p, n = b[order], s[order], p[order], n[order]
        new = np.empty(b.size, bool)
        new[0] = True
        np.not_equal(b[1:], b[:-1], out=new[1:])
        starts = _starts(new)
        return (
            np.minimum.reduceat(s, starts),
            np.add.reduceat(p, starts),
            np.add.reduceat(n, starts),
        )


class UserRuns:
    """Per user, from (user, score, label) batches sorted by user, then descending score.

    Within a user, over descending scores, ``2U = 2 P N - sum pos (2 fp - neg)`` with ``fp`` the
    user's negatives scoring at least the score (ties included): the same integer as
    ``sum pos (2 (N - fp) + neg)``, but summed as the user's rows arrive, so a user may span
    batches. ``cap`` bounds the users (and, with ``pairs``, the (user, score) pairs) kept."""

    def __init__(self, cap: int, pairs: bool = False) -> None:
        self.cap = int(cap)
        self.users = 0
        self.n_pairs = 0
        self._users: list[tuple] | None = []
        self._pairs: list[tuple] | None = [] if pairs else None
        self._pair: tuple | None = None  # the last (user, score) run: may go on
        self._user: list | None = None  # [g, rows, P, N, S] of the last user: may go on
        self._sums = {"impressions": ([], []), "positives": ([], []), "uniform": ([], [])}
        self.skipped = {"only positives": 0, "only negatives": 0, "zero weight": 0}
        self.used = 0

    def add(self, g: np.ndarray, s: np.ndarray, y: np.ndarray) -> None:
        if g.size == 0:
            return
        new = np.empty(g.size, bool)
        new[0] = True
        np.not_equal(g[1:], g[:-1], out=new[1:])
        new[1:] |= s[1:] != s[:-1]
        starts = _starts(new)
        rows = np.diff(np.append(starts, g.size))
        pos = np.add.reduceat(y.astype(np.int64, copy=False), starts)
        pg, ps, pn, pp = g[starts], s[starts], rows, pos
        if self._pair is not None:
            cg, cs, cn, cp = self._pair
            if pg[0] == cg and ps[0] == cs:
                pn[0] += cn
                pp[0] += cp
                ps[0] = cs
            else:
                pg = np.concatenate((np.array([cg], dtype=pg.dtype), pg))
                ps = np.concatenate(([cs], ps))
                pn = np.concatenate(([cn], pn))
                pp = np.concatenate(([cp], pp))
        self._pair = (pg[-1], ps[-1], int(pn[-1]), int(pp[-1]))
        self._emit(pg[:-1], ps[:-1], pn[:-1], pp[:-1])

    def finish(self) -> UserRuns:
        if self._pair is not None:
            cg, cs, cn, cp = self._pair
            self._pair = None
            g = np.empty(1, dtype=object if isinstance(cg, str) else np.asarray(cg).dtype)
            g[0] = cg
            self._emit(g, np.array([cs], np.float64), np.array([cn]), np.array([cp]))
        if self._user is not None:
            u, self._user = self._user, None
            g = np.empty(1, dtype=object if isinstance(u[0], str) else np.asarray(u[0]).dtype)
            g[0] = u[0]
            self._users_done(g, *(np.array([v], np.int64) for v in u[1:4]), np.array([u[4]]))
        return self

    def _emit(self, g, s, rows, pos) -> None:
        if g.size == 0:
            return
        neg = rows - pos
        if self._pairs is not None:
            self.n_pairs += g.size
            if self.n_pairs <= self.cap:
                self._pairs.append((g, s.copy(), rows, pos, neg))
            else:
                self._pairs = None
        new = np.empty(g.size, bool)
        new[0] = True
        np.not_equal(g[1:], g[:-1], out=new[1:])
        starts = _starts(new)
        sizes = np.diff(np.append(starts, g.size))
        cum = np.cumsum(neg)
        fp = cum - np.repeat(cum[starts] - neg[starts], sizes)  # the user's negatives >= s
        going_on = self._user is not None and g[0] == self._user[0]
        if going_on:
            fp[: sizes[0]] += self._user[3]
        terms = pos * (2 * fp - neg)
        u_rows = np.add.reduceat(rows, starts)
        u_pos = np.add.reduceat(pos, starts)
        u_neg = np.add.reduceat(neg, starts)
        u_s = np.add.reduceat(terms, starts)
        if going_on:
            u_rows[0] += self._user[1]
            u_pos[0] += self._user[2]
            u_neg[0] += self._user[3]
            u_s[0] += self._user[4]
        elif self._user is not None:
            u = self._user
            one = np.empty(1, dtype=object if isinstance(u[0], str) else g.dtype)
            one[0] = u[0]
            self._users_done(one, *(np.array([v], np.int64) for v in u[1:4]), np.array([u[4]]))
        self._user = [g[starts[-1]], int(u_rows[-1]), int(u_pos[-1]), int(u_neg[-1]), int(u_s[-1])]
        if starts.size > 1:
            self._users_done(g[starts[:-1]], u_rows[:-1], u_pos[:-1], u_neg[:-1], u_s[:-1])

    def _users_done(self, g, rows, pos, neg, s) -> None:
        twice_u = 2 * pos * neg - s
        self.users += g.size
        if self._users is not None:
            if self.users <= self.cap:
                self._users.append((g, rows, pos, neg, twice_u))
            else:
                self._users = None
        # q.gauc's sums, term by term in doubles
        both = (pos > 0) & (neg > 0)
        self.used += int(np.count_nonzero(both))
        self.skipped["only positives"] += int(np.count_nonzero((pos > 0) & ~(neg > 0)))
        self.skipped["only negatives"] += int(np.count_nonzero(~(pos > 0) & (neg > 0)))
        self.skipped["zero weight"] += int(np.count_nonzero(~(pos > 0) & ~(neg > 0)))
        p = pos[both].astype(np.float64)
        n = neg[both].astype(np.float64)
        auc = twice_u[both].astype(np.float64) / (2 * p * n)
        for name, w in (("impressions", p + n), ("positives", p), ("uniform", None)):
            top, bottom = self._sums[name]
            if w is None:
                top.append(float(np.sum(auc)))
                bottom.append(float(auc.size))
            else:
                top.append(float(np.sum(w * auc)))
                bottom.append(float(np.sum(w)))

    def gauc(self) -> dict[str, float | None]:
        """GAUC in the three weightings (None without a user holding both classes)."""
        out = {}
        for name, (top, bottom) in self._sums.items():
            den = math.fsum(bottom)
            out[name] = math.fsum(top) / den if self.used else None
        return out

    def user_table(self) -> tuple | None:
        """(group, rows, positives, negatives, 2U) per user, or None above the cap."""
        return _joined(self._users, 5)

    def pair_table(self) -> tuple | None:
        """(group, score, rows, positives, negatives) per (user, score), or None."""
        return _joined(self._pairs, 5)


def _joined(parts: list[tuple] | None, width: int) -> tuple | None:
    if parts is None:
        return None
    if not parts:
        return tuple(np.zeros(0) for _ in range(width))
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(width))


_LIMB = 31  # an int64 below 2**62 splits into two parts of 31 bits, each summed without overflow
_FLUSH = 1 << 23  # rows buffered before their per-user sums are counted
PLACEMENT_LIMIT = 1 << 30  # classes up to which a twice-placement (<= 2 N) fits in 31 bits


def exact_sum(x: np.ndarray) -> int:
    """The exact sum of non-negative int64 values below 2**62 (up to 2**31 of them)."""
    if x.size == 0:
        return 0
    return (int(np.sum(x >> _LIMB)) << _LIMB) + int(np.sum(x & ((1 << _LIMB) - 1)))


def exact_dot(x: np.ndarray, y: np.ndarray) -> int:
    """The exact sum of ``x * y`` for non-negative int64 vectors (any size, any value): each is
    cut into three 21-bit limbs, whose products are summed in chunks that cannot overflow."""
    mask, chunk = (1 << 21) - 1, 1 << 20
    xs = [(x >> (21 * i)) & mask for i in range(3)]
    ys = [(y >> (21 * i)) & mask for i in range(3)]
    total = 0
    for i, a in enumerate(xs):
        if not a.any():
            continue
        for j, b in enumerate(ys):
            if not b.any():
                continue
            part = sum(int(np.sum(a[c : c + chunk] * b[c : c + chunk]))
                       for c in range(0, a.size, chunk))  # fmt: skip
            total += part << (21 * (i + j))
    return total


class PlacementSums:
    """DeLong's and Obuchowski's exact sums from rows in batches, without a join per row.

    A row's twice-placement under a model depends on its score only: for a positive ``t10 =
    2 (negatives below) + negatives tied``, for a negative ``t01 = 2 (positives above) + positives
    tied`` (:func:`metrics.sql._queries.placements`). Models with few distinct scores arrive with
    each row's placement already picked (the engine joins their small per-score tables); at most
    one model, ``ranked``, arrives as its scores, the stream sorted by them descending: a run of
    equal scores gives its placements once it is complete (it may span batches: its rows are held
    as counts until it ends). Per class, the sums of every model's placements and of every product
    of two models' are exact Python integers, equal to :func:`metrics.sql._queries.
    placement_moments`'s; with users numbered ``0 .. slots - 1``, each user's positives,
    negatives and placement sums are counted in int64, and :meth:`clusters` multiplies them as
    :func:`metrics.sql._queries.cluster_moments` does."""

    def __init__(self, n_pos: int, n_neg: int, models: int, ranked: int | None = None,
                 slots: int | None = None) -> None:  # fmt: skip
        self.n_pos, self.n_neg, self.models, self.ranked = int(n_pos), int(n_neg), models, ranked
        if max(self.n_pos, self.n_neg) >= PLACEMENT_LIMIT:
            raise ValueError("placements past 31 bits: use the engine's wide integers")
        self.rows = 0
        self.sums = {c: [0] * models for c in (0, 1)}
        pairs = [(i, j) for i in range(models) for j in range(i, models)]
        self.products = {c: dict.fromkeys(pairs, 0) for c in (0, 1)}
        self.slots = slots
        if slots is not None:
            self._count = np.zeros(2 * slots, np.int64)  # key 2u + y: negatives, positives
            self._sum = [np.zeros(2 * slots, np.int64) for _ in range(models)]
            self._buffer: list[tuple] = []
            self._buffered = 0
        self.tp = self.fp = 0  # the ranked model's positives and negatives above the held run
        self._run: dict | None = None  # the held run: score, counts, sums, users

    @staticmethod
    def footprint(models: int, slots: int | None) -> int:
        """Bytes held in numpy with ``slots`` users: the per-user counts and sums (int64, two
        classes), a long run of ties' per-user counts, and the rows buffered before they are
        counted (with their concatenation)."""
        if slots is None:
            return 0
        return 16 * slots * (models + 2) + 2 * _FLUSH * (4 + 8 * models)

    def add(self, y: np.ndarray, placed: dict[int, np.ndarray], s: np.ndarray | None = None,
            u: np.ndarray | None = None) -> None:  # fmt: skip
        """One batch: labels ``y`` (0/1), ``placed[i]`` the placements of model ``i`` (every
        model but the ranked one), ``s`` the ranked model's scores, ``u`` the users."""
        if y.size == 0:
            return
        self.rows += y.size
        y = y.astype(np.int64, copy=False)
        if u is not None:  # the per-user key 2u + y, in 32 bits while it fits (half the memory)
            kind = np.int64 if 2 * self.slots >= 2**31 else np.int32
            u = 2 * u.astype(kind) + y.astype(kind)
        if self.ranked is None:
            self._rows(y, placed, u)
            return
        k = self.ranked
        new = np.empty(s.size, bool)
        new[0] = True
        np.not_equal(s[1:], s[:-1], out=new[1:])
        starts = _starts(new)
        run = self._run
        if run is not None and s[0] != run["s"]:
            self._close()
            run = None
        last = int(starts[-1])
        if last > 0:  # complete runs: rows [0, last)
            done = starts[:-1]
            lengths = np.diff(starts)
            pos = np.add.reduceat(y[:last], done)
            neg = lengths - pos
            ends_held = run is not None  # the first run goes on from the held one
            if ends_held:
                pos[0] += run["pos"]
                neg[0] += run["neg"]
            tp_before = self.tp + np.cumsum(pos) - pos
            fp_before = self.fp + np.cumsum(neg) - neg
            t10 = 2 * (self.n_neg - fp_before) - neg
            t01 = 2 * tp_before + pos
            if ends_held:
                self._settle(run, int(t10[0]), int(t01[0]))
                self._run = None
            self.tp += int(np.sum(pos))
            self.fp += int(np.sum(neg))
            head = y[:last]
            both = dict(placed)
            both[k] = np.where(head == 1, np.repeat(t10, lengths), np.repeat(t01, lengths))
            self._rows(head, {i: a if i == k else a[:last] for i, a in both.items()},
                       None if u is None else u[:last])  # fmt: skip
        self._hold(s[last], y[last:], {i: a[last:] for i, a in placed.items()},
                   None if u is None else u[last:])  # fmt: skip

    def _hold(self, score, y, placed, u) -> None:
        """Rows of the last run of a batch, which may go on: counted for every model but the
        ranked one, and kept as sums (and per-user counts) until its placements are known."""
        self._rows(y, placed, u)
        run = self._run
        if run is None:
            run = self._run = {"s": score, "pos": 0, "neg": 0, "users": [], "held": 0,
                               "by_user": None,
                               "sums": {c: dict.fromkeys(placed, 0) for c in (0, 1)}}  # fmt: skip
        p = int(np.sum(y))
        run["pos"] += p
        run["neg"] += y.size - p
        for i, a in placed.items():
            on_pos = exact_sum(a * y)
            run["sums"][1][i] += on_pos
            run["sums"][0][i] += exact_sum(a) - on_pos
        if u is not None:
            run["users"].append(u)
            run["held"] += y.size
            if run["held"] >= _FLUSH:  # a long run of ties: its users as counts, bounded
                if run["by_user"] is None:
                    run["by_user"] = np.zeros(2 * self.slots, np.int64)
                np.add.at(run["by_user"], np.concatenate(run["users"]), 1)
                run["users"], run["held"] = [], 0

    def _close(self) -> None:
        """The held run ended at a batch's edge: its placements from its own counts."""
        run, self._run = self._run, None
        t10 = 2 * (self.n_neg - self.fp) - run["neg"]
        t01 = 2 * self.tp + run["pos"]
        self._settle(run, t10, t01)
        self.tp += run["pos"]
        self.fp += run["neg"]

    def _settle(self, run: dict, t10: int, t01: int) -> None:
        """Add the held run's terms of the ranked model, its placements now known."""
        k = self.ranked
        for c, t, n in ((1, t10, run["pos"]), (0, t01, run["neg"])):
            self.sums[c][k] += t * n
            self.products[c][(k, k)] += t * t * n
            for i, total in run["sums"][c].items():
                self.products[c][(min(i, k), max(i, k))] += t * total
        if self.slots is not None:
            if run["users"]:  # the run's last rows, one by one (a run is short but for ties)
                keys = np.concatenate(run["users"])
                np.add.at(self._sum[k], keys, np.where(keys & 1, t10, t01))
            counts = run["by_user"]
            if counts is not None:  # a long run's rows, counted per user
                self._sum[k][0::2] += counts[0::2] * t01
                self._sum[k][1::2] += counts[1::2] * t10

    def _rows(self, y, placed: dict[int, np.ndarray], u) -> None:
        """Rows whose placements are known for the models in ``placed``: their class sums and
        products, and (with users) their per-user sums. Every row passes here once with its
        count."""
        if y.size == 0:
            return
        keys = list(placed)
        positive = y == 1
        for c, rows in ((1, positive), (0, ~positive)):
            wide = {i: a[rows].astype(np.int64, copy=False) for i, a in placed.items()}
            for a, i in enumerate(keys):
                x = wide[i]
                self.sums[c][i] += int(np.sum(x))  # below 2**63 for fewer than 2**32 rows
                for j in keys[a:]:
                    self.products[c][(min(i, j), max(i, j))] += exact_sum(x * wide[j])
        if u is not None:
            self._buffer.append((u, placed))
            self._buffered += y.size
            if self._buffered >= _FLUSH:
                self._flush()

    def _flush(self) -> None:
        """Per-user sums of the buffered rows, added in place into the int64 counts and sums
        with :func:`numpy.add.at` (exact: a user's sum stays below 2**62). ``bincount`` made a
        new array of every slot each time, in float64 (exact only while a sum stayed below
        2**53, which had to be checked): three times slower at 1e7 users, its fresh pages
        faulted in at every flush."""
        if not self._buffer:
            return
        keys = np.concatenate([b[0] for b in self._buffer])
        np.add.at(self._count, keys, 1)
        for i in range(self.models):
            parts = [(b[0], b[1][i]) for b in self._buffer if i in b[1]]
            if not parts:
                continue
            kk = parts[0][0] if len(parts) == 1 else np.concatenate([p[0] for p in parts])
            w = parts[0][1] if len(parts) == 1 else np.concatenate([p[1] for p in parts])
            np.add.at(self._sum[i], kk, w.astype(np.int64, copy=False))  # int64 both: fast
        self._buffer, self._buffered = [], 0

    def finish(self) -> PlacementSums:
        if self._run is not None:
            self._close()
        if self.slots is not None:
            self._flush()
        return self

    def clusters(self) -> tuple[int, int, int, dict[tuple[str, str], int]]:
        """(clusters, those with a positive, those with a negative, the sum over clusters of
        every product of two of m, n, p0.., q0..: as :func:`metrics.sql._queries.
        cluster_moments`), over the users that have a row."""
        m, n = self._count[1::2], self._count[0::2]
        seen = (m + n) > 0
        vectors = {"m": m[seen], "n": n[seen]}
        for i in range(self.models):
            vectors[f"p{i}"] = self._sum[i][1::2][seen]
        for i in range(self.models):
            vectors[f"q{i}"] = self._sum[i][0::2][seen]
        names = list(vectors)
        products = {(a, b): exact_dot(vectors[a], vectors[b])
                    for i, a in enumerate(names) for b in names[i:]}  # fmt: skip
        return (int(np.count_nonzero(seen)), int(np.count_nonzero(vectors["m"])),
                int(np.count_nonzero(vectors["n"])), products)  # fmt: skip
