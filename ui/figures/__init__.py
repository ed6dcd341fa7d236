"""Figures and the tables beside them: values in, a plotly figure or a DataFrame out, one module
per page or lab (``charts`` holds what they share: palette, template, axes).

Pure: never imports Streamlit, directly or through another package. Imports ``metrics`` and the
packages before it in :data:`ui.LAYERS`, never one after it.
"""
