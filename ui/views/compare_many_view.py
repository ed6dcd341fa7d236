"""Compare on three or more models: ranks over blocks (users, slice values or resamples),
Friedman's test and Nemenyi's critical-difference diagram, the pairs under Holm with their
letters, and McNemar at each model's threshold."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import metrics
from ui.analyses import compare_blocks as words
from ui.analyses import compare_many
from ui.analyses.compare_setup import CompareSettings
from ui.compute import thresholds
from ui.figures import rank_charts
from ui.tables.dataset import Dataset
from ui.views.explain import explain
from ui.views.show import chart, csv_download

__all__ = ["many_models"]


def _p_columns(columns) -> dict:
    return {c: st.column_config.NumberColumn(format="%.4g") for c in columns}


@st.cache_data(max_entries=8, show_spinner="Scoring every block...")
def _group_blocks(
    key: tuple, models: tuple[str, ...], kind: str, column: str, _ds: Dataset
) -> compare_many.Blocks:
    """Each model's AUC within each user (``kind`` users) or slice value (``kind`` slices)."""
    if kind == compare_many.USERS:
        groups = _ds.prepared.groups
    else:
        groups = words.slice_groups(_ds.frame[column].to_numpy(), _ds.prepared.kept)
    return compare_many.group_blocks(
        _ds.labels_for(models[0]), {m: _ds.score(m) for m in models}, groups, kind=kind,
        name=str(column), weight=_ds.weight,
        min_rows=words.MIN_SLICE_ROWS if kind == compare_many.SLICES else 1,
    )  # fmt: skip


def _blocks_over(s: CompareSettings) -> tuple[str, str | None] | None:
    """'Rank the models over', following the data (mapping a user column moves the ranking
    onto users, as the banner and McNemar's note say; a kept pick would rank over a slice)."""
    sliced_on = s.ds.slice[0] if s.ds.slice is not None else None
    choices = words.block_choices(
        s.group_column, s.clustered, s.ds.mapping.slices, sliced_on, s.wanted
    )
    if not choices:
        st.info(words.NO_BLOCKS)
        return None
    state = st.session_state
    current = state.get("compare_many_blocks", state.get("compare_many_blocks_kept"))
    state["compare_many_blocks"] = compare_many.follow_blocks(
        choices, state.get("compare_many_blocks_options"), current
    )
    state["compare_many_blocks_options"] = list(choices)
    picked = st.selectbox(
        "Rank the models over", choices, format_func=words.block_name, key="compare_many_blocks",
        help=words.RANK_HELP,
    )  # fmt: skip
    state["compare_many_blocks_kept"] = picked  # outlives the page
    return picked


def many_models(s: CompareSettings, pairs: pd.DataFrame, fb: metrics.FastBootstrap | None) -> None:
    """Ranks over blocks, the critical-difference diagram, the pairs under Holm with their
    letters, and McNemar at each model's threshold."""
    picked = _blocks_over(s)
    if picked is None:
        return
    kind, column = picked
    if kind == compare_many.RESAMPLES:
        blocks = compare_many.resample_blocks(
            fb.results["roc_auc"].replicates, s.models, s.n_rows
        )  # fmt: skip
    else:
        blocks = _group_blocks(s.ds.key, s.models, kind, column, s.ds)
    st.caption(words.blocks_caption(blocks, column))
    if kind == compare_many.RESAMPLES:
        st.warning(words.RESAMPLES_WARNING)
    if blocks.table.shape[0] < 2:
        st.info(words.few_blocks(blocks.table.shape[0]))
        return
    analysis = compare_many.analyse(blocks)
    pair_table, how = words.pairs_for(kind, analysis, pairs, s.models)
    ranked = compare_many.letters_table(analysis.ranks, pair_table, s.models)
    _ranks(analysis, ranked, kind)
    st.markdown("**Pairs under Holm**")
    pair_cols = [c for c in pair_table.columns if c not in ("mean rank A", "mean rank B")]
    st.dataframe(
        pair_table[pair_cols], hide_index=True, width="stretch",
        column_config=_p_columns(("z", "AUC A − AUC B", "p-value", "Holm p")),
    )  # fmt: skip
    st.caption(words.pairs_caption(how, kind))
    lines, note = words.holm_explain(analysis, pair_table, kind)
    explain("the pairs and Holm's adjustment", lines, note=note)
    mcnemar = _mcnemar(s, kind)
    csv_download(
        "Download the ranks and pairs (CSV)", words.many_models_csv(ranked, pair_table, mcnemar),
        "many_models.csv", key="compare_many_download",
    )  # fmt: skip
    st.caption(words.SOURCES)


def _ranks(analysis: compare_many.RankAnalysis, ranked: pd.DataFrame, kind: str) -> None:
    """The ranks with their letters, Friedman's test and the critical-difference diagram."""
    st.dataframe(
        ranked,
        hide_index=True,
        width="stretch",
        column_config={
            "letters": st.column_config.TextColumn("letters", help=words.LETTERS_HELP),
            "mean rank": st.column_config.NumberColumn(format="%.3f"),
            "mean AUC": st.column_config.NumberColumn(format="%.4f"),
            "median AUC": st.column_config.NumberColumn(format="%.4f"),
            "blocks best (ties shared)": st.column_config.NumberColumn(format="%.1f"),
        },
    )
    st.markdown(words.friedman_sentence(analysis, kind))
    chart(
        rank_charts.cd_figure(analysis.friedman, analysis.blocks.models),
        key="compare_many_cd",
        name="critical-difference",
    )
    st.caption(words.CD_CAPTION)
    explain(
        "Friedman's test and Iman-Davenport's F",
        compare_many.friedman_lines(analysis),
        note=words.friedman_note(analysis),
    )
    explain(
        "Nemenyi's critical difference",
        compare_many.nemenyi_lines(analysis),
        note=words.NEMENYI_NOTE,
    )


def _mcnemar(s: CompareSettings, kind: str) -> pd.DataFrame:
    """McNemar's test of each pair at the models' current thresholds; returns the table shown."""
    st.markdown("**McNemar at each pair's operating points**")
    chosen = {m: float(thresholds.current(s.ds, m)) for m in s.models}
    mcnemar = compare_many.mcnemar_pairs(s.y, {m: s.ds.score(m) for m in s.models}, chosen)
    shown = words.mcnemar_shown(mcnemar, s.group_column is not None)
    formatted = ("threshold A", "threshold B", "statistic", "p-value", "Holm p",
                 *words.ROW_LEVEL.values())  # fmt: skip
    st.dataframe(shown, hide_index=True, width="stretch", column_config=_p_columns(formatted))
    st.caption(words.mcnemar_caption(s.ds.weight is not None))
    if s.group_column is not None:
        st.warning(words.mcnemar_warning(s.group_column, kind, s.clustered))
    first = mcnemar.iloc[0].to_dict()
    explain("McNemar's test", compare_many.mcnemar_lines(first), note=words.mcnemar_note(first))
    return shown
