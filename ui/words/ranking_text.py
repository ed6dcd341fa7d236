"""The words of the Ranking page (no Streamlit): the choices' names, the cards, the textbook
example's values, and what each formula and table holds."""

from __future__ import annotations

from fractions import Fraction

from ui.words.numbers import decimals, plural
from ui.words.safe import md

__all__ = [
    "DENOMINATORS",
    "DENOMINATOR_HELP",
    "EXAMPLES",
    "GAINS",
    "GAIN_HELP",
    "IN_MEMORY",
    "QUERIES_HELP",
    "TEXTBOOK",
    "ap_note",
    "cards",
    "curves_caption",
    "engine_kept_means",
    "k_help",
    "ndcg_note",
    "query_sentence",
    "rows_caption",
    "textbook_values",
]

EXAMPLES = {"dataset": "Sidebar dataset", "seed001": "IR textbook example (2 topics)"}
DENOMINATORS = {"relevant": "All relevant (R)", "min_k": "min(k, R)"}
DENOMINATOR_HELP = [
    "trec_eval map / map_cut, the IR textbook",
    "LightGBM map@k, RecBole MAP@K, Kaggle ml_metrics.apk",
]
GAINS = {"linear": "Linear: rel", "exponential": "Exponential: 2^rel − 1"}
GAIN_HELP = [
    "trec_eval ndcg_cut, scikit-learn ndcg_score",
    "Burges et al. (RankNet), LightGBM / XGBoost ndcg",
]
TEXTBOOK = (
    "The IR textbook example (Manning, Raghavan & Schütze, Introduction to Information "
    "Retrieval, ch. 8): topic 1 has 4 relevant documents, retrieved at ranks 1, 2, 4 "
    "and 7; topic 2 has 5, retrieved at ranks 1, 3 and 5, and 2 never retrieved (score 0, "
    "below the 7 retrieved). Binary relevance."
)
QUERIES_HELP = (
    "Queries with at least one relevant row; the others are skipped by every mean "
    "(trec_eval would score them 0)."
)
IN_MEMORY = (
    "NDCG and MAP under trec_eval's, scikit-learn's and LightGBM's conventions are computed "
    "on rows in memory: open the table as an upload to compare them."
)


def k_help(longest: int | None, max_k: int) -> str:
    """The k slider's help: how long the longest query is, and where the slider stops."""
    if not longest:
        return f"Up to {max_k}."
    return f"The longest query has {longest:,} rows" + (
        f"; the slider stops at {max_k}." if longest > max_k else "."
    )


def cards(row, k: int, denominator: str, gain: str) -> list[tuple[str, float, str]]:
    """(label, value, help) of the five headline cards, from a row of the models' table."""
    return [
        (f"P@{k}", row[f"P@{k}"], f"Share of the top {k} that is relevant (divides by {k} even "
         "when a query has fewer rows)."),
        (f"R@{k}", row[f"R@{k}"], f"Share of each query's relevant rows found in the top {k}."),
        (f"MAP@{k}", row[f"MAP@{k}"], "Mean over queries of the precision at each relevant rank "
         f"in the top {k}, divided by {'R' if denominator == 'relevant' else f'min({k}, R)'}."),
        (f"NDCG@{k}", row[f"NDCG@{k}"], f"DCG of the top {k} over the ideal DCG, {gain} gain."),
        ("MRR", row["MRR"], "Mean of 1 / rank of the first relevant row; not cut at k."),
    ]  # fmt: skip


def textbook_values(ap1: float, ap2: float, mean_ap: float, k: int) -> str:
    """The textbook example's two APs and their MAP, exactly and as the book rounds them."""
    return (
        f"At k = {k}: AP = **{decimals(ap1)}** ({Fraction(ap1).limit_denominator(100_000)}) and "
        f"**{decimals(ap2)}** ({Fraction(ap2).limit_denominator(100_000)}), MAP = "
        f"**{decimals(mean_ap)}** "
        f"({Fraction(mean_ap).limit_denominator(100_000)}); to two decimals "
        f"{decimals(ap1, 2)}, {decimals(ap2, 2)} and {decimals(mean_ap, 2)}. "
        + (
            "The textbook's worked values: 0.83, 0.45 and 0.64."
            if k == 7
            else "The textbook's 0.83, 0.45 and 0.64 are at k = 7, its retrieved list."
        )
    )


def curves_caption(n_ks: int, k_max: int, denominator: str) -> str:
    """Under the metrics-at-every-k chart: which k are drawn, and MAP's dip with min(k, R)."""
    return (
        "Means over the counted queries at each k"
        + (f" ({n_ks} values of k from 1 to {k_max})" if n_ks < k_max else "")
        + "; the dashed line is the chosen k."
        + (" With min(k, R), MAP@k can fall as k grows." if denominator == "min_k" else "")
    )


def engine_kept_means(n_queries: int) -> str:
    """Why a server table has no per-query values past the engine's cap."""
    return (
        f"The engine kept the means only: {n_queries:,} queries is more than the per-query "
        "values metrics.sql.ranking_summary returns (its cap). The table, the spread and the "
        "query inspector need those values; upload a sample of the table for them."
    )


def query_sentence(picked: str, b, chosen, qi: int, k: int) -> str:
    """One query's size and metrics (``b``: its breakdown; ``chosen``: the per-query report)."""
    if not b.n_relevant:
        return (
            f"Query **{md(picked)}**: {b.n_docs:,} documents, none relevant: skipped by every mean."
        )
    return (
        f"Query **{md(picked)}**: {plural(b.n_docs, 'document')}, {b.n_relevant:,} relevant. "
        f"P@{k} **{decimals(chosen.precision[qi])}**, R@{k} **{decimals(chosen.recall[qi])}**, "
        f"AP@{k} **{decimals(chosen.average_precision[qi])}**, NDCG@{k} "
        f"**{decimals(chosen.ndcg[qi])}**, "
        f"RR **{decimals(chosen.reciprocal_rank[qi])}**."
    )


def rows_caption(n_docs: int, n_shown: int, max_rows: int, k: int) -> str:
    """Under a query's rows: how many are shown and what the AP and DCG columns hold."""
    return (
        (f"The top {max_rows} of {n_docs:,} ranks. " if n_docs > n_shown else "")
        + f"AP term: precision@i at each relevant rank within k (None elsewhere). DCG terms stop "
        f"at k = {k}; the ideal columns are the same documents sorted by relevance."
    )


def ap_note(denominator: str, k: int) -> str:
    """What AP@k divides by, and which library divides so."""
    return (
        "Relevant documents ranked below k add 0. "
        + (
            "Dividing by every relevant document (R), as trec_eval's map_cut."
            if denominator == "relevant"
            else f"Dividing by min({k}, R), as LightGBM's map@k: a query with more than {k} "
            "relevant documents can still reach 1."
        )
        + " N: queries with a relevant document."
    )


def ndcg_note(gain: str) -> str:
    """Which gain NDCG uses, and which library uses it."""
    return (
        "Linear gain rel_i, as trec_eval and scikit-learn's ndcg_score."
        if gain == "linear"
        else "Exponential gain 2^rel_i − 1, as Burges et al. define it (LightGBM, XGBoost)."
    ) + (
        " Terms with relevance 0 are left out. The ideal DCG sorts the query's documents by "
        "relevance: DCG lies in (0, IDCG], so NDCG in (0, 1]."
    )
