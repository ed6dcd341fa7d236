"""Analyses a page presents whole: several models tested together, decision rules on a score
matrix, a cost matrix, tables of metric x model with intervals.

Pure: never imports Streamlit, directly or through another package. Imports ``metrics`` and the
packages before it in :data:`ui.LAYERS`, never one after it.
"""
