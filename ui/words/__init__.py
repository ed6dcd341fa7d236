"""How numbers and names read: rounding as a student rounds, p-values, plurals, LaTeX for the
formulas with the user's counts in, user text made safe, and the sentences that explain why
values differ.

Pure: never imports Streamlit, directly or through another package. Imports ``metrics`` and the
packages before it in :data:`ui.LAYERS`, never one after it.
"""
