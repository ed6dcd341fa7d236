"""The dashboard's side of the data flow: loading tables (cached) and building plotly figures.

``ui.charts`` is pure plotly and never imports streamlit; ``ui.data`` wraps loading in
``st.cache_data``. Pages are thin scripts over these and ``metrics``.
"""
