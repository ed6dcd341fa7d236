"""Teaching: lessons (predict a number, check it, see it derived), step-through mode (a
threshold walked down a ranking one score at a time) and the worked explanations of the AP lab
and the GAUC page (their formulas with the user's numbers in).

Pure: never imports Streamlit, directly or through another package. Imports ``metrics`` and the
packages before it in :data:`ui.LAYERS`, never one after it.
"""
