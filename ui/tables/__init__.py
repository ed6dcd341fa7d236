"""Score tables as data: the ``Dataset`` every source makes, columns and their roles, score
scales, the checks that turn a table into the arrays the metrics take, a second model's file,
the per-score state, the synthetic generator, annotator columns and the multi-label
problem with its numbers.

Pure: never imports Streamlit, directly or through another package. Imports ``metrics`` and the
packages before it in :data:`ui.LAYERS`, never one after it.
"""
