"""The Data page's Annotators section: agreement, the ceiling, each model against every
annotator, the majority and the soft label, from columns named annotator_1, annotator_2, ..."""

from __future__ import annotations

import numpy as np
import pandas as pd

import metrics
from tests.apptest_utils import open_page, upload_frame
from ui.tables.agreement_table import annotator_columns


def _frame(n=240, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.4
    votes = np.where(rng.random((n, 3)) < 0.2, ~truth[:, None], truth[:, None]).astype(int)
    frame = pd.DataFrame(votes, columns=["annotator_1", "annotator_2", "annotator_3"])
    frame["label"] = votes.mean(axis=1)  # the soft label: the share saying positive
    frame["model"] = np.round(truth * 0.5 + rng.random(n) * 0.6, 4)
    return frame


def test_annotator_columns_are_found_by_name():
    frame = pd.DataFrame(columns=["id", "annotator_1", "Rater2", "judge_3", "annotators", "m"])
    assert annotator_columns(frame) == ["annotator_1", "Rater2", "judge_3"]


def test_data_page_shows_agreement_and_each_model_against_the_annotators():
    frame = _frame()
    at = upload_frame(open_page("pages/data.py"), frame)
    at.switch_page("pages/data.py").run()
    assert not at.exception, at.exception
    assert "Annotators" in [h.value for h in at.subheader]
    r = frame[["annotator_1", "annotator_2", "annotator_3"]].to_numpy(float)
    report = metrics.annotator_agreement(r)
    stats = next(d.value for d in at.dataframe if "statistic" in d.value.columns)
    values = dict(zip(stats["statistic"], stats["value"], strict=True))
    assert values["Fleiss' kappa"] == f"{report.fleiss_kappa:.3f}"
    assert values["Krippendorff's alpha (nominal)"] == f"{report.krippendorff_alpha:.3f}"
    assert values["ceiling on accuracy"] == f"{report.ceiling:.3f}"
    table = next(d.value for d in at.dataframe if "against" in d.value.columns)
    assert list(table["against"]) == [
        "annotator_1", "annotator_2", "annotator_3", "majority", "soft label",
    ]  # fmt: skip
    scales = next(d.value for d in at.dataframe if "threshold now" in d.value.columns)
    t = float(scales["threshold now"].iloc[0])
    want = metrics.score_against_annotators(
        r, frame["model"].to_numpy() >= t, names=["annotator_1", "annotator_2", "annotator_3"]
    )
    assert list(table["accuracy"]) == [f"{acc:.3f}" for _, acc, _, _ in want.rows]
    assert any("Soft labels" in i.value for i in at.info)  # the label column is the share


def _long(n_items=120, seed=1):
    """A long table of judgements: one row per item and annotator (annotator 3 skips some),
    the model's score repeated on each of an item's rows."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n_items) < 0.4
    score = np.round(truth * 0.3 + rng.random(n_items) * 0.7, 4)
    rows = []
    for i in range(n_items):
        for a in (1, 2, 3):
            if a == 3 and rng.random() < 0.15:
                continue
            vote = truth[i] if rng.random() > 0.15 else not truth[i]
            rows.append({"item_id": f"q{i:03d}", "annotator": a, "label": int(vote),
                         "model": score[i]})  # fmt: skip
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed)  # in no particular order


def test_a_long_table_of_judgements_is_pivoted_by_item():
    from ui.tables.agreement_table import long_columns

    frame = _long()
    assert long_columns(frame) == ("item_id", "annotator")
    assert long_columns(frame.drop_duplicates("item_id")) is None  # one row per item: not long
    at = upload_frame(open_page("pages/data.py"), frame, "judgements.csv")
    assert at.multiselect(key="map_scores").value == ["model"]  # annotator ids are no model
    at.switch_page("pages/data.py").run()
    assert not at.exception, at.exception
    assert "Annotators" in [h.value for h in at.subheader]
    wide = frame.pivot(index="item_id", columns="annotator", values="label")
    r = wide.to_numpy(float)
    report = metrics.annotator_agreement(r)
    stats = next(d.value for d in at.dataframe if "statistic" in d.value.columns)
    values = dict(zip(stats["statistic"], stats["value"], strict=True))
    assert values["Fleiss' kappa"] == "—"  # annotator 3 skipped items: Fleiss needs them all
    assert values["Krippendorff's alpha (nominal)"] == f"{report.krippendorff_alpha:.3f}"
    assert values["ceiling on accuracy"] == f"{report.ceiling:.3f}"
    table = next(d.value for d in at.dataframe if "against" in d.value.columns)
    names = ["annotator 1", "annotator 2", "annotator 3"]
    assert list(table["against"]) == [*names, "majority", "soft label"]
    scales = next(d.value for d in at.dataframe if "threshold now" in d.value.columns)
    t = float(scales["threshold now"].iloc[0])
    per_item = frame.groupby("item_id")["model"].first().reindex(wide.index).to_numpy()
    want = metrics.score_against_annotators(r, per_item >= t, names=names)
    assert list(table["accuracy"]) == [f"{acc:.3f}" for _, acc, _, _ in want.rows]
    said = " ".join(c.value for c in at.caption)
    assert f"({report.n_items} items, 3 annotators)" in said


def test_a_long_table_with_a_judgement_given_twice_says_so():
    frame = _long()
    frame = pd.concat([frame, frame.iloc[:1]])  # one annotator labelled one item twice
    at = upload_frame(open_page("pages/data.py"), frame, "judgements.csv")
    at.switch_page("pages/data.py").run()
    assert not at.exception, at.exception
    assert any("labelled item" in i.value and "2 times" in i.value for i in at.info)
