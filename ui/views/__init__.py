"""The pieces a page composes: a chart with its toolbar, an 'Explain' expander, the draggable
threshold, Compare and Ranking on a server table, and each page's sections.

Streamlit. Imports ``metrics`` and the packages before it in :data:`ui.LAYERS`, never one after
it.
"""
