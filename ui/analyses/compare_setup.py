"""Compare's settings as one value, and what they decide for every section of the page: whether
the bootstrap runs without asking, what a bracket is called, the table of contents, and the
banner on rows grouped by a user column.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ui.tables.dataset import Dataset
from ui.words.safe import md

__all__ = [
    "AUTO_LIMIT",
    "FAMILY_ALL",
    "CompareSettings",
    "bootstrap_wanted",
    "contents_caption",
    "contents_css",
    "family_choices",
    "grouping_banner",
    "slow_sentence",
]

FAMILY_ALL = "every metric (Holm)"


def family_choices(max_fpr: float, grouped: bool, probabilities: bool) -> dict[str, str]:
    """What a verdict can rest on, as the settings offer it: each metric as the primary one
    (AUC first, the default), or every metric. Label -> the family's name in the library."""
    names = ["AUC", "AP"]
    if max_fpr:
        names.append(f"pAUC (FPR ≤ {max_fpr:g})")
    if grouped:
        names.append("GAUC")
    if probabilities:
        names += ["Brier", "Log loss"]
    out = {f"{n} (primary)": n for n in names}
    out[FAMILY_ALL] = "all"
    return out


# Rows x models up to which the bootstrap runs without asking: sorted once per model, 1000
# resamples of 1e6 rows for two models take about 15 s on two cores (bench/bench_bootstrap.py).
AUTO_LIMIT = 2_000_000


@dataclass(frozen=True)
class CompareSettings:
    """What every section of Compare reads: the data, the models and the settings row."""

    ds: Dataset
    models: tuple[str, ...]
    n_rows: int
    n_resamples: int
    interval: str
    max_fpr: float
    group_column: str | None
    independent: bool
    wanted: bool
    curve_resamples: int
    presenting: bool
    family: str = "AUC"  # the primary metric the stars rest on, or "all" (metrics.families)

    @property
    def clustered(self) -> bool:
        """Whether every interval and test resamples whole groups (a cluster bootstrap)."""
        return self.group_column is not None and not self.independent

    @property
    def y(self) -> np.ndarray:
        """The labels every model is scored against."""
        return self.ds.labels_for(self.models[0])

    @property
    def resampled(self) -> str:
        """What a bracket resamples, in every caption of the page."""
        if self.clustered:
            return f"cluster bootstrap, whole {self.group_column} values resampled"
        return "paired bootstrap"

    @property
    def interval_name(self) -> str:
        """ "paired bootstrap interval", or "cluster bootstrap interval (whole user values
        resampled)"."""
        if self.clustered:
            return f"cluster bootstrap interval (whole {self.group_column} values resampled)"
        return "paired bootstrap interval"


def bootstrap_wanted(
    n_rows: int, n_models: int, n_resamples: int, asked_for: object, this_run: object
) -> bool:
    """Whether the intervals are computed: resamples set, and the table small enough or the
    user asked for these very ones (``asked_for == this_run``)."""
    return n_resamples > 0 and (n_rows * n_models <= AUTO_LIMIT or asked_for == this_run)


def slow_sentence(n_rows: int, n_resamples: int, n_models: int) -> str:
    """Why the page asks before it resamples."""
    return f"{n_rows:,} rows: {n_resamples} resamples x {n_models} models take a while."


def contents_caption(sections: list[tuple[str, str]]) -> str:
    """The table of contents: a link to each section drawn so far."""
    return "On this page: " + " · ".join(f"[{t}](#{a})" for t, a in sections)


def contents_css(dark: bool) -> str:
    """The style that keeps the table of contents under the app's header on an opaque band,
    and every heading and table scrolled to below the band."""
    band = "#0e1117" if dark else "#ffffff"  # Streamlit's backgrounds
    return f"""<style>
    .stMain [data-testid="stLayoutWrapper"]:has(> .st-key-compare_toc) {{
        position: sticky; top: 3.75rem; z-index: 1000; background: {band};
        padding: 0.35rem 0 0.15rem; border-bottom: 1px solid rgba(128, 128, 128, 0.35);
    }}
    .stMain [data-testid="stHeading"] [id] {{ scroll-margin-top: 9rem !important; }}
    .stMain [data-testid="stDataFrame"] {{ scroll-margin-top: 8rem; }}
    @media (max-width: 768px) {{
        .st-key-compare_toc [data-testid="stCaptionContainer"] p {{
            white-space: nowrap; overflow-x: auto; padding-bottom: 0.3rem;
        }}
        .stMain [data-testid="stHeading"] [id] {{ scroll-margin-top: 7rem !important; }}
        .stMain [data-testid="stDataFrame"] {{ scroll-margin-top: 7rem; }}
    }}
    </style>"""


def grouping_banner(s: CompareSettings, n_groups: int) -> tuple[str, str]:
    """On rows with a group column (``n_groups`` values): ``("info", text)`` when every interval
    resamples whole groups, ``("warning", text)`` when the user treats the rows as independent."""
    column = s.group_column
    if s.clustered:
        return "info", (
            f"Rows are grouped by **{md(column)}** ({n_groups:,} "
            "groups): rows of one group are not independent, so every interval, test, star, band "
            f"and slice below resamples whole {md(column)} values (a cluster bootstrap). "
            "DeLong's row-level p-value is shown beside, labelled, never as the verdict."
            + ("" if s.wanted else " Set resamples above 0: without them nothing can be tested.")
        )
    return "warning", (
        f"Every row is treated as independent, though rows carry a **{md(column)}** "
        f"({n_groups:,} values): the intervals, tests and stars "
        f"below resample rows. If the rows of one {md(column)} move together, they are "
        f"too narrow and the verdicts too sure. Turn 'Rows are independent' off to resample "
        f"whole {md(column)} values."
    )
