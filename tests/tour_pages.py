"""The documentation tour's pages: each page's URL path -> the bundled dataset it is shown on."""

TOUR = {
    "threshold": "breast_cancer",
    "curves": "breast_cancer",
    "decisions": "breast_cancer",
    "calibration": "breast_cancer",
    "gauc": "user_impressions",
    "ranking": "query_ranking",
    "runs": "breast_cancer",  # qrels and runs come from its own uploaders, else a seeded example
    "multilabel": "digits_multilabel",
    "detection": "breast_cancer",  # boxes come from its own uploaders, else a seeded example
    "compare": "breast_cancer",
    "ap_lab": "breast_cancer",
    "auc_lab": "breast_cancer",
    "step_through": "breast_cancer",
    "lessons": "breast_cancer",
    "data": "breast_cancer",
}
