"""Whether a table in memory can open on the dashboard as rows: the check ``metrics-lens app
FILE`` and ``metrics_lens.show(df)`` both make before a server starts, so bad input is one
sentence in the terminal or the notebook, never an error page."""

from __future__ import annotations

__all__ = ["usable_rows"]


def usable_rows(frame, mapping, name: str) -> None:
    """What the dashboard opens ``frame`` with can be scored: its columns read (the loader's
    errors, as the command says them) and a binary label has both classes, as the engine's
    pass checks a file it reads. Raises LoadError with the sentence."""
    import pandas as pd

    from ui.tables.checking import prepare
    from ui.tables.loading import LoadError

    if mapping.label is not None and not mapping.per_class and not mapping.graded:
        present = pd.unique(frame[mapping.label].dropna())
        if len(present) < 2:
            only = (
                repr(present[0].item() if hasattr(present[0], "item") else present[0])
                if len(present)
                else "missing"
            )
            raise LoadError(
                f"Label column {mapping.label!r} of {name} has one class only (every row is "
                f"{only}): AUC and AP need both classes."
            )
    errors = [p for p in prepare(frame, mapping).problems if p.level == "error"]
    if errors:
        message = " ".join(errors[0].message.split())
        raise LoadError(message.replace("Drop those rows to go on.", "Drop those rows first."))
