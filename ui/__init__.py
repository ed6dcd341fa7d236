"""The dashboard's side: Streamlit modules over pure ones.

Pure (numpy, pandas, plotly; never Streamlit, directly or through another module): the
figures (``charts`` and the ``*_charts`` modules), text (``text``, ``numbers``, ``safe``),
loading and roles, the lessons and the synthetic generator. The Streamlit side (the shell,
the data sources, caching, the budget, ``explain`` and ``show``) is listed in
``pyproject.toml``, where ruff bans Streamlit everywhere else; ``tests/test_layers.py`` checks
the imports as run. Pages are thin scripts over both and ``metrics``.
"""
