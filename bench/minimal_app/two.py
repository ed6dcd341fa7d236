import streamlit as st

st.header("Two")
st.write("A minimal page.")
