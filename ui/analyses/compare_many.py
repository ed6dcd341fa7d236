"""Three or more models on Compare: ranks over blocks, Friedman's test, Nemenyi's
critical-difference diagram, McNemar at each pair's operating points, and the pairwise table
under Holm with its compact letter display.

Pure: numpy, pandas and plotly (no Streamlit); the page renders what these return.

Blocks are what the models are ranked over: users (one AUC per user, as GAUC computes it), the
values of a slice column, or bootstrap resamples of the one table. Friedman's test assumes
independent blocks; users and slices roughly are, resamples are not (they share most of their
rows), so over resamples the p-value is descriptive only.

References
----------
J. Demšar (2006), "Statistical comparisons of classifiers over multiple data sets", JMLR 7, 1-30.
S. Holm (1979), "A simple sequentially rejective multiple test procedure", Scandinavian Journal
of Statistics 6(2), 65-70.
Q. McNemar (1947), "Note on the sampling error of the difference between correlated proportions
or percentages", Psychometrika 12(2), 153-157.
H.-P. Piepho (2004), "An algorithm for a letter-based representation of all-pairwise
comparisons", Journal of Computational and Graphical Statistics 13(2), 456-466.
S. García, F. Herrera (2008), "An extension on 'Statistical comparisons of classifiers over
multiple data sets' for all pairwise comparisons", JMLR 9, 2677-2694.
"""

from __future__ import annotations

import itertools
import math
import string
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

import metrics
from metrics.model_tests import FriedmanResult, ImanDavenportResult
from metrics.significance import holm_adjust
from ui.words.text import num, tex_name

__all__ = [
    "EXACT_BELOW",
    "RESAMPLES",
    "SLICES",
    "USERS",
    "Blocks",
    "RankAnalysis",
    "analyse",
    "compact_letters",
    "follow_blocks",
    "friedman_lines",
    "group_blocks",
    "holm_lines",
    "letters_table",
    "mcnemar_lines",
    "mcnemar_pairs",
    "nemenyi_lines",
    "page_pairs",
    "rank_pair_lines",
    "rank_pairs",
    "resample_blocks",
    "significance_matrix",
    "tex_p",
]

USERS, SLICES, RESAMPLES = "users", "slices", "resamples"
# McNemar is exact (the binomial test on the discordant rows) below this many discordant rows,
# else the chi-square with continuity correction (Edwards 1948), fine from about 25 on.
EXACT_BELOW = 25


# --- blocks --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Blocks:
    """One AUC per block and model.

    Attributes
    ----------
    kind : {"users", "slices", "resamples"}
    name : str
        The column the blocks come from (the user column, the slice column) or "resamples".
    labels : ndarray of shape (n_blocks,)
        Each block's id (user, slice value, resample number).
    table : ndarray of shape (n_blocks, n_models)
    models : tuple of str
    skipped : int
        Blocks left out because a model's AUC is undefined there (one class only, or too few
        rows), with ``skipped_reason`` saying why.
    skipped_reason : str
    rows : ndarray of shape (n_blocks,)
        Rows per block (for resamples: rows drawn).
    """

    kind: str
    name: str
    labels: np.ndarray
    table: np.ndarray
    models: tuple[str, ...]
    skipped: int
    skipped_reason: str
    rows: np.ndarray


def group_blocks(
    y: np.ndarray,
    scores: dict[str, np.ndarray],
    groups: np.ndarray,
    *,
    kind: str = USERS,
    name: str = "user",
    weight: np.ndarray | None = None,
    min_rows: int = 1,
) -> Blocks:
    """Each model's AUC within each group (user, query or slice value), as GAUC computes it.

    A group with one class only (or fewer than ``min_rows`` rows) has no AUC for any model:
    it is skipped, and counted in ``skipped``.
    """
    if kind not in (USERS, SLICES):
        raise ValueError(f"kind must be {USERS!r} or {SLICES!r} for groups, got {kind!r}.")
    models = tuple(scores)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        tables = [
            metrics.group_auc_table(y, scores[m], groups, sample_weight=weight) for m in models
        ]
    auc = np.column_stack([t.auc for t in tables])
    rows = tables[0].rows
    keep = np.isfinite(auc).all(axis=1) & (rows >= min_rows)
    one_class = int(np.count_nonzero(~np.isfinite(auc).all(axis=1)))
    small = int(np.count_nonzero(np.isfinite(auc).all(axis=1) & (rows < min_rows)))
    reasons = []
    if one_class:
        reasons.append(f"{one_class:,} with one class only (no AUC)")
    if small:
        reasons.append(f"{small:,} with fewer than {min_rows:,} rows")
    return Blocks(
        kind=kind,
        name=name,
        labels=np.asarray(tables[0].group)[keep],
        table=auc[keep],
        models=models,
        skipped=one_class + small,
        skipped_reason="; ".join(reasons),
        rows=np.asarray(rows)[keep],
    )


def resample_blocks(replicates: np.ndarray, models: tuple[str, ...], n_rows: int) -> Blocks:
    """Each model's AUC on each bootstrap resample (``replicates`` of shape (n_resamples,
    n_models), NaN where a resample drew one class only: those are skipped)."""
    r = np.asarray(replicates, dtype=np.float64)
    if r.ndim != 2 or r.shape[1] != len(models):
        raise ValueError(
            f"replicates must have one column per model ({len(models)}), got shape {r.shape}."
        )
    keep = np.isfinite(r).all(axis=1)
    skipped = int(np.count_nonzero(~keep))
    return Blocks(
        kind=RESAMPLES,
        name="resamples",
        labels=np.flatnonzero(keep) + 1,
        table=r[keep],
        models=tuple(models),
        skipped=skipped,
        skipped_reason=f"{skipped:,} drew one class only" if skipped else "",
        rows=np.full(int(keep.sum()), n_rows),
    )


def follow_blocks(choices, previous, current):
    """What to rank over, of ``choices`` (best first: users, then slices, then resamples),
    given the choices of the last run (``previous``, None on a first visit) and the value
    shown then (``current``).

    A setting whose options changed follows the data: when the best choice is not the one it
    was (a user column was just mapped, or unmapped) or the shown value is no longer offered,
    the best choice is taken; otherwise the user's pick stays, even as other choices come and
    go (resamples set to 0 and back).
    """
    choices = list(choices)
    if current not in choices or not previous or previous[0] != choices[0]:
        return choices[0]
    return current


# --- Friedman, Nemenyi and the pairwise rank tests -----------------------------------------------


@dataclass(frozen=True, eq=False)
class RankAnalysis:
    """Friedman's test, Iman-Davenport's F and the ranks table of some blocks."""

    blocks: Blocks
    friedman: FriedmanResult
    iman_davenport: ImanDavenportResult
    ranks: pd.DataFrame  # model, mean rank, mean AUC, median AUC, blocks won; best first


def analyse(blocks: Blocks, *, alpha: float = 0.05) -> RankAnalysis:
    """Friedman (ties corrected), Iman-Davenport and Nemenyi on the blocks' AUCs (rank 1 the
    highest AUC in a block). Needs at least 2 blocks."""
    if blocks.table.shape[0] < 2:
        raise ValueError(
            f"Friedman's test needs at least 2 blocks with every model's AUC defined, got "
            f"{blocks.table.shape[0]}."
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.UndefinedMetricWarning)
        fr = metrics.friedman_test(blocks.table, alpha=alpha)
        idf = metrics.iman_davenport_test(blocks.table)
    t = blocks.table
    best = t == t.max(axis=1, keepdims=True)
    ranks = pd.DataFrame(
        {
            "model": list(blocks.models),
            "mean rank": fr.average_ranks,
            "mean AUC": t.mean(axis=0),
            "median AUC": np.median(t, axis=0),
            "blocks best (ties shared)": (best / best.sum(axis=1, keepdims=True)).sum(axis=0),
        }
    )
    ranks = ranks.sort_values("mean rank", kind="stable").reset_index(drop=True)
    return RankAnalysis(blocks, fr, idf, ranks)


def _pair_frame(models, p_values: dict, extra: dict, better: list[float], alpha: float = 0.05):
    """Pairs (i < j) with ``extra`` columns, the better model (``better`` > 0: A, < 0: B, 0:
    neither), the p-values, Holm's adjustment and the verdict."""
    pairs = list(itertools.combinations(range(len(models)), 2))
    p = np.array([p_values[pair] for pair in pairs], dtype=np.float64)
    holm = holm_adjust(p)
    frame = pd.DataFrame(
        {
            "model A": [models[i] for i, _ in pairs],
            "model B": [models[j] for _, j in pairs],
            **extra,
            "better": [
                models[i] if d > 0 else models[j] if d < 0 else "neither"
                for (i, j), d in zip(pairs, better, strict=True)
            ],
            "p-value": p,
            "Holm p": holm,
        }
    )
    frame["different at 5%" if alpha == 0.05 else f"different at {alpha:g}"] = holm < alpha
    return frame


def rank_pairs(analysis: RankAnalysis, *, alpha: float = 0.05) -> pd.DataFrame:
    """Every pair's mean-rank test (Demšar 2006, Section 3.2.2; all pairs as García & Herrera
    2008): ``z = (R_i - R_j) / sqrt(k (k + 1) / (6 N))``, two-sided normal p-value, Holm's
    step-down adjustment across the ``k (k - 1) / 2`` pairs."""
    fr = analysis.friedman
    models = analysis.blocks.models
    se = math.sqrt(fr.n_models * (fr.n_models + 1) / (6.0 * fr.n_blocks))
    r = fr.average_ranks
    pairs = list(itertools.combinations(range(len(models)), 2))
    z = {(i, j): (r[i] - r[j]) / se for i, j in pairs}
    # 2 (1 - Phi(|z|)) = erfc(|z| / sqrt 2), without the cancellation in 1 - Phi for large z.
    p = {pair: math.erfc(abs(v) / math.sqrt(2.0)) for pair, v in z.items()}
    return _pair_frame(
        models,
        p,
        {
            "mean rank A": [r[i] for i, _ in pairs],
            "mean rank B": [r[j] for _, j in pairs],
            "z": [z[pair] for pair in pairs],
        },
        [-z[pair] for pair in pairs],  # a lower mean rank is better
        alpha,
    )


def page_pairs(pairs: pd.DataFrame, models: tuple[str, ...], *, alpha: float = 0.05):
    """The page's paired AUC tests (one row per pair with ``model A``, ``model B``,
    ``A − B``, ``p-value`` and ``test``), Holm-adjusted again across exactly these pairs
    in the layout of :func:`rank_pairs`."""
    index = {m: k for k, m in enumerate(models)}
    p, diff, test = {}, {}, {}
    for row in pairs.to_dict("records"):
        i, j = index[row["model A"]], index[row["model B"]]
        key = (min(i, j), max(i, j))
        sign = 1.0 if i < j else -1.0
        p[key], diff[key], test[key] = row["p-value"], sign * row["A − B"], row["test"]
    combos = list(itertools.combinations(range(len(models)), 2))
    missing = [c for c in combos if c not in p]
    if missing:
        raise ValueError(
            f"the pairs table misses {len(missing)} pair(s), e.g. {models[missing[0][0]]!r} "
            f"and {models[missing[0][1]]!r}."
        )
    return _pair_frame(
        models,
        p,
        {
            "AUC A − AUC B": [diff[c] for c in combos],
            "test": [test[c] for c in combos],
        },
        [diff[c] for c in combos],
        alpha,
    )


def significance_matrix(pairs: pd.DataFrame, models: tuple[str, ...], *, alpha: float = 0.05):
    """Symmetric bool matrix: True where the pair's Holm p is below ``alpha`` (NaN: not)."""
    index = {m: k for k, m in enumerate(models)}
    sig = np.zeros((len(models), len(models)), dtype=bool)
    for a, b, h in pairs[["model A", "model B", "Holm p"]].itertuples(index=False):
        sig[index[a], index[b]] = sig[index[b], index[a]] = bool(h < alpha)
    return sig


# --- compact letter display (Piepho 2004) --------------------------------------------------------


def _letter(n: int) -> str:
    """a, b, ..., z, aa, ab, ..."""
    out = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        out = string.ascii_lowercase[rest] + out
    return out


def compact_letters(significant: np.ndarray, order: list[int] | None = None) -> list[str]:
    """Letters per model such that two models share a letter exactly when their difference is
    not significant (Piepho 2004's insert-absorb algorithm).

    Parameters
    ----------
    significant : bool ndarray of shape (k, k)
        Symmetric; True where the pair differs significantly.
    order : list of int, optional
        The models best first: letter "a" goes to the group holding the first of them.

    Returns
    -------
    list of str
        One string of letters per model, in the input order.

    Notes
    -----
    Start with one letter (column) shared by every model. For each significant pair (i, j),
    every column holding both is split in two, one without i and one without j (insert); then
    every column contained in another is dropped (absorb). A column holding a non-significant
    pair is always split into one that still holds both, so each such pair keeps a letter.
    """
    sig = np.asarray(significant, dtype=bool)
    k = sig.shape[0]
    if sig.shape != (k, k) or not np.array_equal(sig, sig.T):
        raise ValueError(f"significant must be a symmetric square matrix, got shape {sig.shape}.")
    columns: list[frozenset[int]] = [frozenset(range(k))]
    for i, j in itertools.combinations(range(k), 2):
        if not sig[i, j]:
            continue
        split: list[frozenset[int]] = []
        for c in columns:
            if i in c and j in c:
                split.extend((c - {j}, c - {i}))
            else:
                split.append(c)
        columns = []
        for c in split:  # absorb: keep a column only if no other one contains it
            if c and not any(c < d for d in split) and c not in columns:
                columns.append(c)
    position = {m: p for p, m in enumerate(order if order is not None else range(k))}
    columns.sort(key=lambda c: sorted(position[m] for m in c))
    letters = [""] * k
    for n, c in enumerate(columns):
        for m in c:
            letters[m] += _letter(n)
    return letters


def letters_table(
    ranks: pd.DataFrame, pairs: pd.DataFrame, models: tuple[str, ...], *, alpha: float = 0.05
) -> pd.DataFrame:
    """The ranks table (best first) with a ``letters`` column from the pairs' Holm verdicts."""
    index = {m: k for k, m in enumerate(models)}
    order = [index[m] for m in ranks["model"]]
    letters = compact_letters(significance_matrix(pairs, models, alpha=alpha), order)
    out = ranks.copy()
    out.insert(1, "letters", [letters[index[m]] for m in out["model"]])
    return out


# --- McNemar at the operating points -------------------------------------------------------------


def mcnemar_pairs(
    y: np.ndarray,
    scores: dict[str, np.ndarray],
    thresholds: dict[str, float],
    *,
    exact_below: int = EXACT_BELOW,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """McNemar's test of every pair's decisions, each model at its own threshold (a score at or
    above it predicts positive): the discordant counts, exact (binomial) below
    ``exact_below`` discordant rows, else chi-square with continuity correction; Holm across
    the pairs. Rows are counted as independent and unweighted."""
    models = tuple(scores)
    y = np.asarray(y).astype(bool)
    preds = {m: np.asarray(scores[m]) >= thresholds[m] for m in models}
    p, extra = {}, {"threshold A": [], "threshold B": [], "only A right": [],
                    "only B right": [], "test": [], "statistic": []}  # fmt: skip
    for i, j in itertools.combinations(range(len(models)), 2):
        a, b = models[i], models[j]
        right_a, right_b = preds[a] == y, preds[b] == y
        discordant = int(np.count_nonzero(right_a != right_b))
        exact = discordant < exact_below
        r = metrics.mcnemar_test(y, preds[a], preds[b], exact=exact)
        p[(i, j)] = r.p_value
        extra["threshold A"].append(float(thresholds[a]))
        extra["threshold B"].append(float(thresholds[b]))
        extra["only A right"].append(r.only_a_right)
        extra["only B right"].append(r.only_b_right)
        extra["test"].append("exact" if exact else "chi-square (cc)")
        extra["statistic"].append(r.statistic)
    better = [a - b for a, b in zip(extra["only A right"], extra["only B right"], strict=True)]
    return _pair_frame(models, p, extra, better, alpha)


# --- the critical-difference diagram -------------------------------------------------------------


def tex_p(p: float) -> str:
    """A p-value for LaTeX with its relation: ``= 0.0123``, ``= 6.61 \\times 10^{-10}`` below
    0.001, ``< 10^{-300}`` where it underflows to 0."""
    p = float(p)
    if math.isnan(p):
        return r"= \text{undefined}"
    if p == 0.0:
        return r"< 10^{-300}"
    if p >= 1e-3:
        return f"= {p:.3g}"
    exponent = math.floor(math.log10(p))
    mantissa = p / 10.0**exponent
    if round(mantissa, 2) >= 10.0:
        mantissa, exponent = mantissa / 10.0, exponent + 1
    return rf"= {mantissa:.3g} \times 10^{{{exponent}}}"


def friedman_lines(analysis: RankAnalysis) -> list[str]:
    """Friedman's chi-square and Iman-Davenport's F with the blocks' numbers in."""
    fr, idf = analysis.friedman, analysis.iman_davenport
    n, k = fr.n_blocks, fr.n_models
    sum_sq = float(np.sum(fr.average_ranks**2))
    plain = 12.0 * n / (k * (k + 1)) * (sum_sq - k * (k + 1) ** 2 / 4.0)
    c = plain / fr.statistic if fr.statistic else 1.0
    return [
        r"\chi^2_F = \frac{12N}{k(k+1)}\left[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\right] / C"
        rf" = \frac{{12 \cdot {num(n)}}}{{{k} \cdot {k + 1}}}\left[{num(sum_sq)} - "
        rf"\frac{{{k} \cdot {(k + 1) ** 2}}}{{4}}\right] / {num(c)} = {num(fr.statistic)}",
        rf"p = P(\chi^2_{{{k - 1}}} > {num(fr.statistic)}) {tex_p(fr.p_value)}",
        r"F_F = \frac{(N-1)\,\chi^2_F}{N(k-1) - \chi^2_F} = "
        rf"\frac{{{num(n - 1)} \cdot {num(fr.statistic)}}}{{{num(n * (k - 1))} - "
        rf"{num(fr.statistic)}}} = {num(idf.statistic)},\quad p = P(F_{{{idf.df_numerator},"
        rf"{idf.df_denominator}}} > F_F) {tex_p(idf.p_value)}",
    ]


def nemenyi_lines(analysis: RankAnalysis) -> list[str]:
    fr = analysis.friedman
    n, k = fr.n_blocks, fr.n_models
    return [
        r"\text{CD} = q_\alpha \sqrt{\frac{k(k+1)}{6N}} = "
        rf"{fr.q_alpha:.3f} \sqrt{{\frac{{{k} \cdot {k + 1}}}{{6 \cdot {num(n)}}}}} = "
        rf"{num(fr.critical_difference)}"
    ]


def rank_pair_lines(analysis: RankAnalysis, pairs: pd.DataFrame) -> list[str]:
    """The first pair's mean-rank z and Holm's adjustment."""
    fr = analysis.friedman
    row = pairs.iloc[0]
    a, b = tex_name(row["model A"]), tex_name(row["model B"])
    return [
        rf"z = \frac{{R_{{\text{{{a}}}}} - R_{{\text{{{b}}}}}}}{{\sqrt{{k(k+1)/(6N)}}}} = "
        rf"\frac{{{num(row['mean rank A'])} - {num(row['mean rank B'])}}}"
        rf"{{\sqrt{{{fr.n_models} \cdot {fr.n_models + 1} / (6 \cdot {num(fr.n_blocks)})}}}}"
        rf" = {num(row['z'])},\quad p = 2\,(1 - \Phi(|z|)) {tex_p(row['p-value'])}",
        *holm_lines(pairs),
    ]


def holm_lines(pairs: pd.DataFrame) -> list[str]:
    m = len(pairs)
    return [
        r"p_{\text{Holm},(i)} = \max_{j \le i} \min\big(1,\ (m - j + 1)\,p_{(j)}\big),"
        rf"\qquad m = {m} \text{{ pairs}}"
    ]


def mcnemar_lines(row: dict) -> list[str]:
    """McNemar's test of one pair, exact or chi-square as the row says."""
    b, c = int(row["only A right"]), int(row["only B right"])
    a, bb = tex_name(row["model A"]), tex_name(row["model B"])
    head = (
        rf"b = \#\{{\text{{only {a} right}}\}} = {num(b)},\qquad "
        rf"c = \#\{{\text{{only {bb} right}}\}} = {num(c)}"
    )
    if row["test"].startswith("exact"):
        body = (
            rf"p = \min\!\Big(1,\ 2 \sum_{{i=0}}^{{\min(b,c)}} \binom{{b+c}}{{i}} 2^{{-(b+c)}}"
            rf"\Big) {tex_p(row['p-value'])}"
        )
    else:
        body = (
            rf"\chi^2 = \frac{{(|b - c| - 1)^2}}{{b + c}} = \frac{{(|{b} - {c}| - 1)^2}}"
            rf"{{{b + c}}} = {num(row['statistic'])},\quad p = P(\chi^2_1 > \chi^2) "
            rf"{tex_p(row['p-value'])}"
        )
    return [head, body]
