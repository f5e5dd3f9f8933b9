"""What annotate/bare (bench/engine.py's figure) would be if the material finders and every rule cost nothing.

Annotates the corpus once to record what ``material.find_material`` and each rule of ``rules.RULES`` return, then
alternates, round by round, the real engine and one that replays those results instead of computing them; each
side is measured against bare tiktoken ``encode_ordinary`` in the same round.  The replayed side is the ceiling a
compiled twin of material and the rules could reach with everything else as it is (issue 17's target is ≥ 1/3).

Usage: python bench/engine_ceiling.py [--rounds 3]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from engine import corpus_records  # noqa: E402  (bench/engine.py)

from layerzero_viz import engine as _engine, protect as _protect  # noqa: E402
from layerzero_viz.tokens import encoding  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    enc = encoding()
    _engine.annotate("warm up 您好", env={})
    convs, size, _ = corpus_records(2_000_000)
    texts = ["\n".join(b.text for m in c.messages for b in m.blocks) for c in convs]
    real_material, real_rules = _protect.find_material, _engine.RULES
    material: dict = {}
    hits: dict = {}

    def recording_material(view, *a):
        found = real_material(view, *a)
        material[view.text] = found
        return found

    def recording(name, rule):
        def run(view, ctx):
            found = hits[(name, view.text)] = rule(view, ctx)
            return found
        return run

    _protect.find_material = recording_material
    _engine.RULES = tuple((name, recording(name, rule)) for name, rule in real_rules)
    for conv in convs:
        _engine.annotate(conv, env={})
    replayed_rules = tuple((name, (lambda n: lambda view, ctx: hits[(n, view.text)])(name)) for name, _ in real_rules)
    ratios: dict[str, list[float]] = {"real": [], "material and rules free": []}
    try:
        for _ in range(args.rounds):
            for label in ratios:
                replay = label != "real"
                _protect.find_material = (lambda view, *a: material[view.text]) if replay else real_material
                _engine.RULES = replayed_rules if replay else real_rules
                t0 = time.perf_counter()
                for text in texts:
                    enc.encode_ordinary(text)
                bare = time.perf_counter() - t0
                t0 = time.perf_counter()
                for conv in convs:
                    _engine.annotate(conv, env={})
                ratios[label].append(bare / (time.perf_counter() - t0))
    finally:
        _protect.find_material, _engine.RULES = real_material, real_rules
    print(f"corpus: {len(convs)} conversations, {size / 1e6:.2f} MB")
    for label, values in ratios.items():
        print(f"annotate / bare, {label:24s}: {', '.join(f'{v:.3f}' for v in values)}   (target >= 0.333)")


if __name__ == "__main__":
    main()
