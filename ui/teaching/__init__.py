"""Teaching: lessons (predict a number, check it, see it derived) and step-through mode (a
threshold walked down a ranking one score at a time).

Pure: never imports Streamlit, directly or through another package. Imports ``metrics`` and the
packages before it in :data:`ui.LAYERS`, never one after it.
"""
