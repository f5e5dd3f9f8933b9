"""The JSON result streamed (issue 15): ``PruneResult.write_json`` and ``prune`` write exactly ``to_dict()``."""
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from layerzero_viz import Config, annotate, load_conversation
from layerzero_viz.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"

# Mixed zh/en with what JSON must escape (quotes, backslashes, control characters), characters outside the BMP
# (a chunk of UCS-4 text), a directive, content blocks and a system prompt (message keys "system", 0, 1 …).
MIXED = {
    "system": [{"type": "text", "text": '<layer-zero enabled="true" prune_ratio="0.4"/>\n你是一名客服助理。'
                                        "You are a support agent. Please answer politely."},
               {"type": "text", "text": "请用中文回答。Always answer in Chinese.\n请用中文回答。"}],
    "messages": [
        {"role": "user", "content": '您好！Hello, could you please check order #12345? 路径是 C:\\data\\"x".txt\t'
                                    "谢谢您 \u0007 🙂🚀 非常感谢！Thanks a lot!"},
        {"role": "assistant", "content": "当然可以。Sure — I'd be happy to help. 订单 #12345 已发货。"},
        {"role": "user", "content": [{"type": "text", "text": "麻烦您再确认一下地址，谢谢。Please double-check the address."},
                                     {"type": "text", "text": "我是VIP客户，请尽快处理。I am a VIP customer."}]},
    ],
}


def mixed_file(tmp_path: Path) -> Path:
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(MIXED, ensure_ascii=False), encoding="utf-8")
    return path


def streamed(result, *, tokens: bool = True, chunk: int = 8192) -> str:
    buf = io.StringIO()
    result.write_json(buf, tokens=tokens, chunk=chunk)
    return buf.getvalue()


def sources(tmp_path: Path) -> dict[str, Path]:
    return {"zh": FIXTURES / "ecommerce_support.zh.json", "en": FIXTURES / "support_chat.en.json",
            "mixed": mixed_file(tmp_path)}


@pytest.mark.parametrize("lang", ["zh", "en", "mixed"])
@pytest.mark.parametrize("floor", [1.0, 0.0])
@pytest.mark.parametrize("tokens", [True, False])
def test_the_streamed_json_is_the_document_to_dict_gives(tmp_path, lang, floor, tokens):
    result = annotate(load_conversation(sources(tmp_path)[lang]), env={}).at_ratio(0.3, min_effectiveness=floor)
    text = streamed(result, tokens=tokens)
    expected = json.dumps(result.to_dict(tokens=tokens), ensure_ascii=False)
    assert json.loads(text) == json.loads(expected)
    assert text == expected  # the same text, key order and number spelling included
    if floor < 1.0 and tokens:
        assert result.tokens_lossy > 0 and '"tier": "lossy"' in text  # the lossy tier's records are covered
    assert ('"tokens": []' in text) == (not tokens)


@pytest.mark.parametrize("chunk", [1, 2, 7, 1000])
def test_chunk_boundaries_do_not_change_the_json(tmp_path, chunk):
    result = annotate(load_conversation(mixed_file(tmp_path)), env={}).at_ratio(0.5, min_effectiveness=0.9)
    assert streamed(result, chunk=chunk) == json.dumps(result.to_dict(), ensure_ascii=False)


@pytest.mark.parametrize("how", ["disabled", "keep_directives", "over_budget"])
def test_every_kind_of_record_is_written_as_to_dict_writes_it(tmp_path, how):
    conv = load_conversation(mixed_file(tmp_path))
    if how == "disabled":
        result = annotate(conv, env={"ANTHROPIC_EXPERIMENTAL_LAYER_ZERO": "0"}).at_ratio(0.3)
        reasons = {"disabled", "directive"}
    elif how == "keep_directives":
        result = annotate(conv, Config(keep_directives=True, env={})).at_ratio(0.3)
        reasons = {"directive"}
    else:
        result = annotate(conv, env={}).at_ratio(0.02)
        reasons = {"over_budget"}
    text = streamed(result)
    assert reasons <= {t["reason"] for t in json.loads(text)["tokens"]}
    assert text == json.dumps(result.to_dict(), ensure_ascii=False)


def test_a_conversation_without_tokens_streams_an_empty_list():
    result = annotate(load_conversation(b'{"messages": [{"role": "user", "content": ""}]}'), env={}).at_ratio(0.3)
    assert result.tokens_total == 0
    assert streamed(result) == json.dumps(result.to_dict(), ensure_ascii=False)


def test_the_token_columns_are_the_records_columns(tmp_path):
    result = annotate(load_conversation(mixed_file(tmp_path)), env={}).at_ratio(0.4, min_effectiveness=0.9)
    reasons, details, scores, spans = result.token_reasons()
    records = result.token_records()
    assert reasons == [t["reason"] for t in records] and details == [t["detail"] for t in records]
    assert scores == [t["score"] for t in records] and spans == [t["span"] for t in records]
    assert {t["tier"] for t in records} == {None, "safe", "lossy"}


# ---- the CLI ---------------------------------------------------------------------------------------------------

def test_prune_writes_the_same_json_to_a_result_file_as_to_stdout(tmp_path, capsys):
    src = mixed_file(tmp_path)
    assert main(["prune", str(src), "--ratio", "0.3", "--min-effectiveness", "0.9",
                 "--result", str(tmp_path / "r.json")]) == 0
    assert main(["prune", str(src), "--ratio", "0.3", "--min-effectiveness", "0.9"]) == 0
    out = capsys.readouterr().out
    in_file = (tmp_path / "r.json").read_text(encoding="utf-8")
    assert in_file.endswith("}\n") and in_file.count("\n") == 1
    drop = lambda d: {k: v for k, v in d.items() if k != "timings_ms"}  # noqa: E731
    assert drop(json.loads(out)) == drop(json.loads(in_file))
    lib = annotate(load_conversation(src), env={}).at_ratio(0.3, min_effectiveness=0.9).to_dict()
    assert drop(json.loads(json.dumps(lib, ensure_ascii=False))) == drop(json.loads(out))


def test_a_failure_while_streaming_leaves_no_result_file(tmp_path, monkeypatch, capsys):
    from layerzero_viz.result import PruneResult

    target = tmp_path / "r.json"
    target.write_text("previous result\n", encoding="utf-8")
    pieces = PruneResult._token_json

    def failing(self, chunk):
        yield next(iter(pieces(self, 4)))
        raise OSError(28, "No space left on device", str(target))

    monkeypatch.setattr(PruneResult, "_token_json", failing)
    assert main(["prune", str(mixed_file(tmp_path)), "--result", str(target)]) == 2
    assert capsys.readouterr().err.strip() == f"error: {target}: No space left on device"
    assert target.read_text(encoding="utf-8") == "previous result\n"  # untouched, not half-written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mixed.json", "r.json"]  # no temporary file left


# Children start from a small launcher: Linux keeps a process's memory high-water mark across exec, so a child
# forked straight from this (large) test process would report at least this process's RSS.
_PEAK_RSS = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss // 1024)
"""


def test_prune_of_a_1_mb_message_with_its_token_list_peaks_under_400_mb(tmp_path):
    texts = [json.loads(line)["messages"][0]["content"]
             for line in (FIXTURES / "corpus" / "sample.jsonl").read_text(encoding="utf-8").splitlines()]
    message, size = [], 0
    while size < 1_000_000:
        message.append(texts[len(message) % len(texts)])
        size += len(message[-1].encode("utf-8")) + 2
    src = tmp_path / "big.json"
    src.write_text(json.dumps({"messages": [{"role": "user", "content": "\n\n".join(message)}]}, ensure_ascii=False),
                   encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    proc = subprocess.run([sys.executable, "-c", _PEAK_RSS, sys.executable, "-m", "layerzero_viz", "prune", str(src),
                           "--result", str(tmp_path / "r.json")], cwd=ROOT, env=env, capture_output=True, timeout=240)
    code, peak_mb = map(int, proc.stdout.split())
    assert code == 0, proc.stderr.decode()
    written = (tmp_path / "r.json").read_bytes()
    assert written.endswith(b"}\n") and written.count(b', "decision": ') > 200_000  # every token's record
    assert peak_mb <= 400, f"peak RSS {peak_mb} MB"


@pytest.mark.parametrize("floor", [1.0, 0.0])
def test_the_token_table_is_the_token_records_as_a_frame(floor):
    # built column by column (the app redraws it on every slider move), it must be exactly the records' frame
    import pandas as pd
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    for name in ("finance_qa.zh.json", "support_chat.en.json", "vip_multiturn.zh.json", "sharegpt_travel.en.json",
                 "constraints_repeated.en.openai.json", "plain_prompt.zh.txt"):
        result = annotate(load_conversation(fixtures / name), env={}).at_ratio(0.5, min_effectiveness=floor)
        pd.testing.assert_frame_equal(result.token_table(), pd.DataFrame.from_records(result.token_records()))


@pytest.mark.parametrize("lang", ["zh", "en", "mixed"])
def test_the_record_kernel_writes_what_its_python_twin_writes(tmp_path, lang):
    # native.token_records follows result._token_json_pieces: the same text, chunk for chunk, for ASCII, Latin-1,
    # CJK and astral text, control characters, quotes and backslashes (the mixed file holds them all)
    from layerzero_viz import native
    if native._compiled is None:
        pytest.skip("the kernels are not built")
    result = annotate(load_conversation(sources(tmp_path)[lang]), env={}).at_ratio(0.3, min_effectiveness=0.0)
    try:
        native.use(True)
        with_kernel = [streamed(result, chunk=c) for c in (1, 5, 1024)]
        native.use(False)
        twin = [streamed(result, chunk=c) for c in (1, 5, 1024)]
    finally:
        native.use(True)
    assert with_kernel == twin
    assert with_kernel[0] == json.dumps(result.to_dict(), ensure_ascii=False)


def test_deleted_spans_are_exactly_what_the_pruned_text_lacks():
    # (reviews 9 and 10: "你好，请…" listed "你好" while the comma went too; "，请帮我" listed the comma that stayed)
    from layerzero_viz import annotate, iter_conversations
    from layerzero_viz.result import kept_ranges, reconstruct

    sample = Path(__file__).resolve().parents[2] / "fixtures" / "corpus" / "sample.jsonl"
    checked = 0
    for _, conv in iter_conversations(sample):
        ann = annotate(conv, env={})
        for result in (ann.at_ratio(0.95), ann.at_ratio(0.5, min_effectiveness=0.0)):
            spans = result.deleted_spans()
            for k, b in enumerate(ann.view.blocks):
                original = ann.view.text[b.start:b.end]
                left = list(original)
                for s in spans:
                    if s["message"] == b.message and s["block"] == b.block:
                        assert original[s["start"]:s["end"]] == s["text"]
                        left[s["start"]:s["end"]] = [""] * (s["end"] - s["start"])
                assert "".join(left) == result.block_texts[k]
                checked += bool(result.block_texts[k] != original)
    assert checked > 20
    one = annotate(json.dumps({"messages": [{"role": "user", "content": "你好，请给我推荐一家酒店。"}]},
                              ensure_ascii=False), env={}).at_ratio(0.95)
    assert [(s["text"], s["reason"]) for s in one.deleted_spans()] == [("你好", "filler"), ("，", "tidy")]
    two = annotate(json.dumps({"messages": [{"role": "user", "content": "我是VIP客户，请帮我查订单。"}]},
                              ensure_ascii=False), env={}).at_ratio(0.95)
    assert two.messages[0].pruned == "我是VIP客户，查订单。"
    assert [s["text"] for s in two.deleted_spans()] == ["请帮我"]
    # the ranges are the definition's: joined, the compiled reconstruction's result
    text, removed = "Hi!  Please help me.  ", [(0, 3), (5, 12)]
    assert "".join(text[a:b] for a, b in kept_ranges(text, removed)) == reconstruct(text, removed)


def test_a_result_without_tokens_has_the_token_tables_columns():
    # (the empty table's columns are written out in result._TOKEN_TABLE_DTYPES: held to the full table's here)
    full = annotate(load_conversation(FIXTURES / "support_chat.en.json"), env={}).at_ratio(0.3).token_table()
    empty = annotate(load_conversation('{"messages": [{"role": "user", "content": ""}]}'), env={}).at_ratio(0.3)
    table = empty.token_table()
    assert table.empty and list(table.columns) == list(full.columns)
    numeric = [c for c in full.columns if full[c].dtype.kind in "if"]
    assert numeric == [c for c in table.columns if table[c].dtype.kind in "if"]
