"""The sentences of the GAUC page (no Streamlit): which users count, where the models disagree,
what shifting a user's scores does, and what the head-to-head interval says."""

from __future__ import annotations

import numpy as np

from metrics.significance import format_p
from ui.words.numbers import decimals, plural
from ui.words.safe import md

__all__ = [
    "BOOTSTRAP",
    "NO_USER",
    "SHIFT",
    "defined",
    "difference",
    "disagree",
    "head_to_head",
    "intro",
    "skipped",
    "users_caption",
]

NO_USER = (
    "No user has both classes, so no per-user AUC is defined. Check the user id column in "
    "the sidebar: each user needs positive and negative rows."
)
SHIFT = (
    "Adding the same offset to every row of a user keeps that user's order, so each AUC_u "
    "and the GAUC stay exactly the same. Global AUC also compares rows of different users, "
    "so it moves: a model can gain or lose global AUC by scoring whole users higher or lower, "
    "without ranking any user's own items better."
)
BOOTSTRAP = (
    "95% interval from {n} resamples of whole users (a cluster "
    "bootstrap): each resample draws every user a Poisson(1) number of times and "
    "averages the per-user AUCs, computed once, with the weights of the users drawn. "
    "Resampling rows instead would treat a user's rows as independent and give too "
    "narrow an interval."
)


def defined(x: float) -> str:
    """An AUC to four decimals, or "undefined"."""
    return decimals(x) if np.isfinite(x) else "undefined"


def intro(model: str, dataset: str, group_column: str) -> str:
    """What GAUC is, on this model, data and user column."""
    return (
        f"**{md(model)}** on {md(dataset)}, users = {md(group_column)}. GAUC is the ROC AUC of "
        "each user's own rows, averaged over the users that have both classes. Global AUC also "
        "compares rows of different users; GAUC only within a user."
    )


def skipped(counts: dict[str, int], positive_name: str, negative_name: str) -> str:
    """Why the skipped users are skipped, and how many for each reason."""
    why = [
        f"{counts.get('only positives', 0):,} with only positives ({md(positive_name)})",
        f"{counts.get('only negatives', 0):,} with only negatives ({md(negative_name)})",
    ]
    if counts.get("zero weight"):
        why.append(f"{counts['zero weight']:,} whose rows all have weight 0")
    return "Skipped users: " + ", ".join(why) + "."


def disagree(best_auc: str, best_gauc: str) -> str:
    """The sentence for two models that win on different measures."""
    return (
        f"The models disagree: **{md(best_auc)}** has the higher global AUC, "
        f"**{md(best_gauc)}** the higher GAUC: it ranks each user's own items better."
    )


def users_caption(n_users: int, n_skipped: int, max_shown: int | None) -> str:
    """Under the per-user table: how many users, and how many are shown when not all."""
    return (
        f"{plural(n_users, 'user')}, {n_skipped:,} skipped (weight 0). Click a column to sort."
        + (f" Showing the {max_shown:,} users with the most rows." if max_shown else "")
    )


def head_to_head(name_a: str, name_b: str, h2h: dict[str, float]) -> str:
    """How many users each model ranks better (``h2h``: ``gauc_charts.head_to_head``)."""
    return (
        f"Of the {plural(h2h['users'], 'user')} both models can score, {md(name_b)} ranks "
        f"{h2h['B higher']:.1%} better, {h2h['equal']:.1%} the same and {h2h['B lower']:.1%} "
        "worse than "
        f"{md(name_a)}. Above the diagonal {md(name_b)} wins; marker size grows with the user's "
        "rows."
    )


def difference(weighting: str, name_a: str, name_b: str, d, p: float, n_resamples: int) -> str:
    """The GAUC difference A − B with its interval, p-value and verdict (``d``: an interval with
    ``estimate``, ``ci_low`` and ``ci_high``)."""
    real = d.ci_low > 0 or d.ci_high < 0
    return (
        f"**GAUC ({weighting}) of {md(name_a)} − {md(name_b)}: "
        f"{decimals(d.estimate, plus=True)} [{decimals(d.ci_low, plus=True)}, "
        f"{decimals(d.ci_high, plus=True)}]**, cluster bootstrap "
        + format_p(p, floor=1 / n_resamples)
        + (
            f": {md(name_a if d.estimate > 0 else name_b)} is better."
            if real
            else ": no significant difference."
        )
    )
