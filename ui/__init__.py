"""Thin Streamlit helpers shared by ``app.py`` and ``pages/``: session state, cached engine calls, sidebar.

Logic lives in the library (``layerzero_viz``, pure and tested with pytest); this package only binds it to
Streamlit's session, caches and widgets.
"""
