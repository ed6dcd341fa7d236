"""The baseline of ``bench.bench_pages``: a two-page Streamlit app, one heading a page."""

import streamlit as st

st.navigation([st.Page("one.py", title="One"), st.Page("two.py", title="Two")]).run()
