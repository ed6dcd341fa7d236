"""The server's work for a session: reading a file under the memory budget every session
shares, datasets and their cached computations (keyed by the dataset, so a rerun is a lookup),
one threshold per model, and the engine's results for a server table.

Streamlit. Imports ``metrics`` and the packages before it in :data:`ui.LAYERS`, never one after
it.
"""
