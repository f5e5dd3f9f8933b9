"""The CLI contract: `python -m layerzero_viz prune …`."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from layerzero_viz import annotate, load_conversation

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "finance_qa.zh.json"
TOP_KEYS = {"version", "ratio", "ratio_source", "tokens_total", "tokens_pruned", "tokens_directive", "output",
            "messages", "tokens", "timings_ms", "metrics"}


def run(*args, stdin: bytes | None = None, env: dict | None = None):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")} | (env or {})
    return subprocess.run([sys.executable, "-m", "layerzero_viz", *args], input=stdin, capture_output=True,
                          cwd=ROOT, env=full_env, timeout=120)


def without_timings(d: dict) -> dict:
    return {k: v for k, v in d.items() if k != "timings_ms"}


def test_prune_prints_the_contract_and_equals_the_library():
    proc = run("prune", str(FIXTURE), "--ratio", "0.3")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert TOP_KEYS <= set(out)
    assert (out["version"], out["ratio"], out["ratio_source"]) == (2, 0.3, "argument")
    assert set(out["timings_ms"]) == {"parse", "tokenize", "detect", "protect", "resolve", "select", "reconstruct",
                                      "context_preservation"}
    assert set(out["metrics"]) == {"layer_zero_pruned_tokens_total", "pruned_fraction",
                                   "layer_zero_effectiveness_ratio", "layer_zero_context_preservation_ms"}
    token = out["tokens"][0]
    assert set(token) == {"message", "block", "i", "id", "text", "start", "end", "decision", "reason", "detail",
                          "score", "tier", "loss"}
    lib = annotate(load_conversation(FIXTURE), env={}).at_ratio(0.3).to_dict()
    assert without_timings(json.loads(json.dumps(lib, ensure_ascii=False))) == without_timings(out)


def test_ratio_source_follows_precedence():
    assert json.loads(run("prune", str(FIXTURE), "--no-tokens").stdout)["ratio_source"] == "directive"
    env = {"ANTHROPIC_LAYER_ZERO_PRUNE_RATIO": "0.2"}
    assert json.loads(run("prune", str(FIXTURE), "--no-tokens", env=env).stdout)["ratio_source"] == "env"


def test_stdin_and_jsonl_line():
    proc = run("prune", "-", "--ratio", "0.5", "--no-low-information", stdin="您好，请问这个月的账单是多少？谢谢".encode())
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["output"] == "这个月的账单是多少？"
    line2 = json.loads(run("prune", str(ROOT / "fixtures" / "batch_small.jsonl"), "--line", "2").stdout)
    assert line2["messages"]


@pytest.mark.parametrize("content,where", [
    (b'{"messages": [{"role": "user", "content": "hi"}', ":1:"),
    (b'{"messages": [{"role": "robot", "content": "hi"}]}', "messages[0]"),
    (b"\xff\xfe\x00bad", "byte"),
])
def test_bad_input_exits_2_with_one_line_and_no_stdout(tmp_path, content, where):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    proc = run("prune", str(bad))
    assert proc.returncode == 2
    assert proc.stdout == b""
    err = proc.stderr.decode().strip()
    assert err.startswith("error: ") and "\n" not in err and where in err


def test_bad_ratio_exits_2():
    proc = run("prune", str(FIXTURE), "--ratio", "1.2")
    assert proc.returncode == 2 and b"outside" in proc.stderr and proc.stdout == b""


def test_output_file_is_written_whole_in_the_input_format(tmp_path):
    target = tmp_path / "out" / "pruned.json"
    proc = run("prune", str(FIXTURE), "--ratio", "0.3", "-o", str(target))
    assert proc.returncode == 0
    assert json.loads(target.read_text(encoding="utf-8")) == json.loads(proc.stdout)["output"]
    assert [p.name for p in target.parent.iterdir()] == ["pruned.json"]


def test_failed_run_leaves_no_output_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    target = tmp_path / "pruned.json"
    assert run("prune", str(bad), "-o", str(target)).returncode == 2
    assert not target.exists() and list(tmp_path.iterdir()) == [bad]
