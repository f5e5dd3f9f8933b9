"""History mining: planted phrases come out on top, memory stays bounded, malformed lines are named."""
from __future__ import annotations

import io
import json

import pytest

from layerzero_viz import InputError
from layerzero_viz.advisor import iter_history, mine, redundant_phrases_block
from layerzero_viz.advisor.mine import _PhraseTable, _grams, _ClauseCache
from layerzero_viz.advisor.sample import PLANTED, sample_history


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    path = tmp_path_factory.mktemp("history") / "history.jsonl"
    path.write_text("\n".join(sample_history(4000, seed=11)) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def mined(history):
    return mine(history, top=10, progress=False)


def test_planted_phrases_are_found_in_the_top_ten(mined):
    top = [p.phrase for p in mined.phrases]
    for planted in PLANTED:
        assert planted in top, (planted, top)


def test_each_phrase_reports_frequency_cost_saving_and_examples(mined):
    p = next(p for p in mined.phrases if p.phrase == "麻烦您帮我看一下")
    assert 0.3 * mined.messages * 0.5 < p.documents < 0.4 * mined.messages
    assert p.tokens > 1 and p.tokens_total == p.occurrences * p.tokens and 0 < p.saving <= p.tokens_total
    assert len(p.examples) == 3 and all(p.phrase in e for e in p.examples)
    assert mined.messages == mined.lines == 4000 and mined.tokens > 0 and mined.skipped == 0


def test_the_block_is_ready_to_paste(mined):
    block = mined.block()
    assert block.startswith("<redundant_phrases>[") and block.endswith("]</redundant_phrases>")
    assert json.loads(block.removeprefix("<redundant_phrases>").removesuffix("</redundant_phrases>")) == \
        [p.phrase for p in mined.phrases]
    assert redundant_phrases_block(["请问", "请问"]) == '<redundant_phrases>["请问"]</redundant_phrases>'


def test_negations_connectives_and_numbers_are_never_suggested():
    lines = [json.dumps({"text": f"不要{k}，但是请问订单到了吗？because I need it, do not cancel"}, ensure_ascii=False)
             for k in range(50)]
    phrases = [p.phrase for p in mine(io.BytesIO("\n".join(lines).encode()), top=30, progress=False).phrases]
    assert any("请问" in p for p in phrases), phrases
    assert not [p for p in phrases if any(w in p for w in ("不要", "但是", "because", "not"))], phrases
    assert not [p for p in phrases if any(ch.isdigit() for ch in p)]


def test_memory_is_bounded_by_the_capacity():
    table = _PhraseTable(capacity=200)
    cache = _ClauseCache()
    biggest = 0
    for line in sample_history(3000, seed=5):
        table.add(*_grams(json.loads(line)["text"], cache))
        biggest = max(biggest, len(table.documents))
    assert biggest <= 400 and len(table.uses) == len(table.documents) and table.error_bound > 0


def test_a_small_capacity_still_finds_the_planted_phrases(history):
    result = mine(history, top=10, capacity=300, progress=False)
    assert result.error_bound > 0
    top = [p.phrase for p in result.phrases]
    assert sum(p in top for p in PLANTED) >= 3, top


def test_malformed_line_is_an_error_with_its_line_number(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_text('{"text": "您好"}\n{"text": "请问"}\n{"text": oops}\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        mine(path, progress=False)
    assert err.value.location == "h.jsonl:3" and "skip" in str(err.value)


def test_skip_bad_lines_counts_them(tmp_path):
    path = tmp_path / "h.jsonl"
    lines = ['{"text": "您好，请问订单到了吗"}'] * 5 + ["not json", '{"other": 1}', b"\xff\xfe".decode("latin-1")]
    path.write_bytes("\n".join(lines).encode("utf-8")[:-4] + b"\xff\xfe\n")
    result = mine(path, skip_bad_lines=True, min_documents=2, progress=False)
    assert (result.messages, result.skipped, result.skipped_lines) == (5, 3, (6, 7, 8))


def test_jsonl_records_of_every_shape():
    data = "\n".join([
        '"a plain string"',
        '{"content": "from content"}',
        '{"role": "assistant", "content": "not user traffic"}',
        '{"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "turn one"},'
        ' {"role": "user", "content": [{"type": "text", "text": "turn two"}]}]}',
        '{"conversations": [{"from": "human", "value": "sharegpt"}, {"from": "gpt", "value": "no"}]}',
    ]).encode()
    assert [t for _, t in iter_history(io.BytesIO(data))] == [
        "a plain string", "from content", "turn one", "turn two", "sharegpt"]


def test_csv_reads_the_named_column(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text('id,query\n1,"您好，请问订单到了吗"\n2,"Hello, could you please help"\n', encoding="utf-8")
    assert [t for _, t in iter_history(path)] == ["您好，请问订单到了吗", "Hello, could you please help"]
    path.write_text('id,body\n1,"您好"\n', encoding="utf-8")
    with pytest.raises(InputError, match="--column"):
        list(iter_history(path))
    assert [t for _, t in iter_history(path, column="body")] == ["您好"]


def test_plain_lines(tmp_path):
    path = tmp_path / "h.txt"
    path.write_text("您好，请问\n\nHello, please\n", encoding="utf-8")
    assert list(iter_history(path)) == [(1, "您好，请问"), (3, "Hello, please")]


def test_progress_bar_goes_to_stderr(history, capsys):
    mine(history, top=3, progress=True)
    captured = capsys.readouterr()
    assert captured.out == "" and "mining" in captured.err


def test_top_must_be_positive(history):
    with pytest.raises(InputError):
        mine(history, top=0)


def test_topic_words_and_questions_are_never_suggested(tmp_path):
    lines = []
    for k in range(60):
        lines.append(json.dumps({"messages": [{"role": "user", "content":
                     f"谢谢，帮我推荐一家酒店，价格是多少？第{k}次 What hotel is near?"}]}, ensure_ascii=False))
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    top = [p.phrase for p in mine(path, top=20, progress=False).phrases]
    for content in ("酒店", "推荐", "是多少", "价格", "hotel", "what"):
        assert not any(content in p for p in top), (content, top)
