"""``prune --fail-on``: the CI gate, its checks and its log lines."""
import json
import re

import numpy as np
import pytest

from layerzero_viz import annotate, load_conversation
from layerzero_viz import risk
from layerzero_viz.cli import main
from layerzero_viz.risk import GateFinding, facts, over_ratio, protected_loss

from .helpers import FIXTURES, err_text, out_text, run

CI_LINE = re.compile(r"^[^:]+(:[^:]+:\d+)?: (protected_loss|over_ratio): ")


def test_over_ratio_trips_with_exit_1_and_keeps_the_json_on_stdout():
    fixture = FIXTURES / "support_chat.en.json"
    proc = run("prune", fixture, "--ratio", "0.5", "--no-tokens", "--fail-on", "over_ratio", "--max-ratio", "0.1")
    assert proc.returncode == 1
    assert json.loads(out_text(proc))["tokens_pruned"] > 0
    lines = err_text(proc).strip().splitlines()
    assert lines[0].startswith(f"{fixture}: over_ratio: pruned ") and "effective ratio 0.5 from argument" in lines[0]
    assert lines[-1].startswith("layerzero-viz: 1 finding(s) (over_ratio 1)")


def test_a_clean_prompt_passes_both_checks(capsys):
    fixture = str(FIXTURES / "finance_qa.zh.json")
    assert main(["prune", fixture, "--ratio", "0.3", "--no-tokens", "--fail-on", "protected_loss,over_ratio"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and json.loads(captured.out)["ratio"] == 0.3


def test_protected_loss_findings_are_one_ci_line_each(capsys, monkeypatch):
    found = [GateFinding("protected_loss", "fact_missing", 2, 40, "4.2%", "'4.2%' is in the input but nowhere"),
             GateFinding("protected_loss", "protected_pruned", "system", 7, "SKU-1", "'SKU-1' is protected_identifier")]
    monkeypatch.setattr(risk, "protected_loss", lambda result: found)
    fixture = str(FIXTURES / "finance_qa.zh.json")
    assert main(["prune", fixture, "--no-tokens", "--fail-on", "protected_loss"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[:2] == [f"{fixture}:2:40: protected_loss: fact_missing: '4.2%' is in the input but nowhere",
                         f"{fixture}:system:7: protected_loss: protected_pruned: 'SKU-1' is protected_identifier"]
    assert all(CI_LINE.match(line) for line in lines[:2])
    assert lines[2] == "layerzero-viz: 2 finding(s) (protected_loss 2): failing"


def test_an_unknown_check_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["prune", str(FIXTURES / "finance_qa.zh.json"), "--fail-on", "protected_loss,typo"])
    assert exit_.value.code == 2
    assert "unknown check typo" in capsys.readouterr().err


# ---- the checks themselves ------------------------------------------------------------------------------------

def test_fact_patterns_find_numbers_and_identifiers_whole():
    assert facts("Fee for SKU-12345 is 4.2%, order #778, mail a.b@x.io, 12,000 元 on 2024-05-01") == {
        "SKU-12345", "4.2%", "#778", "a.b@x.io", "12,000", "2024-05-01"}
    assert facts("七日年化收益率4.2%是多少") == {"4.2%"}


class _Msg:
    def __init__(self, message, original, pruned):
        self.message, self.original, self.pruned = message, original, pruned


class _Result:
    def __init__(self, messages):
        self.messages = messages


def test_fact_missing_is_independent_of_the_engine_and_locates_the_fact():
    before = _Result([_Msg(0, "收益率4.2%，订单 #12345。", "收益率4.2%，订单 #12345。")])
    after = _Result([_Msg(0, "收益率4.2%，订单 #12345。", "收益率，订单 #12345。")])
    (finding,) = risk._facts_missing(after, before)
    assert (finding.kind, finding.message, finding.char, finding.text) == ("fact_missing", 0, 3, "4.2%")


def test_a_fact_kept_in_another_message_is_not_missing():
    before = _Result([_Msg(0, "under 200 words", "under 200 words"),
                      _Msg(1, "again under 200 words", "again under 200 words")])
    after = _Result([_Msg(0, "under 200 words", "under 200 words"), _Msg(1, "again under 200 words", "again")])
    assert risk._facts_missing(after, before) == []


def test_engine_directive_numbers_are_meant_to_go():
    result = annotate(load_conversation(FIXTURES / "finance_qa.zh.json"), env={}).at_ratio(0.3)
    assert 'prune_ratio="0.35"' in result.messages[0].original
    assert protected_loss(result) == []


def test_a_pruned_token_under_a_fact_protection_is_reported():
    from layerzero_viz.protect import PRECEDENCE

    result = annotate(load_conversation(FIXTURES / "support_chat.en.json"), env={}).at_ratio(0.5)
    a = result.annotated
    t = int(np.flatnonzero(result.token_prune & ~a.tok_directive)[0])
    a.g_prot[a.tok_group[t]] = PRECEDENCE.index("protected_number") + 1  # as if a rule had cut through a number
    kinds = {f.kind for f in protected_loss(result)}
    assert "protected_pruned" in kinds


def test_over_ratio_compares_the_pruned_share_with_the_limit():
    result = annotate(load_conversation(FIXTURES / "support_chat.en.json"), env={}).at_ratio(0.5)
    assert over_ratio(result, max_ratio=0.95) == []
    (finding,) = over_ratio(result, max_ratio=result.pruned_fraction / 2)
    assert finding.check == "over_ratio" and finding.ci_line("p.json").startswith("p.json: over_ratio: pruned ")
