"""The GAUC page's formulas with the user's numbers in, and its per-user table as shown (no
Streamlit): GAUC as a weighted mean, one user's AUC, four small users, and the offset."""

from __future__ import annotations

import numpy as np
import pandas as pd

import metrics
from metrics import GroupAUC
from ui.figures import gauc_charts
from ui.words.gauc_text import defined
from ui.words.numbers import count, decimals, plural
from ui.words.safe import md
from ui.words.text import num

__all__ = ["example", "gauc", "offset", "one_user", "shown_users"]


def gauc(
    table: GroupAUC, weighting: str, value: float, global_auc: float, weighted: bool
) -> tuple[list[str], str]:
    """(lines, note): GAUC as the weighted mean of the users' AUCs, with its sums."""
    within, every = gauc_charts.pair_counts(table)
    weights = table.weights(weighting)
    total_weight = float(weights.sum())
    weighted_sum = float(np.dot(weights, np.where(table.defined, table.auc, 0.0)))
    n_counted = int(table.defined.sum())
    lines = [
        r"\text{GAUC} = \frac{\sum_u w_u\,\text{AUC}_u}{\sum_u w_u},\qquad "
        + gauc_charts.WEIGHTING_LATEX[weighting],
        rf"\text{{GAUC}} = \frac{{{num(weighted_sum, 8)}}}{{{num(total_weight, 8)}}} = "
        rf"{num(value)}",
    ]
    note = (
        f"Sums over the {plural(n_counted, 'user')} with both classes; the "
        f"{table.n_skipped:,} others "
        f"have no AUC and weight 0. Total weight {count(total_weight)}. Global AUC "
        f"({defined(global_auc)}) compares all {count(every)} positive-negative pairs, GAUC only "
        f"the {count(within)} pairs within a user ({within / every:.1%} of them)."
        + (" Rows and positives are sums of sample weights." if weighted else "")
    )
    return lines, note


def one_user(table: GroupAUC) -> tuple[list[str], str]:
    """(lines, note): the per-user AUC of the counted user with the most rows, as pairs."""
    big = int(np.argmax(np.where(table.defined, table.rows, -1)))
    p, n, a = table.positives[big], table.negatives[big], table.auc[big]
    u = a * p * n
    if np.issubdtype(np.asarray(p).dtype, np.integer):
        u = round(2 * u) / 2  # unweighted: U counts pairs, ties one half
    lines = [
        r"\text{AUC}_u = \frac{\#\{(i, j): s_i > s_j\} + \tfrac12\,\#\{(i, j): s_i = s_j\}}"
        r"{P_u\,N_u},\quad i \text{ a positive of } u,\ j \text{ a negative of } u",
        rf"\text{{AUC}}_u = \frac{{{num(u, 8)}}}{{{num(p, 8)} \cdot {num(n, 8)}}} = {num(a)}",
    ]
    note = (
        f"Shown for u = {md(table.group[big], 40)}, the counted user with the most rows "
        f"({table.rows[big]:,}). The global AUC is the same formula over all rows at once, so it "
        "also counts pairs of rows from different users."
    )
    return lines, note


def example() -> tuple[list[str], str]:
    """(lines, note): GAUC on three small users and one skipped, the classic AUC examples."""
    ex = metrics.group_auc_table(*gauc_charts.four_users_example())
    ex_gauc = ex.score("impressions")
    pairs_c = ex.positives[2] * ex.negatives[2]
    auc_c = rf"\tfrac{{{num(ex.auc[2] * pairs_c)}}}{{{num(pairs_c)}}}"  # the rank formula's 10/12
    lines = [
        rf"\text{{AUC}}_a = {num(ex.auc[0])},\ \text{{AUC}}_b = {num(ex.auc[1])},\ "
        rf"\text{{AUC}}_c = {auc_c},\ \text{{user }} d\text{{: {ex.reason[3]}, skipped}}",
        rf"\text{{GAUC}} = \frac{{{num(ex.rows[0])} \cdot {num(ex.auc[0])} + {num(ex.rows[1])} "
        rf"\cdot {num(ex.auc[1])} + {num(ex.rows[2])} \cdot {auc_c}}}"
        rf"{{{num(ex.rows[0])} + {num(ex.rows[1])} + {num(ex.rows[2])}}} = {num(ex_gauc)}",
    ]
    note = (
        "GAUC as recommender papers compute it (impression-weighted, as in the CTR "
        "literature's group AUC): each user's AUC weighted by the user's rows, users with only "
        "clicks or only non-clicks not counted. Users a, b and c are the classic AUC examples "
        f"(0.75 without ties, 0.875 with a tie counted one half, 10/12 by the rank formula); "
        f"GAUC = {decimals(ex_gauc)}."
    )
    return lines, note


def offset(mode: str, overall: float, k: float) -> list[str]:
    """The per-user offset of ``mode`` (its scale ``k``) and the shifted score."""
    if mode == "click_rate":
        offset_tex = (
            r"\text{offset}_u = \text{strength} \times (\text{click rate}_u - "
            rf"\overline{{\text{{click rate}}}}) \times k,\quad \overline{{\text{{click rate}}}} = "
            rf"{num(overall)},\ k = \frac{{\text{{sd(scores)}}}}{{\text{{sd(users' click rates)}}}}"
            rf" = {num(k)}"
        )
    else:
        offset_tex = (
            r"\text{offset}_u = \text{strength} \times z_u \times k,\quad z_u \sim N(0, 1)"
            rf"\text{{ (random seed 0)}},\ k = \text{{sd(scores)}} = {num(k)}"
        )
    return [offset_tex, r"s'_i = s_i + \text{offset}_{u(i)}"]


def shown_users(users: pd.DataFrame, max_shown: int) -> pd.DataFrame:
    """The per-user table as shown: the ``max_shown`` users with the most rows, a skipped user's
    AUC written "skipped" (the CSV keeps the number empty)."""
    shown = users
    if len(users) > max_shown:
        shown = users.iloc[np.argsort(-users["rows"].to_numpy(), kind="stable")[:max_shown]]
    return shown.assign(
        AUC=["skipped" if np.isnan(a) else decimals(a) for a in shown["AUC"].to_numpy(dtype=float)]
    )
