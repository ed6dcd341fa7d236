"""The Runs page: TREC runs compared as a reviewer compares them. The runs side by side with a
superscript for each run a run significantly beats (ranx's table), the family of tests in
words, every pair's paired test, the per-query difference chart with wins, ties and losses, and
the queries that flip most."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from metrics import trec
from ui.compute import runs_compute as rc
from ui.figures.runs_charts import difference_figure
from ui.views.show import chart
from ui.words.runs_text import duplicates_sentence
from ui.words.safe import md

NEEDS = (
    "This page needs TREC files: one qrels file (query_id iteration doc_id relevance) and two "
    "or more runs (query_id Q0 doc_id rank score tag), gzip too; or tables with the columns "
    "query_id, doc_id, relevance / score (CSV, Parquet) or ranx JSON {query_id: {doc_id: value}}."
)
TESTS = {
    "student": "paired t-test",
    "fisher": "Fisher's randomization test",
    "bootstrap": "paired bootstrap",
    "wilcoxon": "Wilcoxon signed-rank",
    "tukey": "Tukey's HSD, queries as blocks",
    "tukey-oneway": "Tukey's HSD, one-way (ranx's)",
}
TUKEY_NOTE = (
    "Tukey's HSD compares every pair of runs at once on the queries all runs answered: its p "
    "already holds the pairs of a measure. Queries as blocks is the two-way ANOVA IR papers use "
    "(with two runs it is the paired t-test); one-way is what ranx's compare(stat_test='tukey') "
    "computes (scipy's tukey_hsd), which ignores that the runs answered the same queries and so "
    "finds fewer differences."
)
_SUPERSCRIPTS = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"
_LETTERS = "abcdefghijklmnoprstuvwxyz"  # the letters with a superscript form
FLIPS = 10


def letters(names: list[str]) -> dict[str, str]:
    """Each run's letter (a, b, c... then a2, b2...), as ranx labels the columns it beats."""
    n = len(_LETTERS)
    return {
        name: _LETTERS[i % n] + ("" if i < n else str(i // n + 1)) for i, name in enumerate(names)
    }


def side_by_side(table: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """One row per run, one column per measure: the mean and a superscript for every run this
    run beats significantly on it."""
    beaten = trec.runs_beaten(table)
    letter = letters(names)
    sup = dict(zip(_LETTERS, _SUPERSCRIPTS, strict=True))
    means: dict[tuple[str, str], float] = {}
    for row in table.itertuples(index=False):
        means[(row.run, row.measure)] = row.mean
        means[(row.baseline, row.measure)] = row.baseline_mean
    rows = []
    for name in names:
        row = {"run": f"{letter[name]}  {name}"}
        for m in rc.MEASURES:
            marks = "".join(
                sup[letter[r][0]] + letter[r][1:]
                for r in sorted(beaten.get((name, m), []), key=names.index)
            )
            row[m] = f"{means[(name, m)]:.4f}" + (f" {marks}" if marks else "")
        rows.append(row)
    return pd.DataFrame(rows)


def _files():
    left, right = st.columns(2)
    qrels = left.file_uploader("Qrels (the judgements)", key="runs_qrels")
    runs = right.file_uploader("Runs (two or more)", accept_multiple_files=True, key="runs_runs")
    runs = runs or []
    _server_pick()
    if qrels is None or len(runs) < 2:
        if qrels is not None or runs:
            st.info(
                "Uploads are used once there is a qrels file and at least two runs; until then "
                "the page shows the files metrics-lens app was given, or the seeded synthetic "
                "example.",
                icon=":material/info:",
            )
        return None, None
    return (qrels.name, qrels.getvalue()), tuple((r.name, r.getvalue()) for r in runs)


def _server_pick() -> None:
    """The qrels and runs under the server's data directory (a classroom's shared files), when
    it holds any: picked here, used when nothing is uploaded."""
    qrels, runs = rc.server_files()
    if not qrels or len(runs) < 2:
        return
    with st.expander("Files on the server", expanded=bool(st.session_state.get("runs_server_q"))):
        c1, c2 = st.columns([1, 2])
        c1.selectbox("Qrels on the server", qrels, index=None, key="runs_server_q",
                     placeholder="Choose a qrels file")  # fmt: skip
        c2.multiselect("Runs on the server (two or more)", runs, key="runs_server_r")


def _server_files() -> tuple[Path, tuple[Path, ...]] | None:
    """The files picked on the server, when a qrels and two runs are."""
    qrels = st.session_state.get("runs_server_q")
    runs = st.session_state.get("runs_server_r") or []
    if not qrels or len(runs) < 2:
        return None
    return rc.server_paths(qrels, list(runs))


def _controls() -> tuple[str, str, str | None]:
    c1, c2, c3 = st.columns(3)
    measure = c1.selectbox("Measure", rc.MEASURES, key="runs_measure")
    test = c2.selectbox("Test", list(TESTS), format_func=TESTS.get, key="runs_test")
    family = c3.radio(
        "Family of tests",
        ["primary", "all"],
        format_func={
            "primary": f"{measure} only, chosen before looking",
            "all": "every measure, Holm over all",
        }.get,
        key="runs_family",
    )
    return measure, test, measure if family == "primary" else None


def _pairs(table: pd.DataFrame, measure: str) -> None:
    shown = table[table["measure"] == measure].drop(columns=["measure"])
    fmt = {
        c: st.column_config.NumberColumn(c, format="%.4f")
        for c in (
            "mean",
            "baseline_mean",
            "difference",
            "ci_low",
            "ci_high",
            "p_value",
            "p_adjusted",
            "effect_size",
            "detectable",
        )
    }
    fmt["power"] = st.column_config.NumberColumn("power", format="percent")
    st.dataframe(shown, hide_index=True, column_config=fmt, key="runs_pairs")
    st.markdown(
        md(
            "What each pair could see (the paired t-test's view, whatever the test): "
            + " ".join(
                f"{r.run} - {r.baseline}: {detectable_sentence(r, measure)}"
                for r in shown.itertuples(index=False)
            ),
            1600,
        )
    )


def detectable_sentence(row, measure: str) -> str:
    """A pair's effect size, power and smallest detectable difference in words (a row of
    compare_runs' table)."""
    n = int(row.n_queries)
    queries = f"{n:,} quer{'y' if n == 1 else 'ies'}"
    if n < 2:
        return f"with {queries}, power is not defined."
    if np.isnan(row.detectable):
        return (
            f"the difference is the same on all {queries}, so there is no spread to weigh: "
            f"power and the smallest detectable difference are not defined."
        )
    if row.detectable >= 1.0:  # trec_eval's measures lie in [0, 1]
        return (
            f"with {queries} and this spread, even the largest difference {measure} can show "
            f"(1) would be missed more than 1 time in 5 by the paired t-test at alpha 0.05 "
            f"(the smallest detectable is {row.detectable:.3f}); the observed "
            f"{row.difference:+.3f} (effect size d_z {row.effect_size:+.2f}) would be found "
            f"{row.power:.0%} of the time."
        )
    return (
        f"with {queries}, a true difference of {row.detectable:.3f} {measure} would be missed "
        f"1 time in 5 by the paired t-test at alpha 0.05, a smaller one more often; the observed "
        f"{row.difference:+.3f} (effect size d_z {row.effect_size:+.2f}) would be found "
        f"{row.power:.0%} of the time."
    )


def verdict(table: pd.DataFrame, candidate: str, baseline: str, measure: str) -> str:
    """The pair's test in one sentence, ``candidate - baseline`` (a row of the other direction
    read with its sign turned)."""
    rows = table[table["measure"] == measure]
    row = rows[(rows["run"] == candidate) & (rows["baseline"] == baseline)]
    sign = 1.0
    if row.empty:
        row = rows[(rows["run"] == baseline) & (rows["baseline"] == candidate)]
        sign = -1.0
    r = row.iloc[0]
    low, high = sorted((sign * r["ci_low"], sign * r["ci_high"]))
    if np.isnan(r["p_adjusted"]):
        status = f"p {r['p_value']:.4f}, exploratory (outside the family)"
    else:
        word = "significant" if r["significant"] else "not significant"
        if "Tukey" in table.attrs.get("family", ""):
            status = (
                f"Tukey's p {r['p_value']:.4f} (over the pairs), over the family "
                f"{r['p_adjusted']:.4f}: {word}"
            )
        else:
            status = f"p {r['p_value']:.4f}, Holm-adjusted {r['p_adjusted']:.4f}: {word}"
    return (
        f"{candidate} - {baseline} on {measure}: {sign * r['difference']:+.4f} "
        f"(95% interval {low:+.4f} to {high:+.4f}) over {int(r['n_queries'])} queries; {status}."
    )


def _difference_chart(tables: dict, candidate: str, baseline: str, measure: str):
    """The per-query differences, sorted (IR papers' figure); returns them."""
    diff = rc.differences(tables, candidate, baseline, measure)
    chart(
        difference_figure(
            diff["query_id"], diff["difference"], candidate=candidate, baseline=baseline,
            measure=measure,
        ),
        key="runs_difference",
        name="per-query difference",
    )  # fmt: skip
    return diff


def _chosen_pair(names: list[str]) -> tuple[str, str]:
    """The baseline and candidate the menus below hold (their first entries until chosen)."""
    baseline = st.session_state.get("runs_baseline")
    baseline = baseline if baseline in names else names[0]
    others = [n for n in names if n != baseline]
    candidate = st.session_state.get("runs_candidate")
    return baseline, candidate if candidate in others else others[0]


def _per_query(
    tables: dict, names: list[str], measure: str, table: pd.DataFrame, *, drawn: bool
) -> None:
    """The pair's menus, wins/ties/losses, the verdict and the chart (``drawn``: the chart is
    already at the top of the page, as presentation mode puts it)."""
    c1, c2 = st.columns(2)
    baseline = c1.selectbox("Baseline", names, key="runs_baseline")
    others = [n for n in names if n != baseline]
    candidate = c2.selectbox("Candidate", others, key="runs_candidate")
    m1, m2, m3 = st.columns(3)  # filled below, once the differences are known
    st.markdown(md(verdict(table, candidate, baseline, measure), 400))
    if drawn:
        diff = rc.differences(tables, candidate, baseline, measure)
    else:
        diff = _difference_chart(tables, candidate, baseline, measure)
    d = diff["difference"]
    m1.metric("Wins", int((d > 0).sum()))
    m2.metric("Ties", int((d == 0).sum()))
    m3.metric("Losses", int((d < 0).sum()))
    st.caption(
        md(
            f"{candidate} minus {baseline} on each of the {len(diff)} queries both runs answer, "
            f"sorted; a tie is the same {measure} in both runs."
        )
    )
    st.subheader("The queries that flip most")
    order = d.abs().sort_values(ascending=False, kind="stable").index[:FLIPS]
    flips = diff.loc[order]
    flips = flips[flips["difference"] != 0]
    if flips.empty:
        st.markdown("No query differs between the two runs.")
    else:
        fmt = {
            c: st.column_config.NumberColumn(c, format="%.4f")
            for c in flips.columns
            if c != "query_id"
        }
        st.dataframe(flips, hide_index=True, column_config=fmt, key="runs_flips")


def _error(exc: ValueError) -> None:
    """The library's sentence, one line, the page kept."""
    st.error(md(" ".join(str(exc).split()), limit=400), icon=":material/error:")


def render() -> None:
    st.title("Runs")
    # Presentation mode opens on the per-query chart; the files and what the page needs wait
    # in a closed box (the sidebar, where other pages take files, is hidden there).
    presenting = bool(st.session_state.get("presentation"))
    with st.expander("The TREC files", expanded=False) if presenting else nullcontext():
        st.caption(NEEDS)
        qrels_file, run_files = _files()
    try:
        picked = _server_files() if qrels_file is None else None
        given = picked or (rc.app_files() if qrels_file is None else None)
        if given is not None:
            origin = "server" if picked else "app"
            key = f"{origin}|{rc.key_of_paths(*given)}"
            qrels, runs, what = rc.read_paths(key, *given, origin)
        else:
            key = (
                rc.EXAMPLE
                if qrels_file is None
                else "|".join(rc.key_of(*f) for f in (qrels_file, *run_files))
            )
            qrels, runs, what = rc.read(key, qrels_file, run_files)
    except ValueError as exc:
        _error(exc)
        return
    # The other pages point here while the session holds TREC files (ui.frame.trec_note).
    st.session_state[rc.GIVEN] = key != rc.EXAMPLE
    names = list(runs)
    if presenting:
        try:
            tables = rc.per_query(key, qrels, runs)
        except ValueError as exc:
            _error(exc)
            return
        measure = st.session_state.get("runs_measure")
        measure = measure if measure in rc.MEASURES else rc.MEASURES[0]
        _difference_chart(tables, *reversed(_chosen_pair(names)), measure)
    st.markdown(
        md(
            f"Showing {what}: {qrels['query_id'].nunique():,} judged queries, {len(names)} runs.",
            400,
        )
    )
    for name, dups in rc.duplicates(key, runs).items():
        st.warning(md(duplicates_sentence(name, dups), 800), icon=":material/content_copy:")
    measure, test, primary = _controls()
    try:
        table = rc.comparison(key, test, primary, qrels, runs)
        tables = rc.per_query(key, qrels, runs)
    except ValueError as exc:
        _error(exc)
        return

    st.subheader("The runs side by side")
    st.dataframe(side_by_side(table, names), hide_index=True, key="runs_table")
    st.markdown(
        md(
            f"A superscript names each run this run beats significantly (p adjusted < 0.05). "
            f"The family: {table.attrs['family']}"
            + (
                f" (seed {rc.SEED}, {rc.N_RESAMPLES:,} resamples)."
                if test in ("fisher", "bootstrap")
                else "."
            ),
            400,
        )
    )

    if test.startswith("tukey"):
        st.caption(TUKEY_NOTE)

    st.subheader(f"Every pair on {measure}")
    _pairs(table, measure)

    st.subheader("Per-query differences")
    _per_query(tables, names, measure, table, drawn=presenting)
