"""Check minimal repros: python rep.py repros.json [ID ...]"""
import json, sys, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "snap"))
from layerzero_viz import annotate, load_conversation  # noqa: E402

cases = json.load(open(sys.argv[1], encoding="utf-8"))
want = set(sys.argv[2:])
bad = 0
for case in cases:
    if want and case["id"] not in want:
        continue
    ann = annotate(load_conversation(json.dumps(case["input"], ensure_ascii=False)), env={})
    r = {"floor": lambda: ann.at_ratio(0.6, min_effectiveness=0.98), "high": lambda: ann.at_ratio(0.95)}.get(
        case["tier"], lambda: ann.at_ratio(0.3))()
    off = 1 if "system" in case["input"] else 0
    got = {("system" if off and i == 0 else str(i - off)): m.pruned for i, m in enumerate(r.messages)}
    ok = all(got.get(k) == v for k, v in case["expected"].items())
    bad += not ok
    print(("PASS " if ok else "FAIL ") + case["id"] + "  " + case.get("class", ""))
    if not ok:
        for k, v in case["expected"].items():
            if got.get(k) != v:
                print(f"   [{k}] expected: {v!r}\n   [{k}] got:      {got.get(k)!r}")
print(f"{bad} failing of {len([c for c in cases if not want or c['id'] in want])}")
