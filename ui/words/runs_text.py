"""The Runs page's and the runs report's sentences that do not depend on Streamlit."""

from __future__ import annotations

__all__ = ["duplicates_sentence"]


def duplicates_sentence(name: str, duplicates) -> str:
    """What a run's duplicated documents mean, in one sentence (empty when there is none).
    ``duplicates`` is :func:`metrics.trec.duplicate_documents`' table."""
    n = len(duplicates)
    if n == 0:
        return ""
    first = duplicates.iloc[0]
    extra = int(duplicates["copies"].sum()) - n
    pairs = "document" if n == 1 else "documents"
    return (
        f"Run {name} returns {n:,} {pairs} more than once for a query ({extra:,} extra "
        f"row{'s' if extra != 1 else ''}; first: document {first['doc_id']} for query "
        f"{first['query_id']}, {int(first['copies'])} times): trec_eval refuses such a run "
        f'("duplicate docs") and pytrec_eval and ranx keep one copy silently; here a duplicate '
        f"that is judged is refused and an unjudged one is kept, every copy taking a rank, so "
        f"the documents below it sit lower than with one copy. Keep one row per (query, "
        f"document) for trec_eval's numbers."
    )
