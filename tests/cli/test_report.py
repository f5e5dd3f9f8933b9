"""``report``: self-contained, offline, escaped HTML; PNG export; clear errors for wrong input."""
import json
import re

import pytest

from layerzero_viz import annotate, load_conversation
from layerzero_viz.cli import main

from .helpers import FIXTURES, SMALL_LOG

XSS = FIXTURES / "xss_payload.en.json"
# a script or stylesheet fetched from anywhere, or any http(s) URL in a src/href attribute
REMOTE = re.compile(r"""<script|<link\b|<iframe|<img\b|\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.I)


@pytest.fixture
def xss_result(tmp_path):
    result = annotate(load_conversation(XSS), env={}).at_ratio(0.3).to_dict()
    path = tmp_path / "xss.json"
    path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return path, result


def test_a_prune_report_is_self_contained_and_shows_the_payload_as_text(tmp_path, xss_result, capsys):
    path, result = xss_result
    out = tmp_path / "report.html"
    assert main(["report", str(path), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert not REMOTE.search(page), REMOTE.search(page)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    for payload in ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
                    '<a href="javascript:alert(document.cookie)">', "<svg/onload=alert('xss')>"):
        assert payload not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;a href=&quot;javascript:alert(document.cookie)&quot;&gt;" in page
    for section in ('id="summary"', 'id="heatmap"', 'id="side-by-side"', 'id="deleted"'):
        assert section in page
    assert page.count("<svg") >= 2  # the overview heatmap and the by-reason chart, inlined
    assert 'class="lz-tok' in page  # token chips


def test_png_writes_the_heatmap(tmp_path, xss_result):
    path, _ = xss_result
    assert main(["report", str(path), "-o", str(tmp_path / "r.html"), "--png", str(tmp_path / "h.png")]) == 0
    assert (tmp_path / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_result_without_tokens_still_reports_but_has_no_heatmap_png(tmp_path, capsys):
    result = annotate(load_conversation(FIXTURES / "finance_qa.zh.json"), env={}).at_ratio(0.3).to_dict(tokens=False)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    assert main(["report", str(path), "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "--no-tokens" in page and "七日年化收益率" in page
    capsys.readouterr()
    assert main(["report", str(path), "-o", str(tmp_path / "r2.html"), "--png", str(tmp_path / "h.png")]) == 2
    assert "no tokens" in capsys.readouterr().err


def test_a_batch_summary_report_escapes_file_names(tmp_path, capsys):
    log = tmp_path / "<b>logs.jsonl"
    log.write_bytes(SMALL_LOG.read_bytes() + b"{broken\n")
    assert main(["batch", str(log), "-o", str(tmp_path / "out.jsonl"), "--json", "--quiet"]) == 0
    summary = tmp_path / "summary.json"
    summary.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["report", str(summary), "-o", str(tmp_path / "b.html"), "--png", str(tmp_path / "b.png")]) == 0
    page = (tmp_path / "b.html").read_text(encoding="utf-8")
    assert "&lt;b&gt;logs.jsonl" in page and "<b>logs" not in page
    assert "Malformed lines" in page and "Effectiveness estimate" in page and not REMOTE.search(page)
    assert (tmp_path / "b.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("content,needle", [("not json", "not JSON"), ('{"a": 1}', "neither"), ("[1]", "JSON object")])
def test_input_that_is_not_a_result_is_exit_2(tmp_path, capsys, content, needle):
    path = tmp_path / "x.json"
    path.write_text(content)
    assert main(["report", str(path), "-o", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and needle in err and err.count("\n") == 1
    assert not (tmp_path / "x.html").exists()


def test_the_report_shows_the_estimate_of_a_result_saved_in_either_version(xss_result):
    from layerzero_viz.report import prune_report_html
    _, result = xss_result
    estimate = result["metrics"]["layer_zero_effectiveness_ratio"]
    assert result["version"] == 2 and f"effectiveness estimate {estimate:.4f}" in prune_report_html(result)
    old = dict(result, version=1, metrics={k if k != "layer_zero_effectiveness_ratio"
                                           else "layer_zero_effectiveness_ratio_estimate": v
                                           for k, v in result["metrics"].items()})
    assert f"effectiveness estimate {estimate:.4f}" in prune_report_html(old)


def test_engine_directives_are_outside_every_count_of_the_report_and_its_charts():
    # (second UX walkthrough: the bars added 29 directive tokens to 107 pruned, and the system card said "tokens
    # 101 · pruned 29" under a header of "107 of 517 tokens pruned")
    from layerzero_viz import charts
    from layerzero_viz.report import prune_report_html, result_tokens

    result = annotate(load_conversation(FIXTURES / "support_chat.en.json"), env={}).at_ratio(0.35).to_dict()
    assert result["tokens_directive"] > 0
    page = prune_report_html(result)
    cards = re.findall(r'class="lz-card-counts">tokens ([\d,]+) · pruned ([\d,]+)<', page)
    assert sum(int(t.replace(",", "")) for t, _ in cards) == result["tokens_total"]
    assert sum(int(p.replace(",", "")) for _, p in cards) == result["tokens_pruned"]
    spec = charts.pruned_by_reason_bar(result_tokens(result)).to_dict()
    bars = spec["datasets"][spec["data"]["name"]] if "datasets" in spec else spec["data"]["values"]
    assert sum(b["tokens"] for b in bars) == result["tokens_pruned"]
    assert "directive" not in {b["reason"] for b in bars}


def test_the_reports_legend_names_no_control_it_lacks():
    # (second UX walkthrough: the static report's legend spoke of a "Show protections" toggle it does not have)
    from layerzero_viz.report import prune_report_html

    page = prune_report_html(annotate(load_conversation(FIXTURES / "finance_qa.zh.json"), env={}).at_ratio(0.3).to_dict())
    assert "Show protections" not in page and "marked on hover" in page
