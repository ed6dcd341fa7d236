"""The Synthetic data source: the generator's controls in the sidebar, and its table as the
:class:`ui.tables.dataset.Dataset` every source gives (the table itself comes from
:mod:`ui.tables.synthetic`).
"""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd
import streamlit as st

from ui.tables.checking import prepare
from ui.tables.dataset import Dataset
from ui.tables.loading import ColumnMapping
from ui.tables.synthetic import (
    ROUNDING,
    SyntheticSpec,
    auc_from_dprime,
    describe,
    dprime_from_auc,
    generate,
)

__all__ = ["QUERY_KEY", "apply_link", "dataset", "encode", "synthetic_dataset"]

PREVALENCES = [0.5, 1, 2, 5, 10, 20, 30, 50, 70, 90]
ROWS = [10, 20, 50, 100, 200, 500, 1_000, 5_000, 20_000, 100_000]


def _source_id(spec: SyntheticSpec) -> str:
    return "synthetic:" + ",".join(f"{k}={v}" for k, v in asdict(spec).items())


@st.cache_data(max_entries=8, show_spinner=False)
def _cached(spec: SyntheticSpec) -> pd.DataFrame:
    return generate(spec)


def _name(spec: SyntheticSpec) -> str:
    """What the pages call the table: "200 rows, 30% positive, AUC 0.86, seed 0"."""
    return (
        f"{spec.rows:,} rows, {spec.prevalence * 100:g}% positive, "
        f"AUC {auc_from_dprime(spec.dprime):.2f}, seed {spec.seed}"
    )


def dataset(spec: SyntheticSpec) -> Dataset:
    """The generated table as the same :class:`ui.tables.dataset.Dataset` every source gives."""
    frame = _cached(spec)
    scores = tuple(c for c in frame.columns if c.startswith("score"))
    mapping = ColumnMapping(label="label", scores=scores, pos_label=1)
    return Dataset(
        source_id=_source_id(spec),
        name=_name(spec),
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
    ``synth_calibration``, ``synth_seed``, ``synth_models`` and, for models 2 and 3,
    ``synth_auc_<k>`` or ``synth_dprime_<k>`` and ``synth_calibration_<k>``.
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
        PREVALENCES,
        value=30,
        key="synth_prevalence",
        help="Lower it and watch: ROC AUC stays put, PR AUC (AP) drops.",
    )
    rows = st.select_slider(
        "Rows", ROWS, value=200,
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
    n_models = st.segmented_control(
        "Models", [1, 2, 3], default=1, key="synth_models",
        help="More models scored on the same rows (score_2, score_3), each with its own "
        "separation and calibration, for Compare and Curves.",
    ) or 1  # fmt: skip
    others = []
    for k in range(2, int(n_models) + 1):
        with st.container(border=True):
            if by == "AUC":
                auc_k = st.slider(
                    f"score_{k}: target AUC", 0.50, 0.99, _OTHER_AUC[k], 0.01, key=f"synth_auc_{k}"
                )
                dprime_k = dprime_from_auc(auc_k)
            else:
                dprime_k = st.slider(f"score_{k}: d′", 0.0, 4.0, 1.0, 0.05, key=f"synth_dprime_{k}")
            calibration_k = st.slider(
                f"score_{k}: calibration (odds power)", 0.25, 4.0, 1.0, 0.25,
                key=f"synth_calibration_{k}",
            )  # fmt: skip
        others.append((round(float(dprime_k), 6), float(calibration_k)))
    spec = SyntheticSpec(
        rows=int(rows),
        prevalence=float(prevalence) / 100,
        dprime=round(float(dprime), 6),
        decimals=ROUNDING[rounding],
        calibration=float(calibration),
        seed=seed,
        others=tuple(others),
    )
    st.caption(describe(spec))
    return dataset(spec)


_OTHER_AUC = {2: 0.75, 3: 0.85}  # the extra models' defaults: one weaker, one stronger

# --- the link: every setting in one query parameter ---------------------------------------------

QUERY_KEY = "synth"
# (name in the link, widget key, type); the extra models' keys follow the same pattern.
_FIELDS = (
    ("by", "synth_by", str),
    ("auc", "synth_auc", float),
    ("d", "synth_dprime", float),
    ("prev", "synth_prevalence", float),
    ("rows", "synth_rows", int),
    ("round", "synth_rounding", str),
    ("cal", "synth_calibration", float),
    ("seed", "synth_seed", int),
    ("models", "synth_models", int),
    *(
        (f"{name}{k}", f"{key}_{k}", float)
        for k in (2, 3)
        for name, key in (("auc", "synth_auc"), ("d", "synth_dprime"), ("cal", "synth_calibration"))
    ),
)


def encode() -> str:
    """The current settings as the link's value, e.g. ``by:AUC,auc:0.8,prev:30,...``."""
    parts = []
    for name, key, _ in _FIELDS:
        if key in st.session_state and st.session_state[key] is not None:
            value = st.session_state[key]
            parts.append(f"{name}:{value:g}" if isinstance(value, float) else f"{name}:{value}")
    return ",".join(parts)


def apply_link(text: str) -> list[str]:
    """Set the generator's widgets from a link's value before they are drawn; returns the
    parts that were not understood (left at their defaults)."""
    fields = {name: (key, kind) for name, key, kind in _FIELDS}
    bad = []
    for part in str(text).split(","):
        name, _, value = part.partition(":")
        if name not in fields:
            bad.append(part)
            continue
        key, kind = fields[name]
        try:
            parsed = kind(value)
        except ValueError:
            bad.append(part)
            continue
        if (
            (key == "synth_by" and parsed not in ("AUC", "d'"))
            or (key == "synth_rounding" and parsed not in ROUNDING)
            or (key == "synth_models" and parsed not in (1, 2, 3))
            or (kind is not str and not _in_range(key, parsed))
        ):
            bad.append(part)
            continue
        if key == "synth_prevalence":  # the select_slider's own option (30, not 30.0)
            parsed = PREVALENCES[PREVALENCES.index(parsed)]
        st.session_state[key] = parsed
    return bad


def _in_range(key: str, value: float) -> bool:
    base = key.rsplit("_", 1)[0] if key[-1].isdigit() else key
    low, high = {
        "synth_auc": (0.5, 0.99), "synth_dprime": (0.0, 4.0), "synth_calibration": (0.25, 4.0),
        "synth_prevalence": (0, 0), "synth_rows": (0, 0), "synth_seed": (0, 1_000_000),
        "synth_models": (1, 3),
    }[base]  # fmt: skip
    if base == "synth_prevalence":  # a select_slider: one of its options
        return value in PREVALENCES
    if base == "synth_rows":
        return value in ROWS
    return low <= value <= high
