"""The lessons on rankings: GAUC vs global AUC, and NDCG and MAP@k on a query."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

import metrics
from ui.figures import ranking_charts
from ui.teaching.exercise import Exercise, hinted, seeded_rng
from ui.words.text import num

# --- GAUC ----------------------------------------------------------------------------------------


def _gauc_exercise(y, s, users, context, question, answer_of, kind="number", options=()):
    table = metrics.group_auc_table(y, s, users)
    gauc = table.score("impressions")
    lines = []
    for g, auc, rows, reason in zip(table.group, table.auc, table.rows, table.reason, strict=True):
        lines.append(
            rf"\text{{user {g}: }}"
            + (rf"\text{{AUC}} = {num(auc)},\ {rows}\ \text{{rows}}" if not reason else
               rf"\text{{{reason}: skipped}}")
        )  # fmt: skip
    kept = ~np.isnan(table.auc)
    terms = " + ".join(
        rf"{r} \cdot {num(a)}" for r, a in zip(table.rows[kept], table.auc[kept], strict=True)
    )
    lines.append(
        rf"\text{{GAUC}} = \frac{{{terms}}}{{{num(table.rows[kept].sum())}}} = {num(gauc)}"
    )
    frame = pd.DataFrame({"user": users, "label": np.asarray(y).astype(int), "score": s})
    glob = float(metrics.roc_auc_score(y, s))
    traps = (
        (
            glob,
            "That is the AUC of all rows together; GAUC ranks each user's rows on their "
            "own and never compares two users.",
        ),
        (
            float(np.mean(table.auc[kept])),
            "That is the plain mean of the users' AUCs; GAUC "
            "weights each user by their rows (impressions).",
        ),
    )
    ex = Exercise(
        table=frame,
        context=context,
        question=question,
        answer=answer_of(gauc),
        kind=kind,
        options=options,
        derivation=tuple(lines),
        note="GAUC averages each user's own AUC, weighted by the user's impressions (rows); "
        "a user with clicks only or non-clicks only has no AUC and is left out (Zhou et al., "
        "Deep Interest Network, KDD 2018).",
        facts={"global AUC": glob, "GAUC": float(gauc)},
    )
    hint = (
        "One AUC per user, from that user's rows only; a user with one class has no AUC and "
        "is left out; the rest are averaged weighted by their rows."
    )
    return hinted(ex, hint, *traps) if kind == "number" else replace(ex, hint=hint)


def gauc_skip(seed: int) -> Exercise:
    if seed:
        rng = seeded_rng("gauc", seed)
        parts = []
        for user in "abcd":
            n = int(rng.integers(3, 6))
            yy = (rng.random(n) < 0.5).astype(int)
            if user == "d":
                yy[:] = 1  # one user with one class, skipped
            parts.append((user, yy, np.round(rng.random(n), 1)))
        y = np.concatenate([p[1] for p in parts])
        s = np.concatenate([p[2] for p in parts])
        users = np.concatenate([[p[0]] * len(p[1]) for p in parts])
    else:
        y, s, users = _classic_users()
    return _gauc_exercise(
        y,
        s,
        users,
        "Each user's rows are ranked on their own. One user has only one class.",
        "What is the GAUC (per-user AUC weighted by rows)?",
        float,
    )


def _classic_users() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Four users: the three classic AUC examples (0.75, 0.875 with a tie, 10/12 by ranks)
    and a user who only clicked, whom GAUC leaves out."""
    from ui.figures.gauc_charts import four_users_example

    return four_users_example()


def _reversal_data(seed: int) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """Users with different click rates: model_a scores each user's click rate (no order
    within a user), model_b orders each user's rows well but ignores the rates."""
    for attempt in range(50):
        rng = seeded_rng("reversal", seed * 100 + attempt)
        ys, a, b, users = [], [], [], []
        for u, rate in enumerate(np.sort(rng.uniform(0.1, 0.8, 4))):
            n = 6
            yy = (rng.random(n) < rate).astype(int)
            if yy.sum() in (0, n):
                yy[0] = 1 - yy[0]
            ys.append(yy)
            a.append(np.round(rate + rng.normal(0, 0.05, n), 2))
            b.append(np.round(0.3 + 0.25 * yy + rng.normal(0, 0.08, n) - 0.1 * u, 2))
            users.append([f"u{u + 1}"] * n)
        y = np.concatenate(ys)
        scores = {"model_a": np.concatenate(a), "model_b": np.concatenate(b)}
        g = np.concatenate(users)
        glob = {m: metrics.roc_auc_score(y, v) for m, v in scores.items()}
        gauc = {m: metrics.group_auc_score(y, v, g) for m, v in scores.items()}
        if glob["model_a"] > glob["model_b"] and gauc["model_b"] > gauc["model_a"]:
            return y, scores, g
    return y, scores, g


def reversal(seed: int) -> Exercise:
    y, scores, users = _reversal_data(seed)
    glob = {m: float(metrics.roc_auc_score(y, v)) for m, v in scores.items()}
    tables = {m: metrics.group_auc_table(y, v, users) for m, v in scores.items()}
    gauc = {m: float(t.score("impressions")) for m, t in tables.items()}
    frame = pd.DataFrame({"user": users, "label": y, **scores})
    lines = [
        rf"\text{{global AUC: model\_a}} = {num(glob['model_a'])},\ "
        rf"\text{{model\_b}} = {num(glob['model_b'])}",
    ]
    for m, t in tables.items():
        per = ", ".join(f"{g}: {num(a)}" for g, a in zip(t.group, t.auc, strict=True))
        lines.append(rf"\text{{{m.replace('_', chr(92) + '_')} per user: }} {per} \Rightarrow "
                     rf"\text{{GAUC}} = {num(gauc[m])}")  # fmt: skip
    winner = max(gauc, key=gauc.get)
    return Exercise(
        table=frame,
        context="Four users with different click rates. model_a wins on global AUC "
        f"({glob['model_a']:.3f} against {glob['model_b']:.3f}).",
        question="Which model wins on GAUC?",
        kind="choice",
        options=("model_a", "model_b"),
        answer=winner,
        derivation=tuple(lines),
        note="Global AUC also compares rows of different users, so knowing who clicks more "
        "pays; GAUC compares rows within a user only, which is what ranking a user's feed "
        "needs.",
        facts={
            **{f"global AUC {m}": v for m, v in glob.items()},
            **{f"GAUC {m}": v for m, v in gauc.items()},
        },
        hint="GAUC never compares two users: for each user, which model puts that user's "
        "clicks above that user's non-clicks? A model that only knows who clicks more gains "
        "nothing within a user.",
    )


# --- ranking: NDCG and MAP@k --------------------------------------------------------------------


def ranking_random(seed: int) -> Exercise:
    rng = seeded_rng("ranking", seed)
    while True:
        rel = rng.choice([0, 0, 1, 2, 3], size=7).astype(float)
        if rel.sum() > 0:
            break
    s = np.round(rng.random(7) + 0.15 * rel, 2)
    k = int(rng.integers(3, 6))
    groups = np.array(["q"] * 7)
    b = ranking_charts.query_breakdown(rel, s, groups, "q", k=k)
    frame = pd.DataFrame({"doc": [f"d{i + 1}" for i in range(7)], "relevance": rel.astype(int),
                          "score": s})  # fmt: skip
    if seed % 2 == 0:
        value = float(metrics.ndcg_at_k(rel, s, groups, k=k))
        dcg = float(np.nansum(b.dcg_term))
        ex = Exercise(
            table=frame,
            context=f"One query, seven documents with graded relevance 0-3; k = {k}.",
            question=f"What is NDCG@{k} (linear gain)?",
            answer=value,
            derivation=tuple(ranking_charts.ndcg_lines(b)),
            note="Järvelin & Kekäläinen (2002); the linear gain is trec_eval's ndcg_cut.",
        )
        return hinted(
            ex,
            "Sort by score; the top k documents each add relevance / log2(rank + 1). Divide "
            "that DCG by the DCG of the ideal order (the same documents by relevance), also "
            "cut at k.",
            (dcg, "That is the DCG; NDCG divides it by the DCG of the ideal order."),
        )
    value = float(metrics.mean_average_precision(rel > 0, s, groups, k=k))
    found = b.ap_term[~np.isnan(b.ap_term)]
    ex = Exercise(
        table=frame,
        context=f"One query, seven documents; relevance above 0 counts as relevant; k = {k}.",
        question=f"What is AP@{k} (over all relevant documents, as trec_eval's map_cut)?",
        answer=value,
        derivation=tuple(ranking_charts.ap_lines(b, np.array([value]))),
        note="Relevant documents ranked below k add 0 to the sum (trec_eval map_cut_k).",
    )
    return hinted(
        ex,
        "Take the precision at the rank of each relevant document in the top k, add them, "
        "and divide by all the relevant documents of the query, those below k included.",
        (
            float(found.mean()) if found.size else math.nan,
            "You divided by the relevant "
            "documents found in the top k; divide by all the query's relevant documents.",
        ),
    )


def ir_map(seed: int) -> Exercise:
    if seed:
        return ranking_random(seed)
    ex = ranking_charts.ir_textbook_example()
    model = ex.models[0]
    rel, s, groups = ex.relevance_for(model), ex.scores[model], ex.groups
    k = 7
    value = float(metrics.mean_average_precision(rel > 0, s, groups, k=k))
    report = metrics.ranking_report(rel > 0, s, groups, k=k)
    per_query = np.asarray(report.average_precision, dtype=float)
    lines = []
    for q in np.unique(groups):
        b = ranking_charts.query_breakdown(rel, s, groups, q, k=k)
        lines += ranking_charts.ap_lines(b, per_query)[:2]
    lines += ranking_charts.ap_lines(b, per_query)[2:]
    frame = pd.DataFrame({"query": groups, "rank": np.where(s > 0, 8 - s, np.nan),
                          "relevant": rel.astype(int)})  # fmt: skip
    ex = Exercise(
        table=frame,
        context="Topic 1 has 4 relevant documents, retrieved at ranks 1, 2, 4 and 7; topic 2 "
        "has 5, of which 3 are retrieved, at ranks 1, 3 and 5 (the other 2 are never "
        "retrieved: no rank).",
        question="What is the MAP over the two topics?",
        answer=value,
        derivation=tuple(lines),
        note="Average precision per topic divides by all its relevant documents, found or not "
        "(Manning, Raghavan & Schütze, Introduction to Information Retrieval, section 8.4; "
        "trec_eval's map).",
        facts={f"AP {q}": float(a) for q, a in zip(np.unique(groups), per_query, strict=True)},
    )
    return hinted(
        ex,
        "A topic's AP adds the precision at each relevant document's rank and divides by all "
        "its relevant documents, retrieved or not; MAP is the plain mean of the topics' APs.",
        (
            (per_query[0] + (1 + 2 / 3 + 3 / 5) / 3) / 2,
            "Topic 2 has 5 relevant documents: the "
            "two never retrieved add precision 0 but still count in the denominator.",
        ),
    )
