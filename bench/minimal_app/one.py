import streamlit as st

st.header("One")
st.write("A minimal page.")
