"""Lessons: predict a number from a small table, check it, then see how it is derived.

The registry of lessons the pages use: :data:`LESSONS` in order, under their :data:`TOPICS`, and
:data:`BY_KEY`. Pure logic, no Streamlit; the machinery (:class:`Exercise`, :class:`Lesson`,
:func:`check_answer`) is :mod:`ui.teaching.exercise`, the lessons by topic are the
``*_lessons`` modules. Worked examples from public sources are lessons of their own (seed 0 is
the published example; "new example" draws a seeded one like it); the others draw a fresh
seeded table for every seed, so a class can repeat an exercise and everyone sees the same
table.
"""

from __future__ import annotations

from ui.teaching import averaging_lessons, binary_lessons, decision_lessons, ranking_lessons
from ui.teaching.exercise import Lesson

__all__ = ["BY_KEY", "LESSONS", "TOPICS"]

SKLEARN_AP = "scikit-learn documentation, sklearn.metrics.average_precision_score"
TOPICS = (
    "Precision, recall and F-beta",
    "ROC AUC: pairs and ranks",
    "ROC vs PR under class imbalance",
    "Average precision five ways",
    "Multi-label averaging",
    "GAUC vs global AUC",
    "Ranking: NDCG and MAP@k",
    "Micro, macro and samples F1",
    "Per-class thresholds",
    "Cost curves",
    "Calibration",
)
T = dict(enumerate(TOPICS))

LESSONS: tuple[Lesson, ...] = (
    Lesson("prf", "Precision, recall or F-beta at a threshold", T[0], binary_lessons.prf),
    Lesson(
        "three_rows",
        "Threshold 0.5 on three rows: precision 1/2, recall 1",
        T[0],
        binary_lessons.three_rows,
        source="Lecture-notes example; Manning, Raghavan & Schütze, Introduction to Information "
        "Retrieval, section 8.3",
        worked=True,
    ),
    Lesson(
        "accuracy",
        "99.99% accuracy with 0% recall: predicting nothing",
        T[0],
        binary_lessons.accuracy,
        source="Manning, Raghavan & Schütze, Introduction to Information Retrieval, section 8.3",
        worked=True,
    ),
    Lesson("auc_random", "AUC of a small table with ties", T[1], binary_lessons.auc_random),
    Lesson(
        "auc_pairs",
        "AUC 0.75 by counting pairs (no ties)",
        T[1],
        binary_lessons.fixed_auc(
            [0, 0, 1, 1],
            [0.1, 0.4, 0.35, 0.8],
            "Two positives, two negatives, no ties.",
            "No ties here: there are P·N = 2·2 = 4 pairs of one positive and one negative; "
            "count those where the positive scores higher.",
        ),
        source="scikit-learn documentation, sklearn.metrics.roc_auc_score",
        worked=True,
    ),
    Lesson(
        "auc_tie",
        "AUC 0.875: a tied pair counts one half",
        T[1],
        binary_lessons.fixed_auc(
            [0, 0, 1, 1],
            [0.1, 0.4, 0.4, 0.8],
            "The negative and a positive share the score 0.4.",
            "A tied pair counts one half: the positive and the negative that both score 0.4 "
            "make half a win, not a whole one and not none.",
        ),
        source="Hanley & McNeil, Radiology 143 (1982): ties count one half",
        worked=True,
    ),
    Lesson(
        "auc_ranks",
        "The rank formula with tied ranks: AUC = 10/12",
        T[1],
        binary_lessons.fixed_auc(
            [0, 1, 1, 0, 0, 1, 1],
            [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8],
            "Four rows tied at 0.5 share the ranks 2 to 5.",
            "Tied rows share the average of the ranks they occupy (the four rows at 0.5 each "
            "get (2 + 3 + 4 + 5) / 4 = 3.5); then AUC = (R − P(P+1)/2) / (P·N), R the "
            "positives' rank sum.",
        ),
        source="Mann-Whitney U: AUC = (R − P(P+1)/2) / (P·N) with tie-averaged ranks",
        worked=True,
    ),
    Lesson("imbalance", "Prevalence falls: which curve notices?", T[2], binary_lessons.imbalance),
    Lesson("ap_random", "One of the five AP methods on six rows", T[3], binary_lessons.ap_random),
    Lesson(
        "ap_step",
        "AP = 5/6 as scikit-learn's step sum",
        T[3],
        binary_lessons.fixed_ap(
            [0, 0, 1, 1],
            [0.1, 0.4, 0.35, 0.8],
            "step",
            "The four rows of scikit-learn's own example.",
        ),
        source=SKLEARN_AP,
        worked=True,
    ),
    Lesson(
        "ap_trapezoid",
        "Trapezoid 0.7917 vs step 0.8333",
        T[3],
        binary_lessons.fixed_ap(
            [1, 0, 1, 0],
            [1, 0.8, 0.6, 0.4],
            "trapezoid",
            "One sample's labels [1, 0, 1, 0] with scores [1, 0.8, 0.6, 0.4].",
            "Before version 0.19 scikit-learn joined the PR points with straight lines (the "
            "trapezoid rule). No classifier can reach the points on such a line (Davis & "
            "Goadrich, ICML 2006), so since 0.19 it sums rectangles: the step sum, here 5/6, "
            "equal to label-ranking AP.",
        ),
        source="scikit-learn 0.19 release notes (average_precision_score no longer interpolates)",
        worked=True,
    ),
    Lesson(
        "ap_voc11",
        "PASCAL VOC 11-point interpolated AP",
        T[3],
        binary_lessons.fixed_ap(
            [1, 0, 1, 0],
            [1, 0.8, 0.6, 0.4],
            "voc11",
            "The same four rows, read as PASCAL VOC 2007 does: the best precision at "
            "recall ≥ 0, 0.1, ..., 1.",
        ),
        source="PASCAL VOC 2007 devkit (VOCevaluation, VOCap); Everingham et al., IJCV 2010",
        worked=True,
    ),
    Lesson(
        "averaging",
        "Macro, micro, weighted or samples on five rows",
        T[4],
        averaging_lessons.averaging,
    ),
    Lesson(
        "map_1112",
        "Multi-label mAP 11/12: per-class AP 0.75, 1, 1",
        T[4],
        averaging_lessons.map_1112,
        source=SKLEARN_AP + " (average='macro')",
        worked=True,
    ),
    Lesson(
        "gauc_skip",
        "GAUC skips users with one class",
        T[5],
        ranking_lessons.gauc_skip,
        source="Zhou et al., Deep Interest Network, KDD 2018 (GAUC)",
        worked=True,
    ),
    Lesson(
        "gauc_reversal", "The ranking reversal: global AUC vs GAUC", T[5], ranking_lessons.reversal
    ),
    Lesson("ranking", "NDCG@k or AP@k on one query", T[6], ranking_lessons.ranking_random),
    Lesson(
        "ir_map",
        "IR average precision 0.83 and 0.45, MAP 0.64",
        T[6],
        ranking_lessons.ir_map,
        source="Manning, Raghavan & Schütze, Introduction to Information Retrieval, section "
        "8.4; trec_eval",
        worked=True,
    ),
    Lesson(
        "rare_class",
        "A missed rare class drags macro-F1 down, not micro",
        T[7],
        averaging_lessons.rare_class,
        source=averaging_lessons.IIR_AVERAGING,
    ),
    Lesson(
        "micro_accuracy",
        "Micro-F1 = accuracy: micro 0.33, macro 0.267",
        T[7],
        averaging_lessons.micro_accuracy,
        source=averaging_lessons.SKLEARN_F1 + " (its multi-class example)",
        worked=True,
    ),
    Lesson(
        "samples_empty",
        "Samples F1 with an empty row: 5/6 with zero_division=1",
        T[7],
        averaging_lessons.samples_empty,
        source=averaging_lessons.SKLEARN_F1 + " (its multi-label example); zero_division as in "
        "precision_recall_fscore_support",
        worked=True,
    ),
    Lesson(
        "class_thresholds",
        "Each label's best threshold, and the gain over one shared",
        T[8],
        averaging_lessons.class_thresholds,
        source=averaging_lessons.LIPTON,
    ),
    Lesson(
        "cost_curve",
        "Normalized expected cost at a probability cost",
        T[9],
        decision_lessons.cost_curve,
        source=decision_lessons.DRUMMOND_HOLTE,
    ),
    Lesson(
        "calibration",
        "ECE 0.139 in three bins; MCE and Brier reliability",
        T[10],
        decision_lessons.calibration,
        source="scikit-learn documentation, sklearn.calibration.calibration_curve (its "
        "example); " + decision_lessons.GUO + " (ECE)",
        worked=True,
    ),
)
BY_KEY = {lesson.key: lesson for lesson in LESSONS}
