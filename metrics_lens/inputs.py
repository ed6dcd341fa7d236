"""Reading a predictions table for the command line and the notebook entry.

A file (CSV, TSV, semicolon-separated text, any of them gzipped, or Parquet) or a pandas
DataFrame becomes the arrays the metrics take, with the column roles guessed as the dashboard
guesses them for an upload (:func:`ui.tables.loading.guess_mapping`) and overridden by the caller.
Every problem is a :class:`BadInput` whose message is one sentence saying what was expected and
what arrived; the command line prints it on one line and exits 2.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ui.compute.reading import read_path
from ui.tables.checking import prepare
from ui.tables.loading import ColumnMapping, LoadError, guess_mapping

__all__ = ["BadInput", "Table", "load_frame", "mapped_table", "same_file"]


class BadInput(ValueError):
    """Input the command cannot use; the message says what to fix (exit status 2)."""


NONE = "none"  # --group none / --weight none: no such column, not even a guessed one


@dataclass(frozen=True)
class Table:
    """A binary-labelled predictions table, ready for the metrics.

    ``y`` is True for the positive class; ``scores`` holds one float array per model, in the
    order given; ``groups`` the user or query ids (or None); ``frame`` the rows used (after
    dropping rows with problems when asked), for slicing.
    """

    name: str
    frame: pd.DataFrame
    mapping: ColumnMapping
    y: np.ndarray
    scores: dict[str, np.ndarray]
    groups: np.ndarray | None
    weight: np.ndarray | None
    n_dropped: int
    notes: tuple[str, ...] = ()
    guessed: tuple[str, ...] = ()  # roles taken from the guess, as sentences ("--group user_id")

    @property
    def positives(self) -> int:
        return int(np.count_nonzero(self.y))

    @property
    def negatives(self) -> int:
        return int(self.y.size - np.count_nonzero(self.y))


def load_frame(
    path: str | Path, columns: list[str] | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """Read a table file with the checks an upload gets (:func:`ui.compute.reading.read_path`: a
    regular file, its size, decompressed size, columns and header, within the memory budget);
    the name is that file, never a pattern. ``columns``: the only ones a Parquet file's read
    decodes (a text table is parsed whole). Raises :class:`BadInput` with one sentence."""
    try:
        return read_path(path, columns=columns)
    except LoadError as exc:
        raise BadInput(str(exc)) from None


def same_file(a: str | Path, b: str | Path) -> bool:
    """True when writing ``b`` would write over ``a``: the same path once resolved (symbolic
    links followed), or the same file under another name (a hard link: same device and inode)."""
    try:
        if os.path.realpath(a) == os.path.realpath(b):
            return True
        sa, sb = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _check_column(frame: pd.DataFrame, column: str | None, role: str) -> None:
    if column is not None and column not in frame.columns:
        shown = ", ".join(repr(str(c)) for c in list(frame.columns)[:12])
        more = ", ..." if frame.shape[1] > 12 else ""
        raise BadInput(f"No column named {column!r} ({role}); the table has {shown}{more}.")


def _pos_label(series: pd.Series, text: str):
    """The positive class given as text, matched against the label column's own values."""
    for v in pd.unique(series.dropna()):
        if str(v) == text or (isinstance(v, (int, float, np.number)) and _same_number(v, text)):
            return v.item() if hasattr(v, "item") else v
    values = ", ".join(repr(v) for v in pd.unique(series.dropna())[:6])
    raise BadInput(
        f"--pos-label {text!r} is not a value of {series.name!r} (its values: {values})."
    )


def _same_number(value, text: str) -> bool:
    try:
        return float(text) == float(value)
    except ValueError:
        return False


def mapped_table(
    frame: pd.DataFrame,
    *,
    name: str = "table",
    label: str | None = None,
    scores: list[str] | tuple[str, ...] | None = None,
    group: str | None = None,
    weight: str | None = None,
    pos_label: str | None = None,
    drop_bad_rows: bool = False,
    notes: list[str] | tuple[str, ...] = (),
    score_flags: dict[str, str] | None = None,
) -> Table:
    """The table's binary label and score columns as arrays (roles guessed where not given).

    ``score_flags`` names the option that gave each score column, for the messages.

    Raises :class:`BadInput` for a column that does not exist, a label that is not binary or
    has one class only, a score column that is not numeric, and any other problem the
    dashboard's loader reports as an error.
    """
    # "none" turns a guessed user/query or weight column off, as the dashboard's "(none)".
    no_group, no_weight = group == NONE, weight == NONE
    group, weight = (None if no_group else group), (None if no_weight else weight)
    for column, role in ((label, "--label"), (group, "--group"), (weight, "--weight")):
        _check_column(frame, column, role)
    for column in scores or ():
        _check_column(frame, column, (score_flags or {}).get(column, "--score"))
    guess = guess_mapping(frame)
    # The user/query and weight columns the dashboard would map, unless named or turned off:
    # the same file gives the same numbers (and grouped rows are resampled by group) everywhere.
    taken = {label, *(scores or ())}
    guessed = []
    if group is None and not no_group and guess.group is not None and guess.group not in taken:
        group = guess.group
        guessed.append(f"--group {group} (rows of one {group} are resampled together)")
    free = guess.weight is not None and guess.weight not in taken and guess.weight != group
    if weight is None and not no_weight and free:
        weight = guess.weight
        guessed.append(f"--weight {weight}")
    if label is None and guess.label is None:
        raise BadInput(
            f"{name} holds one label column per class (label_<class> / score_<class>): the "
            "command scores one binary label. Open it in the dashboard (metrics-lens app, or "
            "Upload) for the multi-class and multi-label metrics, or score one class against "
            "the rest with --label label_<class>."
        )
    label = label or guess.label
    present = pd.unique(frame[label].dropna())
    if len(present) == 1:
        only = present[0].item() if hasattr(present[0], "item") else present[0]
        raise BadInput(
            f"Label column {label!r} has one class only (every row is {only!r}): AUC and AP "
            "need both classes."
        )
    if pos_label is not None:
        positive = _pos_label(frame[label], pos_label)
        if len(present) > 2:  # one class against the rest: the label as that class or not
            column = frame[label]
            chosen_rows = (column == positive).fillna(False).to_numpy(dtype=bool)
            values = np.where(chosen_rows, str(positive), f"not {positive}").astype(object)
            values[column.isna().to_numpy()] = None
            frame = frame.assign(**{label: pd.Series(values, index=frame.index, dtype=object)})
            notes = [*notes, f"{label} = {positive} against the other {len(present) - 1} "
                             "classes, taken as one."]  # fmt: skip
            positive = str(positive)
    elif label == guess.label and guess.pos_label is not None:
        positive = guess.pos_label
    else:
        from ui.tables.loading import guess_pos_label

        positive = guess_pos_label(frame[label])
    # One class of a per-class table: its own score column, not every class's.
    own = f"score_{label[len('label_') :]}" if str(label).startswith("label_") else None
    if any("classes, taken as one" in n for n in notes):  # one class of a multi-class label
        own = f"score_{positive}"
    chosen = (
        tuple(scores)
        if scores
        else (own,)
        if own in frame.columns
        else tuple(c for c in guess.scores if c not in (label, group, weight))
    )
    if label in chosen:
        raise BadInput(f"{label!r} is the label; it cannot also be a score (--score).")
    if not chosen:
        raise BadInput(
            f"No score column was found in {name}: name one with --score (the columns: "
            + ", ".join(repr(str(c)) for c in list(frame.columns)[:12])
            + ")."
        )
    mapping = ColumnMapping(
        label=label,
        scores=chosen,
        pos_label=positive,
        group=group if group is not None else None,
        weight=weight,
    )
    prepared = prepare(frame, mapping, drop_bad_rows=drop_bad_rows)
    errors = [p for p in prepared.problems if p.level == "error"]
    if errors:
        message = errors[0].message
        if "a binary label needs two" in message:  # the command has no per-class layout
            message = message.split("a binary label needs two")[0] + (
                "the command scores one binary label: pass --pos-label with the positive "
                "class to score it against the rest, or open it in the dashboard "
                "(metrics-lens app, or Upload) for the multi-class metrics."
            )
        if errors[0].fixable and not drop_bad_rows:
            message = message.replace(
                "Drop those rows to go on.", "Pass --drop-bad-rows to drop them."
            )
        raise BadInput(" ".join(message.split()))
    y = np.asarray(prepared.y, dtype=bool)
    if y.all() or not y.any():
        only = "positive" if y.all() else "negative"
        raise BadInput(
            f"Label column {label!r} has one class only (every row {only}, positive class "
            f"{positive!r}): AUC and AP need both classes."
        )
    kept = frame if prepared.kept is None else frame.iloc[prepared.kept].reset_index(drop=True)
    return Table(
        name=name,
        frame=kept,
        mapping=replace(mapping, pos_label=positive),
        y=y,
        scores={c: np.asarray(prepared.scores[c], dtype=np.float64) for c in chosen},
        groups=prepared.groups,
        weight=prepared.weight,
        n_dropped=prepared.n_dropped,
        notes=tuple(notes)
        + (
            (
                "Columns taken as the dashboard takes them: "
                + ", ".join(guessed)
                + f". Pass --group {NONE} or --weight {NONE} to leave one out.",
            )
            if guessed
            else ()
        ),
        guessed=tuple(guessed),
    )


def inverted_notes(table: Table) -> list[str]:
    """A sentence for each model whose scores rank the negative class above the positive one
    by more than chance explains (the dashboard's test, :func:`ui.tables.score_state.below_chance`),
    with the option that turns the label around."""
    import warnings

    import metrics
    from ui.tables.score_state import below_chance, inverted_hint

    label, positive = table.mapping.label, table.mapping.pos_label
    others = [v for v in pd.unique(table.frame[label].dropna()) if str(v) != str(positive)]
    other = None  # the one other value of a binary label (not the rest of a multi-class one)
    if len(others) == 1 and not any("classes, taken as one" in n for n in table.notes):
        other = others[0].item() if hasattr(others[0], "item") else others[0]
    weighted = table.weight is not None
    n_pos, n_neg = table.positives, table.negatives
    notes = []
    for name, s in table.scores.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            auc = float(metrics.roc_auc_score(table.y, s, sample_weight=table.weight))
        if below_chance(auc, n_pos, n_neg, weighted=weighted):
            fix = None if other is None else f"pass --pos-label {other}"
            negative = f"{label} = {other}" if other is not None else "the other rows"
            notes.append(inverted_hint(name, auc, f"{label} = {positive}", negative, fix))
    return notes
