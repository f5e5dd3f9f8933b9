"""Real third-party prompts and dialogues never crash the engine, and protections hold on them."""
from pathlib import Path

import pytest

from layerzero_viz import annotate, iter_conversations
from layerzero_viz.protect import PRECEDENCE

from .helpers import is_subsequence

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures" / "corpus" / "sample.jsonl"
SHARED = ROOT.parent / "shared" / "corpus"


def check_all(path: Path) -> int:
    n = 0
    for line, conv in iter_conversations(path):
        assert not isinstance(conv, Exception), f"{path.name}:{line}: {conv}"
        r = annotate(conv, env={}).at_ratio(0.5)
        assert r.tokens_pruned <= int(0.5 * r.tokens_total + 1e-9)
        for m in r.messages:
            assert is_subsequence(m.pruned, m.original), f"{path.name}:{line}"
        assert not [t for t in r.token_records() if t["decision"] == "prune" and t["reason"] in PRECEDENCE]
        n += 1
    return n


def test_bundled_corpus_sample():
    assert check_all(SAMPLE) == 48


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/corpus is not present (a fresh clone has none)")
@pytest.mark.parametrize("name", sorted(p.name for p in SHARED.glob("*.jsonl")) if SHARED.is_dir() else [])
def test_whole_shared_corpus(name):
    assert check_all(SHARED / name) > 0
