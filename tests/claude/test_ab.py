"""A/B runs through the real SDK against the fake server: grouping, judging, caching, resume, retries."""
from __future__ import annotations

import pytest

from layerzero_viz import Config, annotate
from layerzero_viz.claude import ABRunner, Prices, Store, pruned_request_of, read_rows, request_of
from layerzero_viz.claude.judge import JUDGE_SCHEMA, parse_verdict
from layerzero_viz.claude.errors import JudgeError

from .fake_anthropic import MESSAGES, fake_token_count
from .helpers import FINANCE, MODEL, PLAIN, SUPPORT, last_turn_changes, write_rows

RATIO = 0.5


@pytest.fixture
def rows(tmp_path):
    docs = [{"id": "finance", **FINANCE, "ratio": 0.0}, {"id": "support", **SUPPORT}, {"id": "plain", **PLAIN}]
    return read_rows(write_rows(tmp_path / "runs.jsonl", docs))


def runner(client, store, **options):
    options.setdefault("recommender", None)
    return ABRunner(client, model=MODEL, ratio=RATIO, store=store, **options)


def totals(report) -> dict:
    """Per group what does not depend on timing: n, equivalent, tokens."""
    return {g: (s.n, s.equivalent, s.input_tokens, s.output_tokens) for g, s in report.groups().items()}


def judge_hits(server) -> int:
    return sum("<reply_a>" in str(body.get("messages")) for path, _, body, _ in server.hits if path == MESSAGES)


def test_groups_are_judged_against_the_reply_to_the_original(make_client, server, rows, tmp_path):
    assert last_turn_changes(FINANCE, RATIO) and last_turn_changes(SUPPORT, RATIO)
    assert not last_turn_changes(PLAIN, RATIO)
    report = runner(make_client(), Store(tmp_path / "c.db"), prices=Prices(3.0, 15.0)).run(rows)
    verdicts = {(o.row, o.group): o.equivalent for o in report.outcomes}
    assert verdicts == {
        ("finance", "A"): True, ("finance", "B"): False, ("finance", "C"): True,  # C: the row's own ratio 0.0
        ("support", "A"): True, ("support", "B"): False, ("support", "C"): False,  # C: the global ratio
        ("plain", "A"): True, ("plain", "B"): True, ("plain", "C"): True,  # nothing to prune
    }
    assert {(o.row, o.ratio_source) for o in report.outcomes if o.group == "C"} == \
        {("finance", "row"), ("support", "global"), ("plain", "global")}
    summary = report.summary()
    assert (summary["A"]["effectiveness_ratio"], summary["B"]["effectiveness_ratio"]) == (1.0, pytest.approx(1 / 3))
    assert summary["C"]["effectiveness_ratio"] == pytest.approx(2 / 3)
    for g in "ABC":
        assert {"effectiveness_ratio", "input_tokens", "latency_ms", "n", "cost_usd"} <= summary[g].keys()
        assert summary[g]["n"] == 3 and summary[g]["errors"] == 0
    assert summary["B"]["input_tokens"] < summary["A"]["input_tokens"]
    assert summary["A"]["input_tokens"] == sum(fake_token_count(request_of(r.conversation)) for r in rows)
    assert summary["B"]["input_tokens"] == sum(fake_token_count(pruned_request_of(
        annotate(r.conversation, Config(enabled=True, env={})).at_ratio(RATIO))) for r in rows)
    a = summary["A"]
    assert a["cost_usd"] == pytest.approx((a["input_tokens"] * 3.0 + a["output_tokens"] * 15.0) / 1e6)
    # only replies that differ go to the judge, once per pair: support's B and C sent the same prompt
    assert judge_hits(server) == 2


def test_the_judge_is_asked_for_structured_json(make_client, server, rows, tmp_path):
    runner(make_client(), Store(tmp_path / "c.db")).run(rows[:1])
    judge = next(b for p, _, b, _ in server.hits if p == MESSAGES and "<reply_a>" in str(b["messages"]))
    assert judge["output_config"] == {"format": {"type": "json_schema", "schema": JUDGE_SCHEMA}}
    assert parse_verdict('```json\n{"equivalent": true, "differences": ""}\n```').equivalent is True
    with pytest.raises(JudgeError, match="did not answer"):
        parse_verdict("They look the same to me.")


def test_a_rerun_costs_nothing(make_client, server, rows, tmp_path):
    store = Store(tmp_path / "c.db")
    first = runner(make_client(), store).run(rows)
    hits = len(server.hits)
    again = runner(make_client(), store).run(rows)
    assert len(server.hits) == hits and again.calls == 0 and again.cache_hits > 0
    assert {g: again.summary()[g] for g in "ABC"} == {g: first.summary()[g] for g in "ABC"}
    assert all(o.cached for o in again.outcomes)


def test_a_run_on_a_failing_server_resumes_without_repeating_finished_calls(make_client, server, rows, tmp_path):
    clean = runner(make_client(), Store(tmp_path / "clean.db"), concurrency=1).run(rows)
    server.hits.clear()
    store = Store(tmp_path / "c.db")
    server.down_after(3)  # the server dies mid-run
    broken = runner(make_client(max_retries=0), store, concurrency=1).run(rows)
    assert broken.errors > 0 and any(o.error is None for o in broken.outcomes)
    assert all("HTTP 500" in o.error and "rerun to resume" in o.error for o in broken.outcomes if o.error)
    served_before = server.count(MESSAGES, 200)
    server.down_after(None)
    resumed = runner(make_client(), store, concurrency=1).run(rows)
    assert resumed.errors == 0
    assert served_before + resumed.calls == clean.calls  # nothing that finished was asked again
    assert totals(resumed) == totals(clean)


def test_an_interrupted_run_keeps_its_finished_rows(make_client, server, rows, tmp_path):
    store = Store(tmp_path / "c.db")
    seen = []

    def stop_after_first(row, outcomes):
        seen.append(row.id)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner(make_client(), store, concurrency=1).run(rows, on_outcome=stop_after_first)
    resumed = runner(make_client(), store, concurrency=1).run(rows)
    finished = [o for o in resumed.outcomes if o.row == seen[0]]
    assert len(finished) == 3 and all(o.cached for o in finished)
    assert resumed.errors == 0 and resumed.rows == 3


def test_ab_calls_are_retried_on_429_and_500(make_client, server, rows, tmp_path):
    server.fail(MESSAGES, 429, 500)
    report = runner(make_client(max_retries=2), Store(tmp_path / "c.db"), concurrency=1).run(rows[:1])
    assert report.errors == 0
    statuses = [s for p, s, _, _ in server.hits if p == MESSAGES]
    assert statuses[:3] == [429, 500, 200]


def test_a_timeout_is_a_clear_row_error(make_client, server, rows, tmp_path):
    server.fail(MESSAGES, ("slow", 5.0))
    report = runner(make_client(max_retries=0, timeout=0.3), Store(tmp_path / "c.db"), concurrency=1).run(rows[:1])
    assert {o.error for o in report.outcomes} == {
        "reply to the original prompt failed: Claude did not answer in time (APITimeoutError, after the SDK's "
        "retries); rerun to resume"}
    assert report.summary()["A"]["n"] == 0 and report.summary()["A"]["errors"] == 1


def test_group_c_prefers_the_profile_recommendation(make_client, rows, tmp_path):
    def recommend(conv):
        return 0.1 if "理财" in conv.messages[0].text else None

    report = runner(make_client(), Store(tmp_path / "c.db"), recommender=recommend).run(rows)
    c = {o.row: (o.ratio, o.ratio_source) for o in report.outcomes if o.group == "C"}
    assert c == {"finance": (0.1, "profile"), "support": (RATIO, "global"), "plain": (RATIO, "global")}
    assert "profile recommendation" in report.summary()["run"]["c_ratio_note"]


def test_concurrent_rows_give_the_same_report(make_client, rows, tmp_path):
    serial = runner(make_client(), Store(tmp_path / "a.db"), concurrency=1).run(rows * 3)
    parallel = runner(make_client(), Store(tmp_path / "b.db"), concurrency=4).run(rows * 3)
    strip = lambda r: [(o.row, o.group, o.equivalent, o.input_tokens) for o in r.outcomes]  # noqa: E731
    assert strip(serial) == strip(parallel)
