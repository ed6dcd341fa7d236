"""The dashboard's side, in nine packages with one job each (``docs/architecture.md``).

Lowest first; a package imports only ``metrics`` and the packages before it in :data:`LAYERS`
(``tests/test_layers.py`` checks every import, at module level or inside a function):

* pure (numpy, pandas, plotly; never Streamlit, directly or through another package):
  ``words`` (how numbers and names read), ``tables`` (columns, roles, checked arrays),
  ``figures`` (values in, figure out), ``analyses`` (tests and decisions a page shows whole),
  ``teaching`` (lessons, step-through);
* Streamlit: ``compute`` (reading under the memory budget, cached computations per dataset),
  ``views`` (the pieces a page composes), ``sources`` (where a dataset comes from), ``frame``
  (navigation, sidebar, page context, presentation mode).

Pages (``pages/``) are above all of them; ``metrics_lens`` (the command) may use any.
"""

PURE = ("words", "tables", "figures", "analyses", "teaching")
LAYERS = (*PURE, "compute", "views", "sources", "frame")
