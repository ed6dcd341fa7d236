"""The "Why the numbers differ" section's cached results, keyed by the files' keys: the walk
from one convention to another and TIDE's error breakdown."""

from __future__ import annotations

import streamlit as st

from metrics import detection

__all__ = ["effects", "tide"]


@st.cache_data(max_entries=8, show_spinner="Switching one rule at a time...")
def effects(gt_key: str, det_key: str, from_: str, to: str, iou, _gt, _dt):
    return detection.convention_effects(_gt, _dt, from_=from_, to=to, iou_threshold=iou)


@st.cache_data(max_entries=4, show_spinner="Typing every error as TIDE does...")
def tide(gt_key: str, det_key: str, _gt, _dt):
    r = detection.tide_errors(_gt, _dt)
    return r.ap, r.table
