"""Compare's 'Are the differences real?': every pair of models on every metric with its test,
how large an AUC difference these rows can find, and DeLong's test with the numbers in."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ui.analyses import compare_pairs as words
from ui.analyses.compare_setup import CompareSettings
from ui.compute import data, uncertainty
from ui.views.explain import explain
from ui.views.show import csv_download
from ui.words.safe import md

__all__ = ["differences"]


def differences(s: CompareSettings, pairs: pd.DataFrame) -> None:
    """Each pair's verdict with its p-values, the pairs as CSV, and for the first pair DeLong
    decided: its power and its test explained."""
    st.caption(words.pairs_caption(s))
    for line in words.pair_lines(pairs, s.n_resamples, s.group_column):
        st.markdown(line)
    csv_download("Download the pairs (CSV)", pairs, "model_pairs.csv", key="compare_pairs_download")
    first = words.first_delong_pair(pairs)
    if first is None:
        return
    a, b = first["model A"], first["model B"]
    _power(s, a, b)
    delong = data.delong_pairs(s.ds.key, s.models, s.ds).iloc[0]
    explain(
        "DeLong's test",
        words.delong_lines(delong, first["p-value"]),
        note=words.delong_note(a, b),
    )


def _power(s: CompareSettings, a: str, b: str) -> None:
    """How large an AUC difference these rows can find (DeLong's paired test)."""
    power_col, text_col = st.columns([1, 4])
    d = power_col.number_input(
        "AUC difference to find", min_value=0.001, max_value=0.5, value=0.02, step=0.005,
        format="%.3f", key="compare_power_d",
        help="A true difference in AUC between the two models; the sentence says how likely "
        "DeLong's test at 5% is to find it with this table's rows.",
    )  # fmt: skip
    y = s.ds.labels_for(a)
    n_pos = int(np.count_nonzero(y))
    try:
        power, smallest = uncertainty.auc_power(s.ds.key, a, b, float(d), s.ds)
    except ValueError as exc:
        text_col.caption(md(f"No power figure: {exc}", limit=300))
        return
    sentence, note = words.power_sentence(a, b, n_pos, y.size - n_pos, d, power, smallest)
    text_col.markdown(sentence)
    if note:
        text_col.caption(note)
