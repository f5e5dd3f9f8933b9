"""The JSON result at scale (issue 15): one long message, measured side by side in one run.

For a 1 MB and a 5 MB single-message conversation (zh/en mixed text: ../shared/corpus when present, else the
bundled sample, repeated to size) prints:
  1. in this process, medians of --rounds interleaved rounds: bare tiktoken ``encode_ordinary`` on the text,
     ``annotate`` (warm: lexicons already loaded), then the JSON result built and written to a file (``at_ratio``
     + writing) with tokens — the streamed writer (``PruneResult.write_json``) and the former path
     (``json.dumps(result.to_dict())`` then one write) — and without tokens; each as a ratio to the encode time.
     Target: result with tokens ≥ 0.25× encode throughput (its time ≤ 4× the encode time);
  2. the real CLI in a child process (``python -m layerzero_viz prune FILE --result OUT``), with and without
     tokens: wall time and peak RSS (``ru_maxrss`` of that child, from ``os.wait4``), beside a child running the
     former path (``json.dumps(to_dict())``) and one that only annotates.  Target: ≤ 400 MB with tokens at 1 MB.

These machines are noisy: compare the ratios within one run, not times across runs.

Usage: python bench/json_output.py [--sizes 1 5] [--rounds 3] [--ratio 0.3]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from layerzero_viz import annotate, iter_conversations, load_conversation  # noqa: E402
from layerzero_viz.tokens import encoding  # noqa: E402

# What a child process runs besides the CLI: the former writer (the whole document as one string) and
# annotation alone (the floor any writer sits on).
_FORMER = """
import json, sys
from pathlib import Path
from layerzero_viz import annotate, load_conversation
r = annotate(load_conversation(Path(sys.argv[1])), env={}).at_ratio(float(sys.argv[3]))
Path(sys.argv[2]).write_text(json.dumps(r.to_dict(tokens=True), ensure_ascii=False) + "\\n", encoding="utf-8")
"""
_ANNOTATE_ONLY = """
import sys
from pathlib import Path
from layerzero_viz import annotate, load_conversation
r = annotate(load_conversation(Path(sys.argv[1])), env={}).at_ratio(float(sys.argv[3]))
r.output, r.messages
"""


def corpus_texts() -> tuple[list[str], str]:
    """Every non-empty message text of the corpus, in one fixed shuffled order (the files come one language
    after another, so a prefix of any size has the same zh/en mix)."""
    shared = ROOT.parent / "shared" / "corpus"
    files = sorted(shared.glob("*.jsonl")) if shared.is_dir() else [ROOT / "fixtures" / "corpus" / "sample.jsonl"]
    texts = [m.text for f in files for _, conv in iter_conversations(f) for m in conv.messages if m.text.strip()]
    random.Random(7).shuffle(texts)
    return texts, ", ".join(f.name for f in files)


def message_of(texts: list[str], n_bytes: int) -> str:
    """Corpus texts joined by blank lines, repeated when the corpus is smaller, up to ``n_bytes`` of UTF-8."""
    parts, size, k = [], 0, 0
    while size < n_bytes:
        t = texts[k % len(texts)]
        parts.append(t)
        size += len(t.encode("utf-8")) + 2
        k += 1
    return "\n\n".join(parts)


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def write_streamed(result, path: Path, tokens: bool) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        result.write_json(fh, tokens=tokens)
        fh.write("\n")


def write_former(result, path: Path, tokens: bool) -> None:
    path.write_text(json.dumps(result.to_dict(tokens=tokens), ensure_ascii=False) + "\n", encoding="utf-8")


# Children are started by a small launcher process, not by this one: Linux records a process's memory high-water
# mark at exec, so a child forked from this (large) process would report at least this process's RSS.
_LAUNCHER = """
import json, os, subprocess, sys, time
for line in sys.stdin:
    args, cwd, env = json.loads(line)
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    print(json.dumps([time.perf_counter() - t0, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)]),
          flush=True)
"""


class Launcher:
    """Runs child processes and reports (wall seconds, peak RSS in MB, exit code) of each."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen([sys.executable, "-c", _LAUNCHER], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)

    def run(self, args: list[str]) -> tuple[float, float, int]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        self._proc.stdin.write(json.dumps([[sys.executable, *args], str(ROOT), env]) + "\n")
        self._proc.stdin.flush()
        wall, rss, code = json.loads(self._proc.stdout.readline())
        return wall, rss, code

    def close(self) -> None:
        self._proc.stdin.close()
        self._proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=[1.0, 5.0], help="message sizes in MB (10^6 bytes)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ratio", type=float, default=0.3)
    opts = ap.parse_args()
    launcher = Launcher()  # while this process is still small
    texts, source = corpus_texts()
    enc = encoding()
    streamed = hasattr(__import__("layerzero_viz.result").result.PruneResult, "write_json")
    print(f"text from {source}; ratio {opts.ratio}; streamed writer {'present' if streamed else 'ABSENT'}")
    annotate("warm up: 你好。Hello.", env={})  # lexicons, jieba and the tokenizer load once, as in a long process
    with tempfile.TemporaryDirectory() as tmp:
        tmp_dir = Path(tmp)
        for mb in opts.sizes:
            text = message_of(texts, int(mb * 1_000_000))
            src = tmp_dir / f"message_{mb:g}mb.json"
            src.write_text(json.dumps({"messages": [{"role": "user", "content": text}]}, ensure_ascii=False),
                           encoding="utf-8")
            conv = load_conversation(src)
            out = tmp_dir / "result.json"
            rows: dict[str, list[float]] = {}
            ann = None
            n_tokens = 0
            json_mb = {True: 0.0, False: 0.0}
            for _ in range(opts.rounds):
                rows.setdefault("encode", []).append(timed(lambda: enc.encode_ordinary(text)))
                t0 = time.perf_counter()
                ann = annotate(conv, env={})
                rows.setdefault("annotate", []).append(time.perf_counter() - t0)
                n_tokens = len(ann.tok_ids)
                cases = [("former, tokens", write_former, True), ("former, no tokens", write_former, False)]
                if streamed:
                    cases = [("streamed, tokens", write_streamed, True),
                             ("streamed, no tokens", write_streamed, False)] + cases
                for name, write, tokens in cases:
                    rows.setdefault(name, []).append(
                        timed(lambda: write(ann.at_ratio(opts.ratio), out, tokens)))
                    json_mb[tokens] = out.stat().st_size / 1e6
            size = len(text.encode("utf-8")) / 1e6
            med = {k: statistics.median(v) for k, v in rows.items()}
            e = med["encode"]
            print(f"\n{size:.2f} MB message, {n_tokens:,} tokens; medians of {opts.rounds} rounds "
                  f"(ratio = encode time / time: ≥ 0.25 is the target for a result with tokens)")
            print(f"  {'':28s} {'seconds':>8s} {'× encode':>9s} {'ratio':>7s} {'with annotate':>14s}")
            for name, t in med.items():
                with_ann = "" if name in ("encode", "annotate") else f"{e / (t + med['annotate']):14.3f}"
                print(f"  {name:28s} {t:8.3f} {t / e:9.2f} {e / t:7.3f} {with_ann}")
            del ann
            # the real CLI in a child: peak RSS and wall time (the child pays imports and a cold annotate)
            print(f"  child processes (peak RSS of that process; wall time includes start-up and a cold annotate); "
                  f"JSON {json_mb[True]:.1f} MB with tokens, {json_mb[False]:.1f} MB without:")
            children = [("annotate only", ["-c", _ANNOTATE_ONLY, str(src), str(out), str(opts.ratio)])]
            if streamed:
                children += [("CLI prune, tokens", ["-m", "layerzero_viz", "prune", str(src), "--ratio",
                                                     str(opts.ratio), "--result", str(out)]),
                             ("CLI prune, no tokens", ["-m", "layerzero_viz", "prune", str(src), "--ratio",
                                                        str(opts.ratio), "--result", str(out), "--no-tokens"])]
            children.append(("former writer, tokens", ["-c", _FORMER, str(src), str(out), str(opts.ratio)]))
            for name, args in children:
                wall, rss, code = launcher.run(args)
                note = "" if code == 0 else f"  (exit {code})"
                print(f"  {name:28s} {wall:8.2f} s {rss:8.0f} MB peak RSS{note}")
    launcher.close()


if __name__ == "__main__":
    main()
