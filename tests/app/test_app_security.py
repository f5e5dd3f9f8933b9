"""Whatever a prompt contains is shown as text: markup in it never reaches the page as HTML."""
from __future__ import annotations

import json
import re

from apptools import goto, html_markdown, new_app, no_exception, open_sample, paste

# Markup from fixtures/xss_payload.en.json, as it must never appear unescaped in our HTML.
PAYLOADS = ("<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "<iframe srcdoc", "<svg/onload=",
            "<style>body", "<b onmouseover", '<a href="javascript:')


def assert_escaped(html: str) -> None:
    for payload in PAYLOADS:
        assert payload not in html, payload
    assert "&lt;" in html and "onerror" in html  # the payloads are there, as text


def test_xss_fixture_is_escaped_on_the_heatmap():
    at = open_sample(new_app(), "xss_payload.en.json").run()
    assert no_exception(at)
    assert_escaped(html_markdown(at))


def test_xss_fixture_is_escaped_side_by_side_and_kept_verbatim_in_the_copyable_text():
    at = goto(open_sample(new_app(), "xss_payload.en.json"), "side-by-side")
    assert no_exception(at)
    assert_escaped(html_markdown(at))
    # st.code shows text, never HTML: the pruned prompt keeps the payload as the user wrote it
    assert any("onerror=alert(1)" in c.value for c in at.main.code)


def test_pasted_markup_is_escaped_with_whitespace_shown():
    text = json.dumps({"messages": [{"role": "user", "content": "Please check <img src=x onerror=alert(1)> now"}]})
    at = paste(new_app(), text)
    at.toggle(key="show_whitespace").set_value(True).run()
    assert no_exception(at)
    html = html_markdown(at)
    assert "<img" not in html
    assert "&lt;img" in html and 'class="lz-ws"' in html


def test_markup_in_an_uploaded_file_name_is_not_rendered():
    at = goto(new_app(), "load")
    at.file_uploader(key="upload").upload("<img src=x onerror=alert(1)>.txt", b"Hello there", "text/plain").run()
    assert no_exception(at)
    shown = " ".join(c.value for c in at.sidebar.caption)
    assert "img src=x" in shown
    assert re.search(r"(?<!\\)[<>]", shown) is None  # every angle bracket Markdown-escaped, so shown as text
