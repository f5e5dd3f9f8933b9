"""The Detector and History pages and the sidebar's profile picker, driven with Streamlit's AppTest."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    for name in ("ANTHROPIC_LAYER_ZERO_PRUNE_RATIO", "ANTHROPIC_EXPERIMENTAL_LAYER_ZERO", "LAYERZERO_PROFILES",
                 "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LAYERZERO_SHARE_DB", str(tmp_path / "shares.db"))


def open_sample(file: str, page: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("app_pages/load.py").run()
    at.button(key=f"open:{file}").click().run()
    return at.switch_page(page).run()


def test_detector_lists_findings_highlights_and_applies_a_fix():
    at = open_sample("finance_qa.zh.json", "app_pages/detector.py")
    assert not at.exception
    labels = at.selectbox(key="finding").options
    assert labels and labels[0].startswith("LZ180")
    html = "\n".join(m.value for m in at.main.markdown)
    assert "<mark" in html and "prune_ratio=&quot;0.35&quot;" in html  # the location, escaped
    assert len(at.main.metric) >= 6  # counts, and tokens before → after for the fix
    before = at.session_state["source"].text
    at.button(key="apply_fix").click().run()
    assert not at.exception
    assert at.session_state["source"].text != before and 'prune_ratio=\\"0.2\\"' in at.session_state["source"].text
    assert at.success and "LZ180" in at.success[0].value
    assert not any(o.startswith("LZ180") for o in at.selectbox(key="finding").options)


def test_detector_apply_all_shows_the_diff_first_then_leaves_no_fixable_finding():
    at = open_sample("support_chat.en.json", "app_pages/detector.py")
    original = at.session_state["source"]
    at.button(key="apply_all").click().run()
    assert not at.exception
    assert at.session_state["source"] == original  # nothing changed yet: the fixes wait for review
    diff = "\n".join(m.value for m in at.main.markdown if m.proto.allow_html)
    assert "<del>" in diff or "<ins>" in diff
    assert [c.value for c in at.main.caption].count("Original") >= 1
    at.button(key="advisor_apply_pending").click().run()
    assert not at.exception
    assert at.session_state["source"].text != original.text
    assert "apply_all" not in [b.key for b in at.main.button]
    assert "apply_fix" not in [b.key for b in at.main.button]


def test_detector_cancel_keeps_the_conversation():
    at = open_sample("support_chat.en.json", "app_pages/detector.py")
    original = at.session_state["source"]
    at.button(key="apply_all").click().run()
    at.button(key="advisor_cancel_pending").click().run()
    assert not at.exception and at.session_state["source"] == original
    assert "advisor_apply_pending" not in [b.key for b in at.main.button]
    assert "apply_all" in [b.key for b in at.main.button]


def test_a_fix_marks_the_conversation_modified_and_undo_restores_it_exactly():
    at = open_sample("finance_qa.zh.json", "app_pages/detector.py")
    original = at.session_state["source"]
    assert not any("Modified" in w.value for w in at.sidebar.warning)
    at.button(key="apply_fix").click().run()
    fixed = at.session_state["source"]
    assert fixed.name == "finance_qa.zh (modified).json" and fixed.text != original.text
    assert any("Modified" in w.value and "LZ180" in w.value for w in at.sidebar.warning)
    assert fixed.name.replace("_", "\\_") in " ".join(c.value for c in at.sidebar.caption)  # the sidebar's name
    at.button(key="apply_all").click().run()
    at.button(key="advisor_apply_pending").click().run()
    assert not at.exception and "2 detector edits" in at.sidebar.warning[0].value
    at.sidebar.button(key="advisor_undo").click().run()
    assert at.session_state["source"] == fixed  # one level back
    at.sidebar.button(key="advisor_undo").click().run()
    assert not at.exception and at.session_state["source"] == original  # the user's text, byte for byte
    assert not any("Modified" in w.value for w in at.sidebar.warning)
    assert "advisor_undo" not in [b.key for b in at.sidebar.button]


def test_the_modified_mark_follows_to_other_pages_and_goes_when_another_conversation_loads():
    at = open_sample("finance_qa.zh.json", "app_pages/detector.py")
    at.button(key="apply_fix").click().run()
    at.switch_page("app_pages/heatmap.py").run()
    assert any("Modified" in w.value for w in at.sidebar.warning) and "advisor_undo" in [b.key for b in at.sidebar.button]
    at.switch_page("app_pages/load.py").run()
    at.button(key="open:support_chat.en.json").click().run()
    at.switch_page("app_pages/heatmap.py").run()
    assert not any("Modified" in w.value for w in at.sidebar.warning)


def test_a_single_fix_shows_what_it_changes_before_it_is_applied():
    at = open_sample("finance_qa.zh.json", "app_pages/detector.py")
    before = at.session_state["source"]
    diff = "\n".join(m.value for m in at.main.markdown if m.proto.allow_html)
    assert 'prune_ratio=&quot;0.35&quot;' in diff and "<del>" in diff and "<ins>" in diff
    assert at.session_state["source"] == before


def test_detector_escapes_user_text():
    at = open_sample("xss_payload.en.json", "app_pages/detector.py")
    assert not at.exception
    html = "\n".join(m.value for m in at.main.markdown if m.proto.allow_html)  # the raw-HTML ones
    assert "<mark" in html and "&lt;script&gt;" in html.lower()
    assert "<script" not in html.lower() and "<img" not in html.lower()


def test_history_page_mines_the_sample_and_offers_the_block():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("app_pages/history.py").run()
    assert not at.exception and at.info
    at.button(key="history_sample").click().run()
    assert not at.exception
    assert at.main.metric[0].value == "5,000"
    block = at.main.code[0].value
    assert block.startswith("<redundant_phrases>[") and "麻烦您帮我看一下" in block
    assert len(at.get("vega_lite_chart")) == 1 and len(at.main.dataframe) == 1
    chosen = at.multiselect(key="history_chosen").value
    assert "麻烦您帮我看一下" in chosen and not {"电动牙刷和", "我想把", "of my"} & set(chosen)
    table = at.main.dataframe[0].value
    why = dict(zip(table["phrase"], table["why"]))
    assert why["of my"].startswith("not selected") and why["电动牙刷和"].startswith("not selected")
    assert "of my" not in block and "电动牙刷和" not in block
    at.multiselect(key="history_chosen").set_value(["麻烦您帮我看一下"]).run()
    assert at.main.code[0].value == '<redundant_phrases>["麻烦您帮我看一下"]</redundant_phrases>'


def test_a_new_history_starts_from_its_own_pre_selection():
    # (second UX walkthrough: after the sample, an uploaded file's block held 3 of its 7 pre-selected phrases — the
    # overlap with the sample's — and "Try a sample" did nothing while a file was uploaded)
    from layerzero_viz.advisor.sample import sample_history

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("app_pages/history.py").run()
    at.button(key="history_sample").click().run()
    at.multiselect(key="history_chosen").set_value(["麻烦您帮我看一下"]).run()
    data = ("\n".join(sample_history(3000, seed=11)) + "\n").encode()
    at.file_uploader(key="history_upload").upload("other.jsonl", data, "text/plain").run()
    assert not at.exception
    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    fresh.switch_page("app_pages/history.py").run()
    fresh.file_uploader(key="history_upload").upload("other.jsonl", data, "text/plain").run()
    assert at.multiselect(key="history_chosen").value == fresh.multiselect(key="history_chosen").value
    assert len(at.multiselect(key="history_chosen").value) > 1
    assert at.button(key="history_sample").disabled  # the upload wins; its help says to remove it first


def test_profile_picker_caps_the_ratio_on_every_page():
    at = open_sample("finance_qa.zh.json", "app_pages/heatmap.py")
    at.sidebar.slider(key="ratio").set_value(0.6).run()
    at.sidebar.selectbox(key="profile").set_value("finance").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.sidebar.caption)
    markdown = " ".join(m.value for m in at.sidebar.markdown)
    assert "Profile rule" in captions and "finance" in captions
    assert "0.20" in markdown and "domain profile" in markdown
    at.sidebar.selectbox(key="profile").set_value("off").run()
    assert "0.60" in " ".join(m.value for m in at.sidebar.markdown)


def test_history_mining_errors_name_the_pages_controls_not_command_line_flags():
    # (a UX review: "name it with --column NAME (or column=)" on a page that has a "CSV column" field)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("app_pages/history.py").run()
    at.file_uploader(key="history_upload").upload("chats.csv", b"id,body\n1,hello\n2,thanks\n", "text/csv").run()
    assert not at.exception
    [error] = at.error
    assert "chats.csv:1" in error.value and "“CSV column” above" in error.value and "--column" not in error.value
    at.file_uploader(key="history_upload").upload("chats.jsonl", b'{"text": "hi"}\n{broken\n', "text/plain").run()
    [error] = at.error
    assert "chats.jsonl:2" in error.value and "“Skip bad lines” above" in error.value, error.value
    assert "--skip-bad-lines" not in error.value
