"""Budget, priorities, over_budget, determinism and the slider path."""
import json

from layerzero_viz import annotate, load_conversation
from layerzero_viz.result import reconstruct

from .helpers import conv, prune, tokens_of

TEXT = conv("回答不超过200字。你是一名客服。",
            "您好，请问，麻烦你帮我查一下订单的状态，谢谢！回答不超过200字。",
            "好的，非常感谢您的耐心。",
            "Hello! Could you please check the refund? Thank you so much. I was wondering if you could hurry.")


def test_ratio_zero_prunes_nothing():
    r = prune(TEXT, 0.0)
    assert r.tokens_pruned == 0
    assert [m.pruned for m in r.messages] == [m.original for m in r.messages]


def test_budget_is_never_exceeded_at_any_ratio():
    ann = annotate(load_conversation(TEXT), env={})
    for k in range(96):
        r = ann.at_ratio(k / 100)
        pruned = sum(1 for t in r.token_records() if t["decision"] == "prune" and t["reason"] != "directive")
        assert pruned == r.tokens_pruned <= int(k / 100 * r.tokens_total + 1e-9)


def test_over_budget_candidates_say_what_they_would_be():
    r = prune(TEXT, 0.05)
    over = tokens_of(r, "over_budget")
    assert over and all(t["decision"] == "keep" for t in over)
    assert all(t["detail"].startswith("would be ") and "budget" in t["detail"] for t in over)


def test_priority_declared_then_repeat_then_filler():
    r = prune(conv('<redundant_phrases>["亲"]</redundant_phrases>\n回答要简洁。', "亲，您好，回答要简洁。我的订单到哪里了？"), 0.1)
    assert tokens_of(r, "declared_redundant", "prune")
    assert not tokens_of(r, "filler", "prune")


def test_same_input_same_output():
    a = json.dumps(prune(TEXT, 0.3).to_dict(), ensure_ascii=False, sort_keys=True)
    b = json.dumps(prune(TEXT, 0.3).to_dict(), ensure_ascii=False, sort_keys=True)
    strip = lambda s: json.loads(s) | {"timings_ms": None}  # noqa: E731 - timings are measurements
    assert strip(a) == strip(b)


def test_at_ratio_reuses_one_annotation(monkeypatch):
    ann = annotate(load_conversation(TEXT), env={})
    from layerzero_viz import engine

    def boom(*a, **k):
        raise AssertionError("detection re-ran")

    monkeypatch.setattr(engine, "find_protections", boom)
    monkeypatch.setattr(engine, "RULES", (("x", boom),))
    assert ann.at_ratio(0.1).tokens_pruned <= ann.at_ratio(0.5).tokens_pruned


def test_at_ratio_none_uses_the_effective_setting():
    ann = annotate(load_conversation(conv('<layer-zero enabled="true" prune_ratio="0.2"/>\nsys', "hi")), env={})
    r = ann.at_ratio()
    assert (r.ratio, r.ratio_source) == (0.2, "directive")
    assert ann.at_ratio(0.4).ratio_source == "argument"


def test_sweep_and_best_ratio():
    ann = annotate(load_conversation(TEXT), env={})
    rows = ann.sweep()
    assert [r["ratio"] for r in rows][:3] == [0.0, 0.01, 0.02] and rows[-1]["ratio"] == 0.95
    assert all(a["tokens_pruned"] <= b["tokens_pruned"] for a, b in zip(rows, rows[1:]))
    best = ann.best_ratio(rows)
    assert best is not None
    at_best = next(r for r in rows if r["ratio"] == best)
    assert at_best["effectiveness_estimate"] >= 0.99
    # the smallest ratio that already reaches the most pruning the estimate allows
    assert all(r["tokens_pruned"] < at_best["tokens_pruned"] for r in rows if r["ratio"] < best)


def test_effectiveness_estimate_falls_as_more_is_pruned():
    ann = annotate(load_conversation(TEXT), env={})
    assert ann.at_ratio(0.0).effectiveness_estimate == 1.0
    assert ann.at_ratio(0.95).effectiveness_estimate < ann.at_ratio(0.05).effectiveness_estimate <= 1.0


def test_reconstruction_tidies_only_whitespace_and_dangling_punctuation():
    assert reconstruct("您好，我是VIP客户。", [(0, 2)]) == "我是VIP客户。"
    assert reconstruct("请回答，谢谢。", [(4, 6)]) == "请回答。"
    assert reconstruct("a\n请问\nb", [(2, 4)]) == "a\nb"
    assert reconstruct("Thanks!  Go.", [(0, 7)]) == "Go."
    # no space is left after full-width punctuation, where the cut text had brought its own
    assert reconstruct("我想订票。Thanks! 明天出发。", [(5, 12)]) == "我想订票。明天出发。"
    assert reconstruct("好的，Thanks a lot! 周五见。", [(3, 17)]) == "好的，周五见。"
    assert reconstruct("Done. Thanks! Next.", [(6, 13)]) == "Done. Next."
    # a line break glued to the punctuation a cut takes (the token ".\n") stays: no two lines run together
    assert reconstruct("My question:\nThanks in advance.\nHow?", [(13, 32)]) == "My question:\nHow?"
    assert reconstruct("Do it, thanks!\nNext.", [(5, 15)]) == "Do it\nNext."
    # protected characters are never touched, even if they look dangling
    assert reconstruct("x  ，y", [(0, 1)], protected=[(1, 4)]) == "  ，y"


def test_pruned_output_keeps_the_input_schema():
    r = prune(TEXT, 0.3)
    out = r.output
    original = json.loads(TEXT)
    assert set(out) == set(original) and len(out["messages"]) == len(original["messages"])
    assert out["messages"][0]["content"] == r.messages[1].pruned
    assert json.loads(r.dump()) == out


def _prefix_of(doc: dict, n: int) -> str:
    return json.dumps({**doc, "messages": doc["messages"][:n]}, ensure_ascii=False)


def test_selection_is_prefix_stable_a_resent_history_is_pruned_the_same():
    from pathlib import Path
    root = Path(__file__).resolve().parents[2] / "fixtures"
    docs = [json.loads((root / name).read_text(encoding="utf-8"))
            for name in ("vip_multiturn.zh.json", "support_chat.en.json", "tax_advisor.zh.json")]
    docs += [json.loads(line) for line in (root / "corpus" / "sample.jsonl").read_text(encoding="utf-8").splitlines()
             if line.strip()][:30]
    checked = 0
    for doc in docs:
        msgs = doc.get("messages") or []
        for n in range(1, len(msgs) - 1, 2):  # a history that ends with a user turn, then one more exchange
            if msgs[n - 1].get("role") != "user" or msgs[n + 1].get("role") != "user":
                continue
            short = annotate(load_conversation(_prefix_of(doc, n)), env={})
            longer = annotate(load_conversation(_prefix_of(doc, n + 2)), env={})
            for floor in (1.0, 0.98):
                for r in (0.1, 0.3, 0.5):
                    a = short.at_ratio(r, min_effectiveness=floor).messages
                    b = longer.at_ratio(r, min_effectiveness=floor).messages[:len(a)]
                    assert [m.pruned for m in a] == [m.pruned for m in b], (doc.get("source"), n, floor, r)
                    checked += 1
    assert checked > 50
