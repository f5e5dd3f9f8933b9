"""The detector's diff: what a fix changes, per message, escaped (layerzero_viz.advisor.diff)."""
from __future__ import annotations

import json

from layerzero_viz import load_conversation
from layerzero_viz.advisor import apply_fix, lint
from layerzero_viz.advisor.diff import conversation_diff, diff_html


def _conv(*messages: tuple[str, str], system: str | None = None, openai: bool = False):
    msgs = [{"role": r, "content": t} for r, t in messages]
    if openai:
        doc = {"messages": ([{"role": "system", "content": system}] if system else []) + msgs}
    else:
        doc = {"messages": msgs, **({"system": system} if system else {})}
    return load_conversation(json.dumps(doc, ensure_ascii=False).encode())


def test_only_changed_messages_are_listed_with_both_texts():
    a = _conv(("user", "你好，请帮我看一下这份报告。"), ("assistant", "好的。"), ("user", "谢谢"))
    b = _conv(("user", "帮我看一下这份报告。"), ("assistant", "好的。"), ("user", "谢谢"))
    [d] = conversation_diff(a, b)
    assert (d.label, d.before, d.after) == ("#0 user", "你好，请帮我看一下这份报告。", "帮我看一下这份报告。")
    assert diff_html(d, "before").startswith('<div class="lz-diff"><del>你好，请</del>帮我看一下')
    assert "<ins>" not in diff_html(d, "after") and "<del>" not in diff_html(d, "after")


def test_an_added_system_prompt_is_one_added_message_not_every_message_shifted():
    a = _conv(("user", "Summarise the report."), ("assistant", "Sure."), openai=True)
    b = _conv(("user", "Summarise the report."), ("assistant", "Sure."), system='<layer-zero prune_ratio="0.2"/>',
              openai=True)
    [d] = conversation_diff(a, b)
    assert d.before is None and d.after == '<layer-zero prune_ratio="0.2"/>'
    assert "added by the fix" in diff_html(d, "before")
    assert "&lt;layer-zero prune_ratio=&quot;0.2&quot;/&gt;" in diff_html(d, "after")


def test_user_text_is_escaped_on_both_sides():
    a = _conv(("user", "<script>alert(1)</script> please reply"))
    b = _conv(("user", "<script>alert(1)</script> reply"))
    [d] = conversation_diff(a, b)
    for side in ("before", "after"):
        assert "<script" not in diff_html(d, side) and "&lt;script&gt;" in diff_html(d, side)


def test_long_unchanged_text_is_elided_around_the_change():
    long = "The quarterly figures are stable. " * 40
    a, b = _conv(("user", long + "Please answer briefly.")), _conv(("user", long + "Answer briefly."))
    html = diff_html(conversation_diff(a, b)[0], "before")
    assert "unchanged characters" in html and "<del>Please answer</del> briefly." in html and len(html) < len(long)


def test_the_diff_of_a_real_fix_shows_its_rewrite():
    conv = load_conversation(open("fixtures/finance_qa.zh.json", "rb").read())
    finding = next(f for f in lint(conv, profile="finance") if f.code == "LZ180")
    [d] = conversation_diff(conv, apply_fix(conv, finding))
    assert d.label == "system" and "0.35" in d.before and "0.2" in d.after
    assert "<del>35</del>" in diff_html(d, "before") or "<del>0.35</del>" in diff_html(d, "before")
