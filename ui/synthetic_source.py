"""The Synthetic data source: the generator's controls in the sidebar, and its table as the
:class:`ui.data.Dataset` every source gives (the table itself comes from :mod:`ui.synthetic`).
"""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd
import streamlit as st

from ui.data import Dataset
from ui.loading import ColumnMapping, prepare
from ui.synthetic import ROUNDING, SyntheticSpec, describe, dprime_from_auc, generate

__all__ = ["dataset", "synthetic_dataset"]


def _source_id(spec: SyntheticSpec) -> str:
    return "synthetic:" + ",".join(f"{k}={v}" for k, v in asdict(spec).items())


@st.cache_data(max_entries=8, show_spinner=False)
def _cached(spec: SyntheticSpec) -> pd.DataFrame:
    return generate(spec)


def dataset(spec: SyntheticSpec) -> Dataset:
    """The generated table as the same :class:`ui.data.Dataset` every source gives."""
    frame = _cached(spec)
    mapping = ColumnMapping(label="label", scores=("score",), pos_label=1)
    return Dataset(
        source_id=_source_id(spec),
        name="Synthetic data",
        frame=frame,
        mapping=mapping,
        prepared=prepare(frame, mapping),
        description=describe(spec),
        positive_name="positive",
        negative_name="negative",
    )


def synthetic_dataset() -> Dataset:
    """Draw the generator's controls in the current container and return its table.

    State keys (all prefixed ``synth_``): ``synth_rows``, ``synth_prevalence`` (percent),
    ``synth_by`` ("AUC" or "d'"), ``synth_auc``, ``synth_dprime``, ``synth_rounding``,
    ``synth_calibration``, ``synth_seed``.
    """
    by = st.segmented_control(
        "Class separation as", ["AUC", "d'"], default="AUC", key="synth_by",
        help="Target AUC of the population, or d′: how many standard deviations apart the "
        "two classes' latent scores are. AUC = Φ(d′/√2).",
    ) or "AUC"  # fmt: skip
    if by == "AUC":
        auc = st.slider("Target AUC", 0.50, 0.99, 0.80, 0.01, key="synth_auc")
        dprime = dprime_from_auc(auc)
    else:
        dprime = st.slider("d′ (separation)", 0.0, 4.0, 1.2, 0.05, key="synth_dprime")
    prevalence = st.select_slider(
        "Prevalence (% positive)",
        [0.5, 1, 2, 5, 10, 20, 30, 50, 70, 90],
        value=30,
        key="synth_prevalence",
        help="Lower it and watch: ROC AUC stays put, PR AUC (AP) drops.",
    )
    rows = st.select_slider(
        "Rows", [10, 20, 50, 100, 200, 500, 1_000, 5_000, 20_000, 100_000], value=200,
        key="synth_rows",
    )  # fmt: skip
    rounding = st.selectbox(
        "Ties: round scores to", list(ROUNDING), index=0, key="synth_rounding",
        help="Rounding makes rows share a score: a tie counts one half in AUC and crosses the "
        "threshold as one block.",
    )  # fmt: skip
    calibration = st.slider(
        "Calibration distortion (odds power)", 0.25, 4.0, 1.0, 0.25, key="synth_calibration",
        help="1 = calibrated probabilities. Above 1 over-confident, below 1 under-confident: "
        "the ranking (AUC, AP) does not change, the Brier score and reliability do.",
    )  # fmt: skip
    seed = int(st.number_input("Seed", 0, 1_000_000, 0, key="synth_seed"))
    spec = SyntheticSpec(
        rows=int(rows),
        prevalence=float(prevalence) / 100,
        dprime=round(float(dprime), 6),
        decimals=ROUNDING[rounding],
        calibration=float(calibration),
        seed=seed,
    )
    st.caption(describe(spec))
    return dataset(spec)
