"""`layerzero-viz lint` and `layerzero-viz mine`: JSON and text output, exit codes for CI."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from layerzero_viz.advisor.sample import PLANTED, sample_history
from layerzero_viz.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch):
    for name in ("ANTHROPIC_LAYER_ZERO_PRUNE_RATIO", "ANTHROPIC_EXPERIMENTAL_LAYER_ZERO", "LAYERZERO_PROFILES"):
        monkeypatch.delenv(name, raising=False)


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_lint_prints_json_findings_and_exits_0_without_errors(capsys):
    code, out, err = run(capsys, "lint", FIXTURES / "finance_qa.zh.json")
    data = json.loads(out)
    assert code == 0 and err == ""
    assert data["version"] == 1 and data["summary"]["error"] == 0 and data["findings"]
    f = data["findings"][0]
    assert {"input", "line", "code", "name", "severity", "message", "message_key", "start", "end", "excerpt",
            "suggestion", "fix_available"} <= set(f)


def test_lint_exits_1_on_an_error_severity_finding(capsys, tmp_path):
    # the plain-text sample's first line is its directive (its own system prompt), so it moved into a user turn
    text = (FIXTURES / "plain_prompt.zh.txt").read_text(encoding="utf-8")
    path = tmp_path / "misplaced.json"
    path.write_text(json.dumps({"system": "你是文案助手。", "messages": [{"role": "user", "content": text}]},
                               ensure_ascii=False), encoding="utf-8")
    code, out, _ = run(capsys, "lint", path)
    data = json.loads(out)
    assert code == 1 and data["summary"]["error"] >= 1
    assert {"LZ101", "LZ105"} <= {f["code"] for f in data["findings"]}
    # the sample itself is read as the engine reads it: no error
    code, out, _ = run(capsys, "lint", FIXTURES / "plain_prompt.zh.txt")
    assert code == 0 and json.loads(out)["summary"]["error"] == 0


def test_lint_many_inputs_and_jsonl_lines(capsys):
    code, out, _ = run(capsys, "lint", FIXTURES / "batch_small.jsonl", FIXTURES / "support_chat.en.json")
    data = json.loads(out)
    inputs = {f["input"] for f in data["findings"]}
    assert code in (0, 1) and len(inputs) == 2
    assert any(f["line"] for f in data["findings"] if f["input"].endswith(".jsonl"))


def test_lint_exits_2_on_unreadable_input(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"messages": [', encoding="utf-8")
    code, out, err = run(capsys, "lint", bad)
    assert code == 2 and out == "" and err.startswith("error: ")
    code, _, err = run(capsys, "lint", tmp_path / "missing.json")
    assert code == 2


def test_lint_select_and_profile_options(capsys):
    code, out, _ = run(capsys, "lint", FIXTURES / "finance_qa.zh.json", "--select", "LZ180")
    assert {f["code"] for f in json.loads(out)["findings"]} == {"LZ180"}
    code, out, _ = run(capsys, "lint", FIXTURES / "finance_qa.zh.json", "--select", "LZ180", "--profile", "none")
    assert json.loads(out)["findings"] == []
    code, _, err = run(capsys, "lint", FIXTURES / "finance_qa.zh.json", "--profile", "astrology")
    assert code == 2 and "astrology" in err
    code, _, err = run(capsys, "lint", FIXTURES / "finance_qa.zh.json", "--select", "LZ999")
    assert code == 2 and "LZ999" in err


def test_lint_output_writes_the_fixed_conversation(capsys, tmp_path):
    out_file = tmp_path / "fixed.json"
    code, _, _ = run(capsys, "lint", FIXTURES / "finance_qa.zh.json", "-o", out_file)
    fixed = json.loads(out_file.read_text(encoding="utf-8"))
    assert code == 0 and "<business_rule>" in fixed["system"] and "<redundant_phrases>" in fixed["system"]
    code, out, _ = run(capsys, "lint", out_file)
    assert all(not f["fix_available"] for f in json.loads(out)["findings"])


def test_lint_output_dash_is_standard_output_and_the_findings_go_to_standard_error(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "lint", FIXTURES / "finance_qa.zh.json", "-o", "-")
    fixed = json.loads(out)  # the fixed conversation, alone on stdout: a pipe gets it whole
    assert code == 0 and "<business_rule>" in fixed["system"]
    assert json.loads(err)["findings"] and not (tmp_path / "-").exists()


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "history.jsonl"
    path.write_text("\n".join(sample_history(2000, seed=3)) + "\n", encoding="utf-8")
    return path


def test_mine_prints_the_table_and_the_block(capsys, history):
    code, out, err = run(capsys, "mine", history, "--top", "8", "--no-progress")
    assert code == 0 and err == ""
    block = out.strip().splitlines()[-1]
    assert block.startswith("<redundant_phrases>[") and "麻烦您帮我看一下" in block
    assert "2,000 messages" in out and "phrase" in out


def test_mine_json(capsys, history):
    code, out, _ = run(capsys, "mine", history, "--top", "10", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["phrases"]) == 10
    assert set(PLANTED) <= {p["phrase"] for p in data["phrases"]}
    assert data["redundant_phrases"].startswith("<redundant_phrases>")


def test_mine_stops_at_a_malformed_line_unless_asked_to_skip(capsys, tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_text('{"text": "您好"}\n{oops\n{"text": "请问"}\n', encoding="utf-8")
    code, out, err = run(capsys, "mine", path)
    assert code == 2 and out == "" and "h.jsonl:2" in err and "--skip-bad-lines" in err
    code, out, err = run(capsys, "mine", path, "--skip-bad-lines")
    assert code == 0 and "skipped 1 malformed lines (first: 2)" in err
