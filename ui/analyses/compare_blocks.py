"""Compare's section on three or more models, in words and tables: what the models can be
ranked over, what the blocks are, which pairs the letters come from, and how McNemar's table
reads on grouped rows. The tests themselves are :mod:`ui.analyses.compare_many`'s."""

from __future__ import annotations

import numpy as np
import pandas as pd

from metrics.significance import format_p
from ui.analyses import compare_many
from ui.analyses.compare_many import RESAMPLES, SLICES, USERS, Blocks, RankAnalysis
from ui.words.numbers import decimals
from ui.words.safe import md

__all__ = [
    "CD_CAPTION",
    "LETTERS_HELP",
    "MIN_SLICE_ROWS",
    "NEMENYI_NOTE",
    "NO_BLOCKS",
    "RANK_HELP",
    "RESAMPLES_WARNING",
    "ROW_LEVEL",
    "SOURCES",
    "block_choices",
    "block_name",
    "blocks_caption",
    "few_blocks",
    "friedman_note",
    "friedman_sentence",
    "holm_explain",
    "many_models_csv",
    "mcnemar_caption",
    "mcnemar_note",
    "mcnemar_shown",
    "mcnemar_warning",
    "pairs_caption",
    "pairs_for",
    "slice_groups",
]

MIN_SLICE_ROWS = 10  # a slice value with fewer rows is not ranked on

NO_BLOCKS = (
    "Ranking the models needs blocks to rank them over: map a user column or a slice "
    "column on the Data page, or set resamples above 0 (a weaker stand-in: resamples "
    "are not independent data sets)."
)
RANK_HELP = (
    "Friedman's test ranks the models within each block and asks whether the mean "
    "ranks differ more than chance would make them. Users and slices are separate sets of "
    "rows; resamples of one table share most of their rows, so they are not independent "
    "and the test's p-value over them is descriptive only."
)
RESAMPLES_WARNING = (
    "Resamples are not independent data sets: they redraw the same rows, and the more "
    "resamples, the smaller Friedman's p-value, with nothing new learned. Over "
    "resamples the ranks and the p-value are descriptive only; the pairs below use the "
    "paired tests of the table above. Rank over users or slices (map a user or slice "
    "column on the Data page) for a test over independent blocks."
)
LETTERS_HELP = (
    "Models sharing a letter are not significantly different "
    "(Holm, 5%); models with no letter in common are."
)
CD_CAPTION = (
    "Critical-difference diagram (Demšar 2006): each model hangs from its mean rank, the "
    "best (rank 1) on the left. A thick bar joins models whose mean ranks differ by no "
    "more than Nemenyi's critical difference (the bar marked CD, to scale): the blocks "
    "cannot tell them apart. Letters in the table come from the pairs below (Holm), so "
    "they can differ from the bars."
)
NEMENYI_NOTE = (
    "q_α is the studentized range quantile for k means with infinite degrees of "
    "freedom, over √2 (Demšar 2006, Table 5: 2.343 for 3 models at 5%). Two models whose "
    "mean ranks differ by more than CD differ at 5%, all pairs at once. Source: Nemenyi "
    "(1963), as Demšar, JMLR 7 (2006) 1–30, presents it."
)
SOURCES = (
    "Sources: J. Demšar, JMLR 7 (2006) 1–30; R. L. Iman & J. M. Davenport (1980); S. "
    "García & F. Herrera, JMLR 9 (2008) 2677–2694; S. Holm, Scand. J. Statist. 6 (1979) "
    "65–70; Q. McNemar, Psychometrika 12 (1947) 153–157; H.-P. Piepho, J. Comput. Graph. "
    "Statist. 13 (2004) 456–466."
)
# On grouped rows McNemar's p-values are row-level, and named so.
ROW_LEVEL = {"p-value": "row-level p", "Holm p": "row-level Holm p"}

_NAMES = {
    USERS: lambda c: f"users ({c}): each model's AUC per user",
    SLICES: lambda c: f"slices of {c}: each model's AUC per value",
    RESAMPLES: lambda c: "bootstrap resamples of all rows (descriptive only)",
}


def block_choices(
    group_column: str | None,
    clustered: bool,
    slices: tuple[str, ...],
    sliced_on: str | None,
    wanted: bool,
) -> list[tuple[str, str | None]]:
    """What the models can be ranked over, best first: users (on clustered rows), each slice
    column but the one the data is scoped to, then bootstrap resamples (when computed)."""
    choices: list[tuple[str, str | None]] = []
    if clustered:
        choices.append((USERS, group_column))
    choices += [(SLICES, c) for c in slices if c != sliced_on]
    if wanted:
        choices.append((RESAMPLES, None))
    return choices


def block_name(option: tuple[str, str | None]) -> str:
    """How the choice reads in 'Rank the models over'."""
    kind, column = option
    return _NAMES[kind](column)


def slice_groups(values: np.ndarray, kept: np.ndarray | None) -> np.ndarray:
    """A slice column's values on the rows the metrics use, as text (the blocks' ids)."""
    if kept is not None:
        values = values[kept]
    return pd.Series(values).astype(str).to_numpy()


def blocks_caption(blocks: Blocks, column: str | None) -> str:
    """What the blocks are, how many, and how many were skipped and why."""
    n = blocks.table.shape[0]
    if blocks.kind == RESAMPLES:
        what = f"{n:,} bootstrap resamples"
    elif blocks.kind == USERS:
        what = f"{n:,} users ({md(column)})"
    else:
        what = f"{n:,} values of {md(column)}"
    skipped = (
        f" Skipped {blocks.skipped:,}: {md(blocks.skipped_reason, limit=200)}."
        if blocks.skipped
        else ""
    )
    return (
        f"Blocks: **{what}**. In each block every model's AUC is ranked, 1 the highest (ties "
        "share their mean rank)." + skipped
    )


def few_blocks(n: int) -> str:
    """Why there is no ranking on fewer than two blocks."""
    return f"Only {n} block with every model's AUC defined: ranking needs at least 2."


def pairs_for(
    kind: str, analysis: RankAnalysis, pairs: pd.DataFrame, models: tuple[str, ...]
) -> tuple[pd.DataFrame, str]:
    """The pairs the letters come from, and by which test: over resamples the page's own
    paired AUC tests, else the mean-rank z test on the blocks; both Holm-adjusted."""
    if kind == RESAMPLES:
        auc_pairs = pairs[pairs["metric"] == "AUC"]
        how = (
            "the paired AUC test of the table above ("
            + ", ".join(sorted({md(t) for t in auc_pairs["test"]}))
            + "), Holm-adjusted across these pairs"
        )
        return compare_many.page_pairs(auc_pairs, models), how
    return (
        compare_many.rank_pairs(analysis),
        "the mean-rank z test on the same blocks, Holm-adjusted across the pairs",
    )


def friedman_sentence(analysis: RankAnalysis, kind: str) -> str:
    """Friedman's chi-square, Iman-Davenport's F and Nemenyi's critical difference."""
    fr, idf = analysis.friedman, analysis.iman_davenport
    descriptive = " (descriptive only: resamples)" if kind == RESAMPLES else ""
    return (
        f"Friedman's χ² = **{decimals(fr.statistic, 3)}**, {format_p(fr.p_value)}{descriptive}; "
        f"Iman-Davenport's F = **{decimals(idf.statistic, 3)}** on ({idf.df_numerator}, "
        f"{idf.df_denominator}) degrees of freedom, {format_p(idf.p_value)}. Nemenyi's "
        f"critical difference at 5%: **{decimals(fr.critical_difference, 3)}** in mean rank "
        f"({fr.n_models} models, {fr.n_blocks:,} blocks)."
    )


def friedman_note(analysis: RankAnalysis) -> str:
    """What the symbols of Friedman's statistic are, and the sources."""
    fr = analysis.friedman
    return (
        f"N = {fr.n_blocks:,} blocks, k = {fr.n_models} models, R_j the mean rank of "
        "model j; C = 1 − Σ(t³ − t) / (N k (k² − 1)) corrects for ties (t: the size of each "
        "group of tied AUCs in a block). Iman & Davenport's F is less conservative than the "
        "chi-square (Demšar 2006, Section 3.2.2). Sources: Friedman (1937); Iman & Davenport "
        "(1980); Demšar, JMLR 7 (2006) 1–30."
    )


def pairs_caption(how: str, kind: str) -> str:
    """Which test each pair under Holm comes from, and how the letters are drawn."""
    return (
        f"Each pair by {how}. "
        + (
            "Over resamples a rank test would count every resample as new data, so the pairs "
            "are the page's own paired tests of the AUC difference on all rows."
            if kind == RESAMPLES
            else "The z test uses the same ranks as Friedman's test and the diagram "
            "(Demšar 2006, Section 3.2.2, for all pairs as García & Herrera 2008); Holm's "
            "step-down keeps the chance of any false 'different' at 5%, and usually finds more "
            "differences than Nemenyi's critical difference (García & Herrera 2008)."
        )
        + " Letters: Piepho's (2004) insert-absorb algorithm; two models share a letter "
        "exactly when their pair is not significant."
    )


def holm_explain(
    analysis: RankAnalysis, pair_table: pd.DataFrame, kind: str
) -> tuple[list[str], str]:
    """The pairs' p-values and Holm's adjustment in LaTeX, and the note under them."""
    lines = (
        compare_many.rank_pair_lines(analysis, pair_table)
        if kind != RESAMPLES
        else compare_many.holm_lines(pair_table)
    )
    note = (
        "Holm (1979): sort the m p-values, multiply the j-th smallest by m − j + 1, and "
        "carry the largest so far forward, so adjusted values never decrease. "
        + (
            "The p-values are those of the pairs under 'Are the differences real?'."
            if kind == RESAMPLES
            else "Φ is the standard normal distribution function."
        )
    )
    return lines, note


def mcnemar_shown(mcnemar: pd.DataFrame, grouped: bool) -> pd.DataFrame:
    """McNemar's table as shown: on grouped rows its p-values are row-level and too small, so
    it gives no verdict ("better", "different at 5%") and names its p-values for what they
    are."""
    if not grouped:
        return mcnemar
    return mcnemar.drop(columns=["better", "different at 5%"]).rename(columns=ROW_LEVEL)


def mcnemar_caption(weighted: bool) -> str:
    """Which rows McNemar's test counts, and which test it is."""
    return (
        "Each model at its current threshold (a score at or above it is a positive call); "
        "only the rows where exactly one model is right count: 'only A right' (b) and 'only "
        f"B right' (c). Exact binomial test below {compare_many.EXACT_BELOW} such rows, else "
        "the chi-square with continuity correction; Holm across the pairs. McNemar treats "
        "every row as independent" + (" and ignores the sample weights" if weighted else "") + "."
    )


def mcnemar_warning(group_column: str, kind: str, clustered: bool) -> str:
    """Why McNemar's p-values are too small on grouped rows, and what to judge by instead."""
    return (
        f"Rows of one {md(group_column)} are not independent, and McNemar's test counts "
        "them as if they were: its p-values here are too small. Judge the models by the "
        + (
            "user-level ranks above."
            if kind == USERS
            else f"ranks over users ({md(group_column)}) above (pick them in 'Rank the "
            "models over')."
            if clustered
            else f"ranks over users: turn 'Rows are independent' off to rank over "
            f"{md(group_column)}."
        )
    )


def mcnemar_note(row: dict) -> str:
    """What McNemar's test assumes, for the pair in ``row``."""
    return (
        f"For {row['model A']} against {row['model B']}. Under "
        "the hypothesis that both models make as many errors, each row where exactly one is "
        "right is a fair coin. Source: McNemar, Psychometrika 12 (1947) 153–157."
    )


def many_models_csv(
    ranked: pd.DataFrame, pair_table: pd.DataFrame, mcnemar: pd.DataFrame
) -> pd.DataFrame:
    """The ranks, the pairs and McNemar's table in one file, each row naming its table."""
    return pd.concat(
        [ranked.assign(table="ranks"), pair_table.assign(table="pairs"),
         mcnemar.assign(table="McNemar")],
        ignore_index=True,
    )  # fmt: skip
