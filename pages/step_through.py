"""Step through a ranking one distinct score at a time, on one projector screen.

At 1280x720 the sorted rows with the threshold line, the confusion matrix and the ROC and PR
curves with the current point are on screen together. Next / Previous (or the arrow keys, as
button shortcuts) lower or raise the threshold to the next distinct score; tied rows cross
together. The AP step sum and the AUC pair count build up term by term. In presentation mode
(larger text) the table, the matrix with the two sums and the two curves share one row under
the step's sentence, so that all of it fits a 1280x720 projector.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from ui.frame import presentation, shell
from ui.teaching import stepper
from ui.views import callbacks
from ui.views.explain import auc_lines, explain
from ui.views.show import chart, csv_download
from ui.words.numbers import decimals
from ui.words.safe import md

ds, model = shell.page_context(requires=("rows",), what="Stepping through the rows")
KEY = "step_through_k"


@st.cache_data(max_entries=16, show_spinner=False)
def _walk(key: tuple, model: str, _ds) -> stepper.Walk:
    y = _ds.labels_for(model)
    numbers = _ds.positions(np.ones(y.size, dtype=bool)) + 1  # as the table numbers its rows
    return stepper.walk(y, _ds.score(model), row_numbers=numbers)


y = ds.labels_for(model)
n_pos = int(y.sum())
if n_pos == 0 or n_pos == y.size:
    what = "class" if ds.mapping.per_class else "model"
    st.subheader(f"Step through · {md(model)}", anchor=False)
    st.info(
        f"The {what} {md(model)} has only "
        f"{md(ds.positive_name if n_pos else ds.negative_name)} rows here: stepping through "
        "needs both classes. Pick another dataset or model in the sidebar."
    )
    st.stop()

w = _walk(ds.key, model, ds)
owner = (ds.key, model)
if st.session_state.get(f"{KEY}_for") != owner:  # a new table or model starts at step 0
    st.session_state[f"{KEY}_for"] = owner
    st.session_state[KEY] = 0
st.session_state[KEY] = int(min(max(st.session_state.get(KEY, 0), 0), w.n_steps))


pos_name, neg_name = ds.positive_name, ds.negative_name
presenting = presentation.on()
if not presenting:  # one projector screen: less empty space above the title (this page only;
    # the header bar keeps its room). Presentation mode sets its own.
    st.html("<style>.stMainBlockContainer{padding-top:3.2rem;padding-bottom:1rem}</style>")
title_col, prev_col, next_col, jump_col = st.columns(
    [5.2, 1.3, 1.3, 1.5] if presenting else [4, 1.3, 1.3, 1.4], vertical_alignment="bottom"
)
with title_col:
    st.subheader(f"Step through · {md(model)}", anchor=False)
prev_col.button(
    "Previous", key="step_through_prev", shortcut="Left",
    on_click=callbacks.add_to_state, args=(KEY, -1, 0, w.n_steps),
    icon=":material/arrow_back:", width="stretch", disabled=st.session_state[KEY] == 0,
    help="Raise the threshold to the previous distinct score (← key).",
)  # fmt: skip
next_col.button(
    "Next", key="step_through_next", shortcut="Right",
    on_click=callbacks.add_to_state, args=(KEY, 1, 0, w.n_steps),
    icon=":material/arrow_forward:", width="stretch", type="primary",
    disabled=st.session_state[KEY] == w.n_steps,
    help="Lower the threshold to the next distinct score (→ key); tied rows cross together.",
)  # fmt: skip
jump_col.number_input(
    f"Step (of {w.n_steps:,})", min_value=0, max_value=w.n_steps, step=1, key=KEY,
    help="Jump to any step: step k predicts the rows with the k highest distinct scores "
    "positive.",
)  # fmt: skip
k = int(st.session_state[KEY])

with st.container(border=True, key="step_through_change"):
    st.markdown(
        f"**Step {k:,} of {w.n_steps:,}** · "
        + md(stepper.change_text(w, k, positive_name=pos_name, negative_name=neg_name), 600)
    )

if presenting:  # four columns: the two curves side by side, as tall as the row allows
    table_col, matrix_col, roc_col, pr_col = st.columns([1.2, 1.05, 1, 1])
else:
    table_col, matrix_col, curves_col = st.columns([1.15, 1, 1.3])
    roc_col = pr_col = curves_col
with table_col:
    st.html(
        stepper.table_html(
            w, k, positive_name=pos_name, negative_name=neg_name,
            size=7 if presenting else stepper.MAX_TABLE_ROWS,  # 18 px rows on a projector
        ),
        width="stretch",
    )  # fmt: skip
    if w.n_steps > 60 and not presenting:  # (the step box's label says how many)
        st.caption(
            f"{w.n_steps:,} distinct scores: stepping is meant for small tables; type a step "
            "number to jump."
        )
with matrix_col:
    chart(
        stepper.matrix_figure(w, k, height=140 if presenting else 150),
        key="step_through_matrix",
        name=f"confusion-matrix-{model}-step-{k}",
    )
    legend = f"\\+ = {md(pos_name)}, − = {md(neg_name)}; rows actual, columns predicted."
    if not presenting:  # (in presentation mode the sums box below says it, in its help)
        st.caption(legend)
    done = k == w.n_steps
    with st.container(border=True, key="step_through_sums"):
        st.markdown(
            f"**AP step sum** {decimals(w.ap_running[k])}"
            + (" = library AP :material/check:" if done else ""),
            help="Each step adds (recall gained) × (precision at the new threshold); steps that "
            "find no positive add nothing." + (f" Matrix: {legend}" if presenting else ""),
        )
        st.caption(md(stepper.ap_sum_text(w, k), 300))
        st.markdown(
            f"**AUC pair count** {decimals(w.auc_so_far(k))}"
            + (" = library AUC :material/check:" if done else ""),
            help="Positives crossing the line beat every negative still below it; a negative "
            "tied with them counts one half.",
        )
        st.caption(md(stepper.auc_sum_text(w, k), 300) + " pairs ordered right")
curve_height = 370 if presenting else 215
with roc_col:
    chart(
        stepper.roc_step_figure(w, k, height=curve_height),
        key="step_through_roc",
        name=f"roc-{model}",
    )
with pr_col:
    chart(
        stepper.pr_step_figure(w, k, height=curve_height),
        key="step_through_pr",
        name=f"pr-{model}",
    )

if ds.weight is not None:
    st.caption("Stepping counts rows; the sample weights are left out.")
explain(
    "the two running sums",
    [
        r"\text{AP} = \sum_{k} (R_k - R_{k-1})\,P_k = " + decimals(w.ap),
        *auc_lines("ROC", w.n_pos, w.n_neg, w.auc),
    ],
    note="R_k and P_k are recall and precision after step k. A positive crossing at step k "
    "wins against every negative still below the line; a negative crossing with it is a tie "
    "and counts one half.",
)
csv_download("Every step (CSV)", stepper.frame(w), f"steps_{model}.csv", key="step_through_csv")
