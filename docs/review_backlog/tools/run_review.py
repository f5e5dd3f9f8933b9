"""Run the pruning engine (snapshot in ./snap) on conversations; print every changed message and its cuts."""
import json, sys, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "snap"))
from layerzero_viz import annotate, load_conversation  # noqa: E402

TIERS = {"default": lambda a: a.at_ratio(0.3), "high": lambda a: a.at_ratio(0.95),
         "floor": lambda a: a.at_ratio(0.6, min_effectiveness=0.98)}


def convs(path):
    if os.path.isdir(path):
        for f in sorted(os.listdir(path)):
            if f.endswith((".json", ".jsonl")):
                yield from convs(os.path.join(path, f))
        return
    raw = open(path, encoding="utf-8").read()
    if path.endswith(".jsonl"):
        for i, line in enumerate(raw.splitlines()):
            if line.strip():
                yield f"{path}:{i + 1}", json.loads(line)
    else:
        d = json.loads(raw)
        for i, c in enumerate(d if isinstance(d, list) else [d]):
            yield f"{path}#{i}", c


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    tiers = ["default", "high", "floor"]
    for a in sys.argv[1:]:
        if a.startswith("--tiers="):
            tiers = a.split("=", 1)[1].split(",")
    for p in args:
        for name, c in convs(p):
            ann = annotate(load_conversation(json.dumps(c, ensure_ascii=False)), env={})
            for t in tiers:
                r = TIERS[t](ann)
                spans = r.deleted_spans()
                off = 1 if "system" in c else 0
                changed = [(i, m) for i, m in enumerate(r.messages) if m.pruned != m.original] if hasattr(r.messages[0], "original") else None
                print(f"=== {name} [{t}] ===")
                msgs = ([{"role": "system", "content": c["system"]}] if off else []) + c["messages"]
                for i, m in enumerate(r.messages):
                    orig = msgs[i]["content"] if isinstance(msgs[i]["content"], str) else json.dumps(msgs[i]["content"], ensure_ascii=False)
                    if m.pruned == orig:
                        continue
                    key = "system" if off and i == 0 else str(i - off)
                    print(f"--- message {key} ({msgs[i]['role']})")
                    print("ORIGINAL:", orig)
                    print("PRUNED:  ", m.pruned)
                    for s in spans:
                        if s["message"] == i:
                            print(f"   cut {s['text']!r}  [{s['reason']}: {s['detail']}]")
                if not spans:
                    print("(nothing cut)")


main()
