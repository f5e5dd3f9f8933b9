"""``layerzero-viz lint INPUT… [--profile auto]``: predict what pruning will break, and how to rewrite it.

Prints one JSON object: ``findings`` (code, severity, message, where, excerpt, suggestion, fix_available,
plus ``input`` and ``line`` for JSONL), ``summary`` (findings per severity) and the profile used.  Every
JSONL line is linted unless ``--line`` picks one.  ``-o FILE`` writes the conversation with every
mechanical fix applied (one input only).  Codes are documented in docs/LINT.md.

Exit codes: 0 no error-severity finding; 1 at least one (for CI over a prompt repository); 2 unreadable input.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..advisor.lint import CHECKS, SEVERITIES, apply_all, lint
from ..advisor.profiles import AUTO, load_profiles
from ..errors import InputError
from ..formats import dump_conversation, dump_text, iter_conversations, load_conversation
from . import EXIT_GATE, EXIT_OK, INPUT_FORMATS, check_output

__all__ = ["add_parser", "run"]

LINT_VERSION = 1


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("lint", help="find what pruning will break and suggest rewrites (JSON findings)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="conversation files, or - for stdin")
    p.add_argument("--format", default="auto", choices=INPUT_FORMATS,
                   help="the input's format (default: auto, detected from the content)")
    p.add_argument("--line", type=int, default=None, help="JSONL: lint only this 1-based line")
    p.add_argument("--ratio", type=float, default=None, help="the prune ratio you will use (LZ180 checks it)")
    p.add_argument("--profile", default=AUTO,
                   help="domain profile: auto (detect), none, or a name from the profile file (default auto)")
    p.add_argument("--profiles", default=None, help="profile file (TOML); default $LAYERZERO_PROFILES or the shipped one")
    p.add_argument("--select", default=None, help="comma-separated codes to report, e.g. LZ101,LZ110")
    p.add_argument("-o", "--output", default=None,
                   help="write the conversation with all mechanical fixes applied (never over INPUT unless "
                        "--in-place); '-' is standard output, and the findings then go to standard error")
    p.add_argument("--in-place", action="store_true", help="allow -o to name the input file")
    p.add_argument("--max-bytes", type=int, default=20 * 1024 * 1024, help="input size limit (default 20 MB)")
    p.set_defaults(run=run)


def _codes(select: str | None) -> tuple[str, ...] | None:
    if not select:
        return None
    codes = tuple(c.strip().upper() for c in select.split(",") if c.strip())
    unknown = [c for c in codes if c not in CHECKS]
    if unknown:
        raise InputError(f"unknown lint codes {', '.join(unknown)}", location="--select",
                         hint=f"use codes from: {', '.join(CHECKS)}")
    return codes


def run(args: argparse.Namespace) -> int:
    profiles = load_profiles(args.profiles)
    profile = None if args.profile.lower() == "none" else args.profile
    if profile not in (None, AUTO) and profile not in profiles:
        raise InputError(f"unknown profile {profile!r}", location="--profile",
                         hint=f"use auto, none or one of: {', '.join(sorted(profiles))}")
    if args.output and len(args.inputs) != 1:
        raise InputError("-o/--output needs exactly one input", location="-o")
    if args.output:
        check_output(args.output, args.inputs, args.in_place)
    options = dict(profile=profile, ratio=args.ratio, env=os.environ, profiles=profiles, codes=_codes(args.select))
    findings = []
    fixed = None  # the conversation with every mechanical fix applied (for -o)
    for name in args.inputs:
        for line, conv in _conversations(name, args):
            for f in lint(conv, **options):
                findings.append({"input": name, "line": line, **f.to_dict()})
            if args.output:
                fixed = apply_all(conv, **options)[0]
    summary = {s: sum(1 for f in findings if f["severity"] == s) for s in SEVERITIES}
    payload = {"version": LINT_VERSION, "profile": args.profile, "summary": summary, "findings": findings}
    report_to = sys.stdout
    if args.output == "-":  # the fixed conversation is what a pipe wants; the findings go to stderr
        if fixed is not None:
            sys.stdout.write(dump_text(fixed, dump_conversation(fixed)))
            sys.stdout.flush()
        report_to = sys.stderr
    elif args.output and fixed is not None:
        from ..cli import write_atomic
        write_atomic(Path(args.output), dump_text(fixed, dump_conversation(fixed)))
    report_to.write(json.dumps(payload, ensure_ascii=False) + "\n")
    return EXIT_GATE if summary["error"] else EXIT_OK


def _conversations(name: str, args: argparse.Namespace):
    """(JSONL line or None, conversation) for every conversation in one input; InputError stops the run."""
    if name == "-":
        source: object = sys.stdin.buffer.read()
        display = "<stdin>"
    else:
        source, display = Path(name), name
    if args.line is not None:
        conv = load_conversation(source, args.format, line=args.line, max_bytes=args.max_bytes, name=display)
        yield conv.jsonl_line, conv
        return
    for line, conv in iter_conversations(source, args.format, max_bytes=args.max_bytes, name=display):
        if isinstance(conv, InputError):
            raise conv
        yield conv.jsonl_line, conv
