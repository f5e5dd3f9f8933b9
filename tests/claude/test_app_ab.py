"""The A/B page and the sidebar's exact counts, in AppTest: offline, and against the fake server."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from layerzero_viz.claude import ABRunner, Store, read_rows
from layerzero_viz.claude.report import save_report

from .conftest import API_KEY
from .fake_anthropic import COUNT, MESSAGES
from .helpers import FINANCE, MODEL, SUPPORT, write_rows

ROOT = Path(__file__).resolve().parents[2]
AB_PAGE = "app_pages/ab.py"


@pytest.fixture(autouse=True)
def _app_env(monkeypatch, tmp_path):
    monkeypatch.setenv("LAYERZERO_SHARE_DB", str(tmp_path / "shares.db"))
    monkeypatch.setenv("LAYERZERO_AB_DIR", str(tmp_path / "ab"))


def app_with(text: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    if text is not None:
        at.switch_page("app_pages/load.py").run()
        at.text_area(key="paste_text").input(text)
        at.button(key="load_paste").click().run()
        assert not at.error
    return at


def test_offline_the_page_explains_and_opens_a_saved_run(make_client, tmp_path):
    rows = read_rows(write_rows(tmp_path / "runs.jsonl", [FINANCE, SUPPORT]))
    report = ABRunner(make_client(), model=MODEL, ratio=0.5, store=Store(tmp_path / "c.db"), recommender=None).run(rows)
    saved = save_report(report, tmp_path / "ab")
    at = app_with()
    at.switch_page(AB_PAGE).run()
    assert not at.exception
    assert any("ANTHROPIC_API_KEY" in i.value for i in at.info)
    at.selectbox(key="ab_saved").set_value(saved.name).run()
    assert not at.exception
    shown = {m.label.split(":")[0]: m.value for m in at.main.metric}
    groups = report.summary()
    assert shown == {g: f"{groups[g]['effectiveness_ratio']:.3f}" for g in "ABC"}
    assert len(at.dataframe) == 2


def test_with_a_key_the_page_runs_ab_on_the_loaded_conversation(server, monkeypatch, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    at = app_with(json.dumps(FINANCE, ensure_ascii=False))
    at.switch_page(AB_PAGE).run()
    at.button(key="ab_submit").click().run()
    assert not at.exception and not at.error
    assert server.count(MESSAGES, 200) > 0
    assert {m.label.split(":")[0] for m in at.main.metric} == {"A", "B", "C"}
    assert len(list((tmp_path / "ab").glob("ab-*.json"))) == 1
    assert API_KEY not in (tmp_path / "ab").joinpath(next((tmp_path / "ab").glob("*.json")).name).read_text()


def test_the_sidebar_shows_exact_counts_next_to_the_estimate(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    at = app_with(json.dumps(FINANCE, ensure_ascii=False))
    labels = {m.label: m.value for m in at.sidebar.metric}
    assert "Tokens before → after (Claude, exact)" in labels
    assert any("cl100k estimate" in c.value for c in at.sidebar.caption)
    assert server.count(COUNT) == 2


def test_offline_the_sidebar_labels_estimates():
    at = app_with(json.dumps(FINANCE, ensure_ascii=False))
    assert "Tokens before → after (Claude, exact)" not in {m.label for m in at.sidebar.metric}
    assert any("cl100k estimate" in c.value for c in at.sidebar.caption)
