"""What a data source is: a :class:`Source`, which each source module defines once as ``SOURCE``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ui.compute.data import Dataset
from ui.words.numbers import plural


def _no_link(q: Mapping) -> bool:
    return False


def _rows(ds: Dataset) -> str:
    n = len(ds.frame) - ds.prepared.n_dropped
    return f"{plural(n, 'row')}, {plural(len(ds.frame.columns), 'column')}."


@dataclass(frozen=True)
class Source:
    """One data source.

    ``sidebar`` draws the source's widgets in the current container and returns its dataset,
    or None (after saying why) while there is none yet: then the sample dataset shows, with a
    banner when ``waits`` (the user chose this source and waits for their table).
    ``read_link(query)`` runs on a session's first run and returns True when the link is this
    source's (it then sets the session state the widgets start from). ``link(ds)`` is the
    query string of the current view, as a dict (a list value repeats the key), or None for
    none.
    """

    label: str
    prefix: str
    sidebar: Callable[[], Dataset | None]
    read_link: Callable[[Mapping], bool] = _no_link
    link: Callable[[Dataset], dict | None] = lambda ds: None
    waits: bool = False  # until a table is ready, the sample dataset shows with a banner
    roles_editable: bool = False  # the Data page may change its columns' roles
    in_budget: bool = False  # its tables live in the memory budget (ui.compute.budget), per session
    own_model_picker: bool = False  # it draws the model choice itself
    rows: Callable[[Dataset], str] = _rows  # the sidebar's line on the table's size
    data_page: Callable[[], None] | None = None  # draws the source's own part of the Data page
    # Pages (by file stem) the source draws its own way, in whole or in part: each returns True
    # when it drew the page (or said why it cannot be drawn) and the page stops there.
    pages: Mapping[str, Callable[[Dataset], bool]] = field(default_factory=dict)

    def owns(self, ds: Dataset) -> bool:
        return ds.source_id.split(":", 1)[0] == self.prefix
