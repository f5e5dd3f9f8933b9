"""layerzero-viz: the Streamlit entry point — navigation and the shared sidebar, nothing else.

    streamlit run app.py -- --fixture fixtures/finance_qa.zh.json

Startup order matters: a debug link (``?s=`` / ``?share=``) is restored before any widget exists, then after a
browser reload the conversation the URL's ``?c=`` names (held in memory by this server process), then
``--fixture`` is loaded when nothing else is, then the page a load or link asked for is switched to.  Every run
puts the loaded conversation's ``?c=`` back in the URL (a page switch clears the query).
"""
from __future__ import annotations

import sys

import streamlit as st

from layerzero_viz.appstate import fixture_from_argv, md_escape
from ui import nav, session, sidebar

st.set_page_config(page_title="layerzero-viz", page_icon="✂️", layout="wide")
# On a phone Streamlit keeps 6rem above the title: less, so a page's text starts within the first screen.
st.html("<style>@media (max-width: 640px) { [data-testid=stMainBlockContainer] { padding-top: 3.5rem; } }</style>")

session.init()
params = st.query_params.to_dict()
session.restore_from_link(params)
session.restore_held(params)  # a reload: the conversation the URL's ?c= names, when this process holds it
session.load_fixture_once(fixture_from_argv(sys.argv))

pages = nav.build()
page = st.navigation(list(pages.values()))
goto = st.session_state.pop(session.GOTO, None)
if goto in pages and pages[goto] is not page:
    st.switch_page(pages[goto], query_params=st.query_params.to_dict())

if error := session.link_error(params):
    st.error(md_escape(error), icon=":material/link_off:")
if missing := st.session_state.get(session.HELD_MISSING):
    st.info(md_escape(missing), icon=":material/history:")
if notice := st.session_state.get(session.SIZE_NOTICE):
    st.warning(md_escape(notice), icon=":material/content_cut:")

session.keep_in_url()
current_id = nav.page_id(pages, page)
sidebar.render(current_id, session.current())
page.run()
