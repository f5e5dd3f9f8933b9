"""History mining at scale: lines/s and peak memory on a 50 MB and a 200 MB history, side by side.

The history is generated (``layerzero_viz.advisor.sample``: zh and en user messages with four planted
redundant phrases, almost no two lines alike) and streamed to a temporary file; each size is mined in a fresh
subprocess, which reports its own peak RSS (``ru_maxrss``) and the RSS it had before mining began (Python,
jieba's dictionary and the tokenizer loaded).  Target: peak memory flat as the file grows.

Usage: python bench/mine.py [--mb 200] [--small-mb 50] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from layerzero_viz.advisor.sample import PLANTED, sample_history  # noqa: E402

MB = 1024 * 1024


def write_history(path: Path, size: int, *, seed: int = 0) -> int:
    """Stream generated JSONL lines into ``path`` until it holds ``size`` bytes; the number of lines."""
    lines = 0
    written = 0
    with open(path, "wb", buffering=1 << 20) as fh:
        for line in sample_history(seed=seed):
            data = (line + "\n").encode("utf-8")
            fh.write(data)
            written += len(data)
            lines += 1
            if written >= size:
                return lines
    return lines


def child(path: str) -> None:
    """Mine ``path`` in this process and print the figures as JSON (run by the parent in a subprocess)."""
    from layerzero_viz.advisor.mine import _jieba, mine
    from layerzero_viz.tokens import encoding

    _jieba(), encoding()  # loaded before the baseline, as in any long-running use
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    result = mine(path, top=20, progress=False)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    top = [p.phrase for p in result.phrases]
    print(json.dumps({
        "bytes": Path(path).stat().st_size, "lines": result.lines, "seconds": seconds,
        "baseline_kb": baseline, "peak_kb": peak, "error_bound": result.error_bound, "capacity": result.capacity,
        "planted_in_top10": sum(1 for p in PLANTED if any(p in q or q in p for q in top[:10])),
    }))


def run_child(path: Path) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", str(path)], capture_output=True, text=True,
                          cwd=ROOT, check=False)
    if proc.returncode:
        raise SystemExit(f"child failed on {path}:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0, help="size of the large history (default 200)")
    parser.add_argument("--small-mb", type=float, default=50.0, help="size of the small history (default 50)")
    parser.add_argument("--keep", default=None, help="write the histories here and keep them")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="lz-mine-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        rows = []
        for mb in (args.small_mb, args.mb):
            path = folder / f"history_{mb:g}mb.jsonl"
            t0 = time.perf_counter()
            lines = write_history(path, int(mb * MB))
            print(f"generated {path.name}: {lines:,} lines in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
            rows.append(run_child(path))
            if not args.keep:
                path.unlink()
        print(f"{'size':>8} {'lines':>11} {'seconds':>8} {'lines/s':>9} {'MB/s':>6} {'peak RSS':>9} "
              f"{'before mining':>13} {'mining adds':>11} {'error bound':>11} {'planted top10':>13}")
        for r in rows:
            mb = r["bytes"] / MB
            print(f"{mb:7.0f}M {r['lines']:>11,} {r['seconds']:8.1f} {r['lines'] / r['seconds']:9,.0f} "
                  f"{mb / r['seconds']:6.2f} {r['peak_kb'] / 1024:8.0f}M {r['baseline_kb'] / 1024:12.0f}M "
                  f"{(r['peak_kb'] - r['baseline_kb']) / 1024:10.0f}M {r['error_bound']:>11,} "
                  f"{r['planted_in_top10']:>10}/{len(PLANTED)}")
        small, large = rows
        growth = (large["peak_kb"] - large["baseline_kb"]) / max(1, small["peak_kb"] - small["baseline_kb"])
        print(f"input ×{large['bytes'] / small['bytes']:.1f} → mining memory ×{growth:.2f} "
              f"(peak RSS ×{large['peak_kb'] / small['peak_kb']:.2f})")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
