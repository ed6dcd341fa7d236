"""The frame every page sits in: page config, navigation, the shared sidebar (data, column
mapping, model), the page context, presentation mode and narrow screens.

Streamlit. Imports ``metrics`` and the packages before it in :data:`ui.LAYERS`, never one after
it.

Pages call :func:`ui.frame.shell.page_context` first.
"""
