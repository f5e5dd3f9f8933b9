"""Pruning quality on the project's hand-labeled set (issue 12), plus the corpus invariants when present.

Prints, per language (zh, en, mixed) and per class: must_keep retained % and must_prune recall %, the messages
pruned to empty, then the failures (up to --show) with the pruned text around each span.  When
../shared/corpus exists beside the project root, runs ../shared/tools/invariants.py (same python, cwd = project
root) and prints its summary line.

Targets: must_keep 100 %, must_prune recall >= 95 % in zh and in en, no empty message, invariants 0.
Exits 0 (it is a report) unless --strict, which exits 1 when a target is missed.

Usage: python bench/quality.py [--show 30] [--strict] [--no-invariants] [FILE.jsonl ...]
"""
from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from layerzero_viz.labeled import CLASSES, LANGS, Report, Tally, default_paths, load_cases, score  # noqa: E402

KEEP_TARGET, RECALL_TARGET = 1.0, 0.95


def row(name: str, t: Tally) -> str:
    return (f"  {name:<15} {t.cases:>5}  {100 * t.keep_rate:6.1f} % ({t.kept:>3}/{t.keep_total:<3})"
            f"  {100 * t.recall:6.1f} % ({t.removed:>3}/{t.prune_total:<3})  {t.empty:>5}")


def print_report(report: Report, show: int) -> None:
    header = f"  {'':<15} {'cases':>5}  {'must_keep retained':<20}  {'must_prune recall':<19}  {'empty':>5}"
    print("by language\n" + header)
    for lang in LANGS:
        if lang in report.by_lang:
            print(row(lang, report.by_lang[lang]))
    print(row("all", report.total))
    print("by class\n" + header)
    for cls in CLASSES:
        if cls in report.by_class:
            print(row(cls, report.by_class[cls]))
    if report.empty_turns:
        print("messages pruned to empty: " + ", ".join(f"{cid}[{key}]" for cid, key in report.empty_turns))
    print(f"failures: {len(report.failures)}" + (f" (first {show})" if len(report.failures) > show else ""))
    for f in report.failures[:show]:
        print(f"  {f.case} [{f.message}] {f.kind}: {f.span!r}\n      pruned: {f.around!r}")


def run_invariants() -> int | None:
    """Run ../shared/tools/invariants.py when ../shared/corpus exists; print its summary; its exit code."""
    shared = ROOT.parent / "shared"
    tool = shared / "tools" / "invariants.py"
    if not (shared / "corpus").is_dir() or not tool.is_file():
        print("invariants: skipped (no ../shared/corpus)")
        return None
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(tool), "--show", "0"], cwd=ROOT, capture_output=True, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("invariants:")]
    summary = lines[-1] if lines else f"no summary line (exit {proc.returncode}): {proc.stderr.strip()[-300:]}"
    print(f"{summary}  [{time.perf_counter() - t0:.0f} s]" if lines else f"invariants: {summary}")
    return proc.returncode


def _unprotected_word_tokens(ann) -> int:
    """Tokens that hold a letter (any script) and that no protection and no directive covers."""
    text = ann.view.text
    free = (ann.g_prot[ann.tok_group] == 0) & ~ann.tok_directive
    return sum(1 for ok, s, e in zip(free.tolist(), ann.tok_start.tolist(), ann.tok_end.tolist())
               if ok and _LETTER.search(text, s, e))


_LETTER = re.compile(r"[^\W\d_]")


def run_lossy() -> bool | None:
    """With the floor off: the mean pruned fraction at r = 0.1, 0.3, 0.5 on ../shared/corpus (target ≥ 0.9·r)
    and the invariants at each ratio; None when the corpus is absent, else whether every target held."""
    shared = ROOT.parent / "shared"
    tool = shared / "tools" / "invariants.py"
    if not (shared / "corpus").is_dir():
        print("lossy tier: skipped (no ../shared/corpus)")
        return None
    from layerzero_viz import annotate, load_conversation

    ratios = (0.1, 0.3, 0.5)
    fractions: dict[float, list[float]] = {r: [] for r in ratios}
    # what any selection could reach with every protection absolute (contract point 5): per conversation
    # min(⌊r·N⌋, tokens that hold a letter and no protection covers) / N — no whole words, no readability
    ceiling: dict[float, list[float]] = {r: [] for r in ratios}
    for path in sorted((shared / "corpus").glob("*.jsonl")):
        for line in path.open(encoding="utf-8"):  # (not splitlines: U+2028 may sit inside a JSON string)
            record = json.loads(line) if line.strip() else {}
            if not record.get("messages"):
                continue
            body = {"messages": record["messages"], **({"system": record["system"]} if record.get("system") else {})}
            ann = annotate(load_conversation(json.dumps(body, ensure_ascii=False).encode()), env={})
            free = _unprotected_word_tokens(ann)
            for r in ratios:
                fractions[r].append(ann.at_ratio(r, min_effectiveness=0.0).pruned_fraction)
                if ann.tokens_total:
                    ceiling[r].append(min(math.floor(r * ann.tokens_total), free) / ann.tokens_total)
    ok = True
    for r in ratios:
        mean = sum(fractions[r]) / len(fractions[r])
        ok &= mean >= 0.9 * r
        top = sum(ceiling[r]) / max(len(ceiling[r]), 1)
        print(f"lossy tier, no floor, r = {r:.1f}: mean pruned fraction {mean:.3f} (target >= {0.9 * r:.2f}; "
              f"ceiling under the protections {top:.3f}) over {len(fractions[r])} conversations")
    proc = subprocess.run([sys.executable, str(tool), "--show", "0", "--ratios", *map(str, ratios),
                           "--min-effectiveness", "0"], cwd=ROOT, capture_output=True, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("invariants:")]
    print("lossy tier, no floor, " + (lines[-1] if lines else f"invariants: no summary (exit {proc.returncode})"))
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="labeled *.jsonl files (default: fixtures/labeled)")
    ap.add_argument("--show", type=int, default=30, help="failures to print")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--no-invariants", action="store_true", help="do not run ../shared/tools/invariants.py")
    args = ap.parse_args()

    cases = load_cases(args.files or default_paths())
    t0 = time.perf_counter()
    report = score(cases)
    print(f"labeled set: {len(cases)} cases, {report.total.keep_total} must_keep and "
          f"{report.total.prune_total} must_prune spans, scored in {time.perf_counter() - t0:.1f} s")
    print_report(report, args.show)
    invariants = None if args.no_invariants else run_invariants()
    lossy_ok = None if args.no_invariants else run_lossy()

    missed = [f"must_keep {100 * report.total.keep_rate:.1f} % < 100 %"] if report.total.keep_rate < KEEP_TARGET else []
    missed += [f"{lang} recall {100 * report.by_lang[lang].recall:.1f} % < 95 %" for lang in ("zh", "en")
               if lang in report.by_lang and report.by_lang[lang].recall < RECALL_TARGET]
    missed += [f"{len(report.empty_turns)} empty messages"] if report.empty_turns else []
    missed += ["invariants violated"] if invariants else []
    missed += ["lossy tier below 0.9·r"] if lossy_ok is False else []
    print("targets: " + ("all met" if not missed else "missed: " + "; ".join(missed)))
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
