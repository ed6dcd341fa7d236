"""Compare's pairs of models: each pair's verdict with its p-values, how large an AUC difference
the rows can find (DeLong's power), and DeLong's test with the user's numbers in."""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from metrics.significance import format_p
from ui.analyses import summaries
from ui.analyses.compare_setup import CompareSettings
from ui.words.numbers import decimals
from ui.words.safe import md
from ui.words.text import num

__all__ = [
    "POWER_NOTE",
    "delong_lines",
    "delong_note",
    "first_delong_pair",
    "p_text",
    "pair_lines",
    "pairs_caption",
    "power_sentence",
]

POWER_NOTE = (
    "DeLong's paired test at 5%, in the normal approximation of Obuchowski & McClish "
    "(1997), with the variances and the correlation of the two models measured on these "
    "rows: a planning figure. A verdict of no difference says little when the smallest "
    "difference found with 80% power is larger than one that would matter."
)


def p_text(p: float, test: str, n_resamples: int, name: str = "p") -> str:
    """A p-value as text; a bootstrap cannot resolve p below one over its resamples."""
    bootstrap = test in (summaries.ROW_TEST, summaries.CLUSTER_TEST)
    return format_p(p, floor=1 / n_resamples if bootstrap and n_resamples else 0, name=name)


def pairs_caption(s: CompareSettings) -> str:
    """What each line under 'Are the differences real?' gives, and which test made it."""
    return (
        "Every pair of models on every metric: the difference A − B, its 95% interval and the "
        "paired test's p-value; "
        + (
            "every test is in the family, so each also shows its Holm-adjusted p-value (across "
            "every metric × pair). "
            if s.family == "all"
            else f"the {md(s.family)} pairs (the primary metric) also show the Holm-adjusted "
            "p-value across them, and only they can be \"better\"; the other metrics are "
            "exploratory: their p-values are unadjusted and claim nothing. "
        )
        + (
            f"Every test resamples whole {md(s.group_column)} values. DeLong's test assumes "
            "independent rows: its p-value is shown only as \"row-level\", for comparison."
            if s.clustered
            else "DeLong's test compares two AUCs on the same rows, accounting for their "
            "correlation."
            + (" Sample weights are not used by DeLong's test: AUC pairs use the bootstrap."
               if s.ds.weight is not None else "")
        )
    )  # fmt: skip


def pair_lines(pairs: pd.DataFrame, n_resamples: int, group_column: str | None) -> list[str]:
    """One markdown bullet per pair and metric: the verdict, then its p-values when tested
    (and DeLong's row-level one beside a cluster test)."""
    lines = []
    for row in pairs.to_dict("records"):
        tested = not math.isnan(row["p-value"])
        if row.get("role") == "exploratory" or (
            row.get("role") == "duplicate" and math.isnan(row["Holm p"])
        ):  # the verdict already gives the unadjusted p-value
            suffix = f" ({row['test']})" if tested else ""
            lines.append(f"- {md(row['verdict'], limit=300)}{suffix}")
            continue
        p = (
            f" · {p_text(row['p-value'], row['test'], n_resamples)}, "
            f"{p_text(row['Holm p'], row['test'], n_resamples, 'Holm p')} ({row['test']})"
            if tested
            else ""
        )
        row_level = row.get("row-level p", math.nan)
        if isinstance(row_level, float) and not math.isnan(row_level):
            p += (
                f" · row-level DeLong {p_text(row_level, 'DeLong', n_resamples)} "
                f"(ignores {md(group_column)})"
            )
        lines.append(f"- {md(row['verdict'], limit=300)}{p}")
    return lines


def first_delong_pair(pairs: pd.DataFrame) -> Mapping | None:
    """The first AUC pair DeLong's test decided (None when the bootstrap decided them all)."""
    auc_pairs = pairs[(pairs["metric"] == "AUC") & (pairs["test"] == "DeLong")]
    return auc_pairs.iloc[0] if len(auc_pairs) else None


def power_sentence(
    a: str, b: str, n_pos: int, n_neg: int, d: float, power: float, smallest: float
) -> tuple[str, str | None]:
    """How likely DeLong's test is to find a difference ``d`` between ``a`` and ``b``, and the
    smallest difference it finds with 80% power, with the note on what the figure is; or why
    there is no figure (and no note) when the pair's difference has (almost) no variance."""
    if smallest < 5e-4:  # would print as 0.000: no paired variance to plan with
        return (
            f"{md(a)} and {md(b)} order these rows' positive-negative pairs (almost) the same "
            "way, so the paired difference of their AUCs has (almost) no variance here and any "
            "difference would count as found. That says nothing about two models that rank "
            "rows differently: no power figure from these two."
        ), None
    return (
        f"With these {n_pos:,} positives and {n_neg:,} negatives, a difference of "
        f"**{decimals(d, 3)}** in AUC between {md(a)} and {md(b)} is found with power "
        f"**{power:.0%}**; the smallest difference found with 80% power is "
        f"**{decimals(smallest, 3)}**."
    ), POWER_NOTE


def delong_lines(delong: Mapping, p: float) -> list[str]:
    """DeLong's z and p for one pair (a row of :func:`summaries.delong_pairs`), in LaTeX."""
    return [
        r"z = \frac{\text{AUC}_A - \text{AUC}_B}{\text{SE}(\text{AUC}_A - \text{AUC}_B)}"
        rf" = \frac{{{num(delong['AUC A'])} - {num(delong['AUC B'])}}}{{\text{{SE}}}} = "
        rf"{num(delong['z'])}",
        rf"p = 2\,(1 - \Phi(|z|)) = {p:.3g},\qquad \text{{95\% CI}} = "
        rf"[{num(delong['95% CI low'])},\ {num(delong['95% CI high'])}]",
    ]


def delong_note(a: str, b: str) -> str:
    """Where DeLong's standard error comes from, for the pair ``a`` against ``b``."""
    return (
        f"For {a} against {b}. The standard error comes "
        "from each positive's and each negative's share of the AUC (DeLong's placement "
        "values, computed with one sort as Sun & Xu show), so it accounts for both models "
        "scoring the same rows."
    )
