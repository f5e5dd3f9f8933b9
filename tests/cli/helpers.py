"""Running the CLI in tests: as a subprocess (end to end) or in-process (fast), never with ANTHROPIC_* set."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
SMALL_LOG = FIXTURES / "batch_small.jsonl"
CORPUS = FIXTURES / "corpus" / "sample.jsonl"


def clean_env(extra: dict | None = None) -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")} | (extra or {})


def run(*args, stdin: bytes | None = None, env: dict | None = None, cwd: Path = ROOT, timeout: float = 180):
    """``python -m layerzero_viz ARGS`` as a subprocess; text stdout/stderr."""
    return subprocess.run([sys.executable, "-m", "layerzero_viz", *map(str, args)], input=stdin,
                          capture_output=True, cwd=cwd, env=clean_env(env), timeout=timeout)


def out_text(proc) -> str:
    return proc.stdout.decode("utf-8")


def err_text(proc) -> str:
    return proc.stderr.decode("utf-8")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_log(path: Path, lines: list[str | bytes], *, gz: bool = False) -> Path:
    """A log file from ``lines`` (str lines are UTF-8 encoded), newline-terminated; gzip when asked."""
    data = b"".join((line if isinstance(line, bytes) else line.encode("utf-8")) + b"\n" for line in lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def good_lines() -> list[str]:
    """Every conversation of the small fixture log and the corpus sample, as JSONL lines."""
    return [line for f in (SMALL_LOG, CORPUS) for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]


def without_run(summary: dict) -> dict:
    """A summary without what depends on how it ran (engine, timing, resumption, paths)."""
    return {k: v for k, v in summary.items() if k not in ("run", "output")}
