"""The page files and the library's page ids agree, so links and navigation name the same pages."""
from __future__ import annotations

from apptools import ROOT

from layerzero_viz.appstate import DEFAULT_PAGE, PAGES
from ui import nav


def test_every_page_id_has_one_page_file():
    assert tuple(spec.id for spec in nav.SPECS) == PAGES
    assert all((ROOT / spec.file).is_file() for spec in nav.SPECS)
    assert DEFAULT_PAGE in PAGES


def test_there_is_no_pages_directory():
    # A pages/ folder next to app.py switches Streamlit to its legacy multipage mode on a process's first run
    # (and on every AppTest run), which runs a page file without app.py's sidebar and session setup.
    assert not (ROOT / "pages").exists()
