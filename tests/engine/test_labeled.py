"""The hand-labeled quality set (fixtures/labeled) and its scorer, layerzero_viz.labeled."""
from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache

import pytest

from layerzero_viz.labeled import CLASSES, Case, LabelError, Report, default_paths, load_cases, score


def case_line(**overrides) -> str:
    raw = {"id": "t-en-01", "lang": "en", "class": "debris",
           "messages": [{"role": "user", "content": "Thanks a lot! Is order #7 late?"}],
           "must_keep": [["0", "order #7"]], "must_prune": [["0", "Thanks a lot!"]], "why": "test"}
    raw.update(overrides)
    return json.dumps(raw, ensure_ascii=False)


def stub(pruned: dict[str, str]):
    """An annotate_fn whose result prunes every message to the given text (others stay as they are)."""
    class Result:
        def __init__(self, conv):
            self.conv = conv

        def at_ratio(self, ratio):
            return self

        def to_dict(self):
            return {"messages": [{"message": m.key, "pruned": pruned.get(str(m.key), m.text)}
                                 for m in self.conv.messages]}
    return Result


def one_case(tmp_path, **overrides) -> Case:
    path = tmp_path / "cases.jsonl"
    path.write_text(case_line(**overrides) + "\n", encoding="utf-8")
    return load_cases([path])[0]


def test_a_label_that_is_not_a_substring_is_rejected_with_file_line_and_id(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(case_line(id="ok-01") + "\n\n" + case_line(id="bad-02", must_keep=[["0", "order #8"]]) + "\n",
                    encoding="utf-8")
    with pytest.raises(LabelError) as err:
        load_cases([path])
    assert f"{path}:3" in str(err.value) and "bad-02" in str(err.value) and "order #8" in str(err.value)


@pytest.mark.parametrize("overrides, says", [
    ({"must_prune": [["1", "Thanks"]]}, "names message '1'"),
    ({"must_prune": [["0", "Thanks a lot!"], ["0", "Thanks a lot!"]]}, "labeled 2x"),
    ({"must_keep": [["0", "order #7"], ["0", "Thanks a lot!"]]}, "both must_keep and must_prune"),
    ({"class": "misc"}, "class must be one of"),
    ({"why": ""}, "why is required"),
])
def test_a_malformed_case_is_rejected_saying_what_is_wrong(tmp_path, overrides, says):
    with pytest.raises(LabelError, match=says):
        one_case(tmp_path, **overrides)


def test_the_scorer_counts_a_kept_and_a_removed_span(tmp_path):
    case = one_case(tmp_path)
    report = score([case], annotate_fn=stub({"0": "Is order #7 late?"}))
    assert (report.total.kept, report.total.keep_total, report.total.removed, report.total.prune_total) == (1, 1, 1, 1)
    assert report.by_lang["en"].recall == 1.0 and report.by_class["debris"].keep_rate == 1.0
    assert report.failures == [] and report.empty_turns == []


def test_the_scorer_reports_a_dropped_span_a_survivor_and_an_empty_message(tmp_path):
    case = one_case(tmp_path)
    dropped = score([case], annotate_fn=stub({"0": "Thanks a lot! Is late?"}))
    assert (dropped.total.kept, dropped.total.removed) == (0, 0)
    assert [(f.kind, f.span) for f in dropped.failures] == [("dropped", "order #7"), ("survived", "Thanks a lot!")]
    assert "Is late?" in dropped.failures[0].around
    empty = score([case], annotate_fn=stub({"0": " "}))
    assert empty.empty_turns == [("t-en-01", "0")] and empty.total.empty == 1


def test_leftovers_of_a_pruned_span_count_as_partial_not_removed(tmp_path):
    text = "Thanks again, and have a great day! Is order #7 late?"
    case = one_case(tmp_path, messages=[{"role": "user", "content": text}],
                    must_prune=[["0", "Thanks again, and have a great day!"]])
    report = score([case], annotate_fn=stub({"0": "and! Is order #7 late?"}))
    assert report.total.removed == 0 and [f.kind for f in report.failures] == ["partial"]


def test_a_removed_sentence_is_not_partial_when_its_last_characters_match_its_neighbour(tmp_path):
    # "…中文。只输出译文。" minus its second sentence reads "…中文。": that "文。" is the first sentence's
    text = "把下面的邮件翻译成中文。只输出译文。\n\nText: Thank you so much!"
    case = one_case(tmp_path, lang="mixed", messages=[{"role": "user", "content": text}],
                    must_keep=[["0", "Thank you so much!"]], must_prune=[["0", "只输出译文。"]])
    report = score([case], annotate_fn=stub({"0": text.replace("只输出译文。", "")}))
    assert report.total.removed == 1 and report.failures == []


def test_an_occurrence_inside_a_must_keep_span_is_not_the_labeled_one(tmp_path):
    case = one_case(tmp_path, lang="zh", messages=[{"role": "user", "content": "请问我的申请问题怎么处理？"}],
                    must_keep=[["0", "申请问题"]], must_prune=[["0", "请问"]])
    assert score([case], annotate_fn=stub({"0": "我的申请问题怎么处理？"})).total.removed == 1
    report = score([case], annotate_fn=stub({"0": "请问我的申题怎么处理？"}))
    assert report.total.removed == 0 and report.total.kept == 0


def test_a_real_engine_run_scores_a_trivial_case(tmp_path):
    case = one_case(tmp_path, messages=[{"role": "user", "content": "Is order #7 late? It was due on 3 May."}],
                    must_keep=[["0", "order #7"]], must_prune=[])
    report = score([case])
    assert report.total.keep_total == 1 and report.total.prune_total == 0 and report.total.cases == 1


@lru_cache(maxsize=1)
def labeled_set() -> tuple[Case, ...]:
    return tuple(load_cases(default_paths()))


def test_the_labeled_set_loads_and_covers_every_class_in_zh_and_en():
    cases = labeled_set()
    assert len(cases) >= 100
    per = Counter((c.cls, c.lang) for c in cases)
    for cls in CLASSES:
        assert per[cls, "zh"] >= 1 and per[cls, "en"] >= 1
        assert sum(per[cls, lang] for lang in ("zh", "en", "mixed")) >= 8
    assert sum(n for (_, lang), n in per.items() if lang == "mixed") >= 8
    assert all(c.must_keep and c.must_prune for c in cases)


@lru_cache(maxsize=1)
def engine_report() -> Report:
    return score(labeled_set())


def test_quality_gate_keeps_every_must_keep_span_and_removes_95_percent_of_redundancy_in_zh_and_en():
    report = engine_report()
    failures = "\n".join(f"{f.case} [{f.message}] {f.kind}: {f.span!r} -> {f.around!r}" for f in report.failures)
    assert report.total.kept == report.total.keep_total, failures
    assert report.by_lang["zh"].recall >= 0.95, failures
    assert report.by_lang["en"].recall >= 0.95, failures
    assert not report.empty_turns
