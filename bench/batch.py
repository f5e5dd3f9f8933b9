"""Batch throughput and memory, side by side in one run (compare ratios, not absolute times: machines are noisy).

Generates a JSONL log of ``--mb`` MB (and one of ``--small-mb`` MB) from the fixtures and the bundled corpus
sample, every record varied (ids, numbers, a politeness phrase) so no two lines are the same; then runs
``layerzero-viz batch`` as a subprocess and prints:

  1. conversations/s and tokens/s at ``--jobs 1`` and ``--jobs 2`` on the small log — target jobs 2 ≥ 1.7× jobs 1;
  2. peak RSS of the whole process tree (the CLI and its workers, summed, sampled every 0.1 s with psutil;
     without psutil, the largest single process from ``getrusage(RUSAGE_CHILDREN)``) on the small and the large
     log at ``--jobs 2`` — target ≤ 500 MB and flat as the input grows.

Usage: python bench/batch.py [--mb 200] [--small-mb 50] [--ratio 0.3] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_POLITE = ["", "请问", "麻烦您", "Please kindly ", "Thank you so much! ", "您好，", "I was wondering if you could "]


def seed_records() -> list[dict]:
    """Conversations from fixtures/*.json, fixtures/batch_small.jsonl and fixtures/corpus/sample.jsonl."""
    records = []
    for path in sorted((ROOT / "fixtures").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and ("messages" in doc or "conversations" in doc):
            records.append(doc)
    for path in (ROOT / "fixtures" / "batch_small.jsonl", ROOT / "fixtures" / "corpus" / "sample.jsonl"):
        records += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return records


def _vary(doc: dict, n: int, rng: random.Random) -> dict:
    """A copy of ``doc`` whose last user text gets a polite opener and a unique reference."""
    doc = json.loads(json.dumps(doc))
    turns = doc.get("messages") or doc.get("conversations") or []
    for turn in reversed(turns):
        if not isinstance(turn, dict):
            continue
        key = "content" if "content" in turn else "value" if "value" in turn else None
        if key and isinstance(turn[key], str) and turn.get("role", turn.get("from")) in ("user", "human"):
            turn[key] = (f"{rng.choice(_POLITE)}{turn[key]}\n参考编号 #{n}，订单 SKU-{rng.randint(10000, 99999)}，"
                         f"金额 {rng.randint(1, 9999)}.{rng.randint(0, 99):02d} 元。")
            break
    return doc


def generate(path: Path, megabytes: float, seeds: list[dict]) -> tuple[int, int]:
    """Stream varied records to ``path`` until it holds ``megabytes`` MB; (records, bytes)."""
    rng = random.Random(20260)
    target, size, n = int(megabytes * 1e6), 0, 0
    with path.open("w", encoding="utf-8") as f:
        while size < target:
            line = json.dumps(_vary(seeds[n % len(seeds)], n, rng), ensure_ascii=False) + "\n"
            f.write(line)
            size += len(line.encode("utf-8"))
            n += 1
    return n, size


def run_batch(log: Path, out: Path, jobs: int, ratio: float) -> dict:
    """Run the CLI on ``log``; the summary plus wall time and peak RSS (MB) of the process tree."""
    cmd = [sys.executable, "-m", "layerzero_viz", "batch", str(log), "-o", str(out), "--ratio", str(ratio),
           "--jobs", str(jobs), "--json", "--quiet", "--overwrite"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak_tree = _watch_tree(proc)
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"batch failed ({proc.returncode}): {stderr.strip()}")
    summary = json.loads(stdout)
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KB on Linux: largest single process
    return {"summary": summary, "wall_s": wall, "peak_tree_mb": peak_tree, "largest_process_mb": largest}


def _watch_tree(proc: subprocess.Popen) -> float | None:
    """Peak of the summed RSS of ``proc`` and its descendants (None without psutil)."""
    try:
        import psutil
    except ImportError:
        return None
    peak = 0
    try:
        root = psutil.Process(proc.pid)
    except psutil.Error:
        return None
    while proc.poll() is None:
        total = 0
        try:
            for p in [root, *root.children(recursive=True)]:
                try:
                    total += p.memory_info().rss
                except psutil.Error:
                    pass
        except psutil.Error:
            pass
        peak = max(peak, total)
        time.sleep(0.1)
    return peak / 2**20


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=200.0, help="size of the large log (default 200)")
    ap.add_argument("--small-mb", type=float, default=50.0, help="size of the small log (default 50)")
    ap.add_argument("--ratio", type=float, default=0.3)
    ap.add_argument("--keep", type=Path, default=None, help="write logs and outputs here instead of a temp dir")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="lz-bench-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        seeds = seed_records()
        small, large = work / f"log-{args.small_mb:g}mb.jsonl", work / f"log-{args.mb:g}mb.jsonl"
        for path, mb in ((small, args.small_mb), (large, args.mb)):
            t0 = time.perf_counter()
            n, size = generate(path, mb, seeds)
            took = time.perf_counter() - t0
            print(f"generated {path.name}: {n:,} conversations, {size / 1e6:,.1f} MB in {took:.1f} s", flush=True)

        runs = {}
        for label, log, jobs in (("small, --jobs 1", small, 1), ("small, --jobs 2", small, 2),
                                 ("large, --jobs 2", large, 2)):
            print(f"running {label} …", flush=True)
            runs[label] = r = run_batch(log, work / "out.jsonl", jobs, args.ratio)
            s = r["summary"]
            print(f"  {s['conversations']:,} conversations, {s['tokens_total']:,} tokens in {r['wall_s']:.1f} s",
                  flush=True)

        print()
        print(f"{'run':<18}{'conv/s':>10}{'tokens/s':>12}{'wall s':>9}{'peak RSS tree MB':>18}")
        for label, r in runs.items():
            s = r["summary"]
            rate_c, rate_t = s["conversations"] / r["wall_s"], s["tokens_total"] / r["wall_s"]
            tree = f"{r['peak_tree_mb']:.0f}" if r["peak_tree_mb"] is not None else "n/a"
            print(f"{label:<18}{rate_c:>10,.1f}{rate_t:>12,.0f}{r['wall_s']:>9.1f}{tree:>18}")
        one, two = runs["small, --jobs 1"], runs["small, --jobs 2"]
        speedup = (two["summary"]["conversations"] / two["wall_s"]) / (one["summary"]["conversations"] / one["wall_s"])
        print(f"\nspeed-up --jobs 2 / --jobs 1: {speedup:.2f}× (target ≥ 1.7×; wall time including start-up)")
        a, b = runs["small, --jobs 2"]["peak_tree_mb"], runs["large, --jobs 2"]["peak_tree_mb"]
        if a is not None and b is not None:
            print(f"peak RSS of the process tree: {a:.0f} MB at {args.small_mb:g} MB vs {b:.0f} MB at {args.mb:g} MB "
                  f"(target ≤ 500 MB and flat; growth {b / a:.2f}×)")
        print(f"largest single process (getrusage): {runs['large, --jobs 2']['largest_process_mb']:.0f} MB")


if __name__ == "__main__":
    main()
