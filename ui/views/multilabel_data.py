"""The Multi-label page's head and what its sections share: the title, the data choice, the
problem with its cached summary, and the library's warnings as captions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from ui.analyses.multilabel_averages import notes, resampled_unit
from ui.analyses.multilabel_rules import Card
from ui.figures import multilabel_charts as mc
from ui.tables.dataset import Dataset

CURRENT = "Current data"
INTRO = (
    "One binary problem per class, then an average: the averaging mode decides what the single "
    "number weighs."
)


@dataclass(frozen=True)
class MultilabelPage:
    """What every section of the page reads: the dataset, the sidebar's model, the data choice,
    the problem, its summary and whether presentation mode is on."""

    ds: Dataset
    model: str
    preset: str
    problem: mc.ClassScores
    sm: mc.AveragingSummary
    presenting: bool

    @property
    def current(self) -> bool:
        """The sidebar's dataset, not a worked example."""
        return self.preset == CURRENT

    @property
    def groups(self) -> np.ndarray | None:
        """The rows' groups: intervals resample whole groups when the table maps one."""
        return self.ds.prepared.groups if self.current else None

    @property
    def group(self) -> str | None:
        """The group column's name when intervals resample whole groups."""
        return self.ds.mapping.group if self.groups is not None else None

    @property
    def unit(self) -> str:
        """What a resample draws, in words."""
        return resampled_unit(self.group)

    @property
    def signature(self) -> tuple:
        """The table's identity: a new one starts the decision rule and the costs afresh."""
        p = self.problem
        return (p.name, p.classes, p.n_rows, self.ds.key if self.current else self.preset)


def header(presenting: bool) -> Any:
    """The title and intro; returns where the data choice goes (beside the title when
    presenting)."""
    if presenting:
        head_col, data_col = st.columns([1, 1.6], vertical_alignment="bottom")
        head_col.subheader("Multi-class & multi-label", anchor=False, help=INTRO)
        return data_col
    st.header("Multi-class & multi-label")
    st.caption(INTRO)
    return st.container()


def choose_data(where: Any) -> str:
    """The data control: the sidebar's dataset or a worked example."""
    return (
        where.segmented_control(
            "Data",
            [CURRENT, *mc.PRESETS],
            default=CURRENT,
            key="multilabel_preset",
            help="Worked examples from scikit-learn's documentation, or the dataset in the "
            "sidebar.",
        )
        or CURRENT
    )


@st.cache_data(max_entries=8, show_spinner="Computing per-class metrics...")
def summary(key: tuple, _problem: mc.ClassScores) -> mc.AveragingSummary:
    """The library's per-class and averaged numbers, cached by ``key``."""
    return mc.summarize_averaging(_problem)


def show_notes(sm: mc.AveragingSummary, *keys: tuple[str, str]) -> None:
    """The library's warnings for these calls, shown once each instead of in the console."""
    for line in notes(sm, *keys):
        st.caption(line)


def show_cards(where: list, cards: list[Card]) -> None:
    """Each card in its column."""
    for col, card in zip(where, cards, strict=False):
        col.metric(**card._asdict())


def table(frame: pd.DataFrame, key: str, formats: dict[str, str] | None = None, **kw: Any) -> None:
    """A full-width table without its index; ``formats``: a number format per column (after
    the ``column_config`` given, if any)."""
    config = dict(kw.pop("column_config", {}))
    config.update({c: st.column_config.NumberColumn(format=f) for c, f in (formats or {}).items()})
    st.dataframe(
        frame, hide_index=True, width="stretch", column_config=config or None, key=key, **kw
    )
