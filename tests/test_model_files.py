"""A second file of the same rows as another model: the pure merge (ui.tables.model_files) on
generated tables, and the upload source end to end in AppTest, down to Compare's numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from tests.apptest_utils import open_page, upload_frame
from tests.strategies import examples
from ui.tables.loading import LoadError, guess_mapping
from ui.tables.model_files import add_model_file, model_name

CLASSES = ("A", "N", "U", "Y")


def _class_scores(rng, n: int) -> pd.DataFrame:
    return pd.DataFrame(rng.dirichlet([1] * 4, n), columns=[f"score_{c}" for c in CLASSES])


def _multiclass(seed: int, n: int = 300):
    rng = np.random.default_rng(seed)
    vote = rng.choice(list(CLASSES), n)
    head = pd.DataFrame({"respondent": np.arange(1, n + 1), "vote": vote})
    return pd.concat([head, _class_scores(rng, n)], axis=1), rng


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), shuffle=st.booleans(), with_id=st.booleans())
def test_a_per_class_file_becomes_one_more_whole_model(seed, shuffle, with_id):
    first, rng = _multiclass(seed, 40)
    second = pd.concat([first[["respondent", "vote"]], _class_scores(rng, 40)], axis=1)
    if not with_id:
        second = second.drop(columns="respondent")
        first = first.drop(columns="respondent")
    elif shuffle:
        second = second.sample(frac=1, random_state=seed)
    mapping = guess_mapping(first)
    merged, m, notes = add_model_file(first, mapping, "lr.csv", second, "hgb.csv")
    assert m.class_models == ("lr", "hgb")
    assert m.class_columns("hgb") == tuple(f"hgb__{c}" for c in m.classes)
    order = second.set_index("respondent").loc[first["respondent"]] if with_id else second
    for c in m.classes:
        np.testing.assert_array_equal(merged[f"hgb__{c}"], order[f"score_{c}"])
        np.testing.assert_array_equal(merged[f"lr__{c}"], first[f"score_{c}"])
    assert "hgb" in notes[0]
    guessed = guess_mapping(merged)  # a reload of the merged table reads the same layout
    assert guessed.class_models == ("lr", "hgb")
    assert guessed.label == "vote"


def test_binary_scores_join_as_more_models_and_collide_by_file_name():
    rng = np.random.default_rng(1)
    first = pd.DataFrame({"y": rng.integers(0, 2, 50), "score": rng.random(50)})
    second = pd.DataFrame({"y": first.y, "score": rng.random(50), "calibrated": rng.random(50)})
    merged, m, _ = add_model_file(first, guess_mapping(first), "prod.csv", second, "new.csv")
    assert m.scores == ("score", "new_score", "calibrated")
    np.testing.assert_array_equal(merged["new_score"], second["score"])


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda f: f.iloc[:-1].drop(columns="respondent"), "has 300 rows and hgb.csv 299"),
        (lambda f: f.assign(vote=np.roll(f.vote.to_numpy(), 1)).drop(columns="respondent"),
         "not the same rows in the same order"),
        (lambda f: f.assign(respondent=f.respondent + 1), "share the id column 'respondent'"),
        (lambda f: f.drop(columns=["score_Y"]), "no score column per class for A, N, U, Y"),
    ],
)  # fmt: skip
def test_other_rows_are_refused_with_a_sentence(change, says):
    first, rng = _multiclass(3)
    second = change(pd.concat([first[["respondent", "vote"]], _class_scores(rng, 300)], axis=1))
    with pytest.raises(LoadError, match=says):
        add_model_file(first, guess_mapping(first), "lr.csv", second, "hgb.csv")


def test_model_names_come_from_file_names():
    assert model_name("hgb scores (v2).csv.gz", set()) == "hgb_scores_v2"
    assert model_name("lr.csv", {"lr"}) == "lr_2"
    assert "__" not in model_name("a__b.csv", set())


def test_the_upload_source_adds_the_file_and_compare_tests_the_two_models():
    first, rng = _multiclass(7)
    second = pd.concat([first[["respondent", "vote"]], _class_scores(rng, 300)], axis=1)
    second = second.sample(frac=1, random_state=0)  # another order: the ids match them
    at = upload_frame(open_page("pages/compare.py"), first, "lr.csv")
    assert not at.exception
    buf = second.to_csv(index=False).encode()
    at.file_uploader(key="upload_model_file").set_value(("hgb.csv", buf, "text/csv")).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    text = "\n".join(c.value for c in at.caption).replace("\\", "")  # markdown escapes
    assert "Added hgb.csv's scores as model 'hgb' (rows matched on 'respondent')." in text
    table = next(d.value for d in at.dataframe if "macro AUC" in d.value.columns)
    y = first["vote"].to_numpy()
    aligned = second.set_index("respondent").loc[first["respondent"]]
    for model, frame in (("lr", first), ("hgb", aligned)):
        s = frame[[f"score_{c}" for c in CLASSES]].to_numpy()
        want = metrics.roc_auc_score(y, s, average="macro", labels=list(CLASSES), multi_class="ovr")
        value = table.loc[table["model"].astype(str).str.startswith(model), "macro AUC"].iloc[0]
        assert float(str(value).split()[0]) == pytest.approx(want, abs=5e-5), (model, value)
    # A second, bad file is a sentence, and the two models stay.
    at.file_uploader(key="upload_model_file").set_value(
        ("bad.csv", first.iloc[:10].to_csv(index=False).encode(), "text/csv")
    ).run()
    assert not at.exception
    assert any("must hold the same rows" in e.value.replace("\\", "") for e in at.error)
    assert "lr.csv + hgb.csv" in "\n".join(c.value for c in at.caption).replace("\\", "")
