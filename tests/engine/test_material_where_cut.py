"""``Config(material_everywhere=False)``: material is looked for only in the blocks where a rule proposes a cut (and
those holding the first copies the cuts keep) — what the pruning client and batch runs do — and every decision is
the one looking everywhere makes: material elsewhere vetoes nothing.  The lossy tier, which may take a word in any
block, reads the rest first."""
import json
from pathlib import Path

import pytest

from layerzero_viz import annotate, iter_conversations, load_conversation
from layerzero_viz.labeled import load_cases, prune_case

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "fixtures").glob("*.json"))
LABELED = sorted((ROOT / "fixtures" / "labeled").glob("*.jsonl"))
REVIEWS = sorted((ROOT / "tests" / "data").glob("review*.json"))


def decisions(conv, everywhere: bool) -> list[tuple[str, ...]]:
    """The pruned blocks at a low and a high ratio, and under the 0.98 floor and no floor (the lossy tier)."""
    ann = annotate(conv, env={}, material_everywhere=everywhere)
    return [tuple(ann.at_ratio(0.3).block_texts), tuple(ann.at_ratio(0.95).block_texts),
            tuple(ann.at_ratio(0.6, min_effectiveness=0.98).block_texts),
            tuple(ann.at_ratio(0.95, min_effectiveness=0.0).block_texts)]


def test_same_decisions_on_the_bundled_corpus_sample():
    n = 0
    for line, conv in iter_conversations(ROOT / "fixtures" / "corpus" / "sample.jsonl"):
        assert decisions(conv, False) == decisions(conv, True), f"sample.jsonl:{line}"
        n += 1
    assert n == 48


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_same_decisions_on_the_fixtures(path):
    conv = load_conversation(path)
    assert decisions(conv, False) == decisions(conv, True)


@pytest.mark.parametrize("path", LABELED, ids=[p.name for p in LABELED])
def test_same_decisions_on_the_labeled_cases(path):
    for case in load_cases([path]):
        where_cut = prune_case(case, lambda conv: annotate(conv, env={}, material_everywhere=False))
        assert where_cut == prune_case(case), case.id


@pytest.mark.parametrize("path", REVIEWS[::7], ids=[p.stem for p in REVIEWS[::7]])
def test_same_decisions_on_review_repros(path):
    for case in json.loads(path.read_text(encoding="utf-8")):
        conv = load_conversation(json.dumps(case["input"], ensure_ascii=False))
        assert decisions(conv, False) == decisions(conv, True), case["id"]


LETTER = {"messages": [
    {"role": "user", "content": "My landlord sent me this note:\n\nDear tenant,\nthe heating in the building will be off "
                                "on the 5th for a repair of the boiler.\nRegards,\nMr Lee"},
    {"role": "assistant", "content": "Got it. What would you like to do with the note?"},
    {"role": "user", "content": "Could you please write a short reply for me? Thanks a lot!"}]}


def test_material_in_a_block_without_a_cut_is_not_looked_for_and_changes_nothing():
    doc = json.dumps(LETTER)
    everywhere = annotate(load_conversation(doc), env={})
    where_cut = annotate(load_conversation(doc), env={}, material_everywhere=False)
    assert [m.kind for m in everywhere.protection.material] == ["introduced"]  # the letter
    assert not where_cut.protection.material  # the letter's block proposes no cut: not looked at
    assert where_cut.at_ratio(0.95).block_texts == everywhere.at_ratio(0.95).block_texts
    assert where_cut.at_ratio(0.95).messages[2].pruned == "Could you write a short reply for me?"


def test_the_lossy_tier_reads_the_material_left_unread_first():
    ann = annotate(load_conversation(json.dumps(LETTER)), env={}, material_everywhere=False)
    r = ann.at_ratio(0.95, min_effectiveness=0.0)  # grammar words go wherever they may ("a short reply")
    assert r.messages[0].pruned == LETTER["messages"][0]["content"]  # none of the letter's ("the", "a")
    assert r.messages[2].pruned != "Could you write a short reply for me?"
    assert [m.kind for m in ann.protection.material] == ["introduced"]


def test_a_repeat_looks_at_the_block_of_the_first_copy_it_keeps():
    from layerzero_viz.engine import _blocks_touched
    doc = {"system": "You are a support bot. Never share internal ticket notes with customers.",
           "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello! How can I help?"},
                        {"role": "user", "content": "Reminder: never share internal ticket notes with customers. "
                                                    "What is my refund status?"}]}
    ann = annotate(load_conversation(json.dumps(doc)), env={}, material_everywhere=False)
    r = ann.at_ratio(0.95)
    repeats = [s for s in ann.spans if s.reason == "repeated_constraint"]
    assert repeats and "never share" not in r.messages[3].pruned.lower()
    system = ann.view.blocks[0]
    assert not [s for s in ann.spans if s.start < system.end]  # no cut of its own in the system prompt …
    # … yet it was looked at (its first copy is kept); of the others only "Hi" was not (a greeting alone is kept)
    assert ann._unread[0].pending == {1}
    assert _blocks_touched(ann.view, [], []) == set()
