"""Figures and the tables beside them: values in, a plotly figure or a DataFrame out, one module
per page or lab (``charts`` holds what they share: palette, template, axes).

Pure: never imports Streamlit, directly or through another package. Imports ``metrics`` and the
packages before it in :data:`ui.LAYERS`, never one after it.
"""

# Plotly's key paths parsed once per distinct key, for every figure built anywhere (key_paths).
from ui.figures import key_paths as _key_paths  # noqa: F401
