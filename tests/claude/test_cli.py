"""``layerzero-viz ab`` and ``count`` against the fake server (key and base URL from the environment)."""
from __future__ import annotations

import json

import pytest

from layerzero_viz.cli import main

from .conftest import API_KEY
from .fake_anthropic import COUNT, MESSAGES
from .helpers import FINANCE, MODEL, PLAIN, SUPPORT, write_rows


@pytest.fixture
def keyed(server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    return server


@pytest.fixture
def runs(tmp_path):
    return write_rows(tmp_path / "runs.jsonl", [{"id": "finance", **FINANCE, "ratio": 0.0}, SUPPORT, PLAIN])


def test_ab_prints_one_entry_per_group_and_a_rerun_makes_no_call(keyed, runs, tmp_path, capsys):
    out = tmp_path / "results.json"
    assert main(["ab", str(runs), "--ratio", "0.5", "--model", MODEL, "--out", str(out), "-q"]) == 0
    summary = json.loads(capsys.readouterr().out)
    for g in "ABC":
        assert {"effectiveness_ratio", "input_tokens", "latency_ms", "n"} <= summary[g].keys()
        assert summary[g]["n"] == 3
    run = summary["run"]
    assert run["api_calls"] > 0 and sum(run["c_ratio_sources"].values()) == 3 and run["c_ratio_note"]
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["log_type"] == "layer_zero_ab" and len(saved["outcomes"]) == 9
    hits = keyed.count()
    assert main(["ab", str(runs), "--ratio", "0.5", "--model", MODEL, "-q"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["run"]["api_calls"] == 0 and keyed.count() == hits
    assert {g: again[g]["effectiveness_ratio"] for g in "ABC"} == {g: summary[g]["effectiveness_ratio"] for g in "ABC"}


def test_ab_reports_failures_with_exit_1_and_resumes(keyed, runs, capsys):
    keyed.down_after(2)
    assert main(["ab", str(runs), "--model", MODEL, "--max-retries", "0", "--concurrency", "1"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["run"]["errors"] > 0
    assert "rerun the same command to resume" in captured.err
    keyed.down_after(None)
    assert main(["ab", str(runs), "--model", MODEL, "-q"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["errors"] == 0


def test_ab_without_a_key_says_how_to_get_one(runs, capsys):
    assert main(["ab", str(runs), "--model", MODEL]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "ANTHROPIC_API_KEY" in err


def test_count_prints_exact_next_to_estimate(keyed, tmp_path, capsys):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(FINANCE, ensure_ascii=False), encoding="utf-8")
    assert main(["count", str(path), "--ratio", "0.5", "--model", MODEL]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["source"] == "Claude count_tokens" and out["original"] > out["pruned"] > 0
    assert out["original_estimate"] > out["pruned_estimate"] and out["estimate_label"] == "cl100k estimate"
    assert keyed.count(COUNT) == 2 and keyed.count(MESSAGES) == 0


def test_count_offline_is_labelled_an_estimate(tmp_path, capsys):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(FINANCE, ensure_ascii=False), encoding="utf-8")
    assert main(["count", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["source"] == "cl100k estimate" and out["original"] is None and out["original_estimate"] > 0
